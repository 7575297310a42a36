package datafile

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/internal/schema"
)

// ArrowType is the Arrow type of a Paimon type, as the Flight SQL endpoint
// sends it, which is the Arrow type of the MySQL type lakesql shows for it
// (so that every query gives one column the same type): integers and
// floats as themselves, BOOLEAN as int8 0/1 (MySQL's tinyint(1)),
// DECIMAL(p,s) as decimal128(p,s) (p ≤ 38), CHAR/VARCHAR/STRING as utf8,
// BINARY/VARBINARY/BYTES as binary, DATE as date32, TIME as time64[µs],
// TIMESTAMP(p) and TIMESTAMP_LTZ(p) as timestamp[µs] without a zone
// (MySQL's datetime; the LTZ instant in UTC). Nested types, VARIANT and
// BLOB have no columnar mapping here: ok is false.
func ArrowType(t *schema.DataType) (arrow.DataType, bool) {
	switch t.Root {
	case schema.TypeBoolean, schema.TypeTinyInt:
		return arrow.PrimitiveTypes.Int8, true
	case schema.TypeSmallInt:
		return arrow.PrimitiveTypes.Int16, true
	case schema.TypeInt:
		return arrow.PrimitiveTypes.Int32, true
	case schema.TypeBigInt:
		return arrow.PrimitiveTypes.Int64, true
	case schema.TypeFloat:
		return arrow.PrimitiveTypes.Float32, true
	case schema.TypeDouble:
		return arrow.PrimitiveTypes.Float64, true
	case schema.TypeDecimal:
		if t.Precision < 1 || t.Precision > 38 {
			return nil, false
		}
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, true
	case schema.TypeChar, schema.TypeVarChar:
		return arrow.BinaryTypes.String, true
	case schema.TypeBinary, schema.TypeVarBinary:
		return arrow.BinaryTypes.Binary, true
	case schema.TypeDate:
		return arrow.FixedWidthTypes.Date32, true
	case schema.TypeTime:
		return arrow.FixedWidthTypes.Time64us, true
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, true
	}
	return nil, false
}

// ArrowSchema is the Arrow schema of fields (ArrowType each, nullable as
// the field is); ok is false when a field has no Arrow mapping.
func ArrowSchema(fields []schema.DataField) (*arrow.Schema, bool) {
	out := make([]arrow.Field, len(fields))
	for i := range fields {
		at, ok := ArrowType(&fields[i].Type)
		if !ok {
			return nil, false
		}
		out[i] = arrow.Field{Name: fields[i].Name, Type: at, Nullable: fields[i].Type.Nullable}
	}
	return arrow.NewSchema(out, nil), true
}

// ArrowRecord copies the remaining rows of b (its selection) into a new
// Arrow record of sc (ArrowSchema of b's columns' fields), which does not
// share memory with b: b may be reused at once. Typed vectors are copied
// slice to slice; the boxed ones (VectorAny) are appended value by value
// to Arrow builders.
func (b *Batch) ArrowRecord(sc *arrow.Schema, mem memory.Allocator) (arrow.RecordBatch, error) {
	if len(b.Cols) != sc.NumFields() {
		return nil, fmt.Errorf("datafile: batch of %d columns for a schema of %d", len(b.Cols), sc.NumFields())
	}
	n := b.Rows()
	cols := make([]arrow.Array, len(b.Cols))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i := range b.Cols {
		a, err := b.Cols[i].arrowCopy(sc.Field(i).Type, b.Sel, mem)
		if err != nil {
			release()
			return nil, fmt.Errorf("datafile: column %s: %w", sc.Field(i).Name, err)
		}
		cols[i] = a
	}
	rec := array.NewRecordBatch(sc, cols, int64(n))
	release() // the record holds its own references
	return rec, nil
}

// gather copies the selected entries of s (all of s[:n] when sel is nil).
func gather[T any](s []T, n int, sel []int32) []T {
	if sel == nil {
		return append([]T(nil), s[:n]...)
	}
	out := make([]T, len(sel))
	for j, k := range sel {
		out[j] = s[k]
	}
	return out
}

// validity is the validity bitmap of the selected entries (nil when none
// is NULL) and their NULL count.
func (v *Vector) validity(sel []int32, n int) (*memory.Buffer, int) {
	if v.Nulls == nil {
		return nil, 0
	}
	rows := n
	if sel != nil {
		rows = len(sel)
	}
	bits := make([]byte, bitutil.BytesForBits(int64(rows)))
	nulls := 0
	for j := range rows {
		k := j
		if sel != nil {
			k = int(sel[j])
		}
		if v.Nulls[k] {
			nulls++
		} else {
			bitutil.SetBit(bits, j)
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(bits), nulls
}

func (v *Vector) arrowCopy(at arrow.DataType, sel []int32, mem memory.Allocator) (arrow.Array, error) {
	n := v.Len
	rows := n
	if sel != nil {
		rows = len(sel)
	}
	switch v.Kind() {
	case VectorInt64:
		valid, nulls := v.validity(sel, n)
		return array.NewInt64Data(array.NewData(at, rows, []*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(gather(v.Int64, n, sel)))}, nil, nulls, 0)), nil
	case VectorInt32:
		valid, nulls := v.validity(sel, n)
		return array.NewInt32Data(array.NewData(at, rows, []*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(gather(v.Int32, n, sel)))}, nil, nulls, 0)), nil
	case VectorFloat64:
		valid, nulls := v.validity(sel, n)
		return array.NewFloat64Data(array.NewData(at, rows, []*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(gather(v.Float64, n, sel)))}, nil, nulls, 0)), nil
	case VectorString:
		valid, nulls := v.validity(sel, n)
		strs := v.Str[:n]
		size := 0
		each := func(fn func(j int, s string)) {
			if sel == nil {
				for j, s := range strs {
					fn(j, s)
				}
				return
			}
			for j, k := range sel {
				fn(j, strs[k])
			}
		}
		each(func(_ int, s string) { size += len(s) })
		data := make([]byte, 0, size)
		offs := make([]int32, rows+1)
		each(func(j int, s string) {
			data = append(data, s...)
			offs[j+1] = int32(len(data))
		})
		return array.NewStringData(array.NewData(at, rows, []*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(offs)), memory.NewBufferBytes(data)}, nil, nulls, 0)), nil
	}
	bld := array.NewBuilder(mem, at)
	defer bld.Release()
	bld.Reserve(rows)
	for j := range rows {
		k := j
		if sel != nil {
			k = int(sel[j])
		}
		if err := appendAny(bld, v.Value(k)); err != nil {
			return nil, err
		}
	}
	return bld.NewArray(), nil
}

// appendAny appends one value of the value model (schema/value.go) to an
// Arrow builder of the matching ArrowType.
func appendAny(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.Int8Builder:
		switch x := v.(type) {
		case int8:
			b.Append(x)
			return nil
		case bool:
			if x {
				b.Append(1)
			} else {
				b.Append(0)
			}
			return nil
		}
	case *array.Int16Builder:
		if x, ok := v.(int16); ok {
			b.Append(x)
			return nil
		}
	case *array.Int32Builder:
		if x, ok := v.(int32); ok {
			b.Append(x)
			return nil
		}
	case *array.Int64Builder:
		if x, ok := v.(int64); ok {
			b.Append(x)
			return nil
		}
	case *array.Float32Builder:
		if x, ok := v.(float32); ok {
			b.Append(x)
			return nil
		}
	case *array.Float64Builder:
		if x, ok := v.(float64); ok {
			b.Append(x)
			return nil
		}
	case *array.StringBuilder:
		if x, ok := v.(string); ok {
			b.Append(x)
			return nil
		}
	case *array.BinaryBuilder:
		if x, ok := v.([]byte); ok {
			b.Append(x)
			return nil
		}
	case *array.Decimal128Builder:
		if x, ok := v.(schema.Decimal); ok {
			d, err := decimalToArrow(x, b.Type().(*arrow.Decimal128Type))
			if err != nil {
				return err
			}
			b.Append(d)
			return nil
		}
	case *array.Date32Builder:
		if x, ok := v.(schema.Date); ok {
			b.Append(arrow.Date32(x))
			return nil
		}
	case *array.Time64Builder:
		if x, ok := v.(schema.Time); ok {
			b.Append(arrow.Time64(int64(x) * 1000))
			return nil
		}
	case *array.TimestampBuilder:
		if x, ok := v.(schema.Timestamp); ok {
			b.Append(arrow.Timestamp(x.Millis*1000 + int64(x.NanoOfMilli)/1000))
			return nil
		}
	}
	return fmt.Errorf("value %T does not fit Arrow %s", v, b.Type())
}

// decimalToArrow rescales a Decimal to the column's scale.
func decimalToArrow(d schema.Decimal, t *arrow.Decimal128Type) (decimal128.Num, error) {
	if d.Big == nil && d.Scale == t.Scale {
		n := decimal128.FromI64(d.Compact)
		if !n.FitsInPrecision(t.Precision) {
			return n, fmt.Errorf("decimal %d does not fit DECIMAL(%d,%d)", d.Compact, t.Precision, t.Scale)
		}
		return n, nil
	}
	u := d.Big
	if u == nil {
		u = big.NewInt(d.Compact)
	}
	if diff := t.Scale - d.Scale; diff != 0 {
		u = new(big.Int).Set(u)
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(diff))), nil)
		if diff > 0 {
			u.Mul(u, p)
		} else {
			u.Quo(u, p)
		}
	}
	n := decimal128.FromBigInt(u)
	if !n.FitsInPrecision(t.Precision) {
		return n, fmt.Errorf("decimal %s does not fit DECIMAL(%d,%d)", u, t.Precision, t.Scale)
	}
	return n, nil
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
