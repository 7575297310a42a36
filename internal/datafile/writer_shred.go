package datafile

import (
	"fmt"
	"math/big"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/lakesql/lakesql/internal/schema"
)

// shred appends the Parquet values of v (a value of node n) to the pending
// leaf columns, with repetition level r for the first value of each leaf and
// d the definition level of n's parent (Dremel record shredding, as
// parquet-mr's ParquetRowDataWriter drives it).
func (w *ParquetWriter) shred(n *wnode, v any, r, d int) error {
	if v == nil {
		if !n.optional {
			return fmt.Errorf("%w: NULL in NOT NULL column %s", ErrInvalidValue, n.path)
		}
		w.nulls(n, r, d)
		return nil
	}
	if n.kind != 0 {
		pv, size, err := w.leafValue(n, v)
		if err != nil {
			return err
		}
		w.pending[n.leaf] = append(w.pending[n.leaf], pv.Level(r, n.def, n.leaf))
		w.pendingBytes += size
		return nil
	}
	switch n.t.Root {
	case schema.TypeRow:
		fields, ok := v.([]any)
		if !ok {
			return typeError(n, v, "[]any")
		}
		if len(fields) != len(n.nested) {
			return fmt.Errorf("%w: column %s: ROW value has %d fields, type has %d", ErrInvalidValue, n.path, len(fields), len(n.nested))
		}
		for i, c := range n.nested {
			if err := w.shred(c, fields[i], r, n.def); err != nil {
				return err
			}
		}
	case schema.TypeArray:
		elems, ok := v.([]any)
		if !ok {
			return typeError(n, v, "[]any")
		}
		if len(elems) == 0 {
			w.nulls(n, r, n.def)
			return nil
		}
		for i, e := range elems {
			rr := n.rep
			if i == 0 {
				rr = r
			}
			if err := w.shred(n.nested[0], e, rr, n.def+1); err != nil {
				return err
			}
		}
	case schema.TypeMap, schema.TypeMultiset:
		m, ok := v.(schema.Map)
		if !ok {
			return typeError(n, v, "schema.Map")
		}
		if len(m.Keys) != len(m.Values) {
			return fmt.Errorf("%w: column %s: map has %d keys and %d values", ErrInvalidValue, n.path, len(m.Keys), len(m.Values))
		}
		if len(m.Keys) == 0 {
			w.nulls(n, r, n.def)
			return nil
		}
		for i := range m.Keys {
			rr := n.rep
			if i == 0 {
				rr = r
			}
			if err := w.shred(n.nested[0], m.Keys[i], rr, n.def+1); err != nil {
				return err
			}
			if err := w.shred(n.nested[1], m.Values[i], rr, n.def+1); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: column %s: cannot write %s", ErrUnsupported, n.path, typeName(n.t))
	}
	return nil
}

// nulls appends a NULL at definition level d to every leaf under n.
func (w *ParquetWriter) nulls(n *wnode, r, d int) {
	for l := n.lo; l < n.hi; l++ {
		w.pending[l] = append(w.pending[l], parquet.NullValue().Level(r, d, l))
	}
}

func typeError(n *wnode, v any, want string) error {
	return fmt.Errorf("%w: column %s (%s): got Go type %T, want %s", ErrInvalidValue, n.path, typeName(n.t), v, want)
}

// leafValue converts a non-nil value of a primitive column to its stored
// Parquet value (without levels) and an estimate of its encoded size.
func (w *ParquetWriter) leafValue(n *wnode, v any) (parquet.Value, int64, error) {
	switch n.kind {
	case leafBool:
		if x, ok := v.(bool); ok {
			return parquet.BooleanValue(x), 1, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "bool")
	case leafInt8:
		if x, ok := v.(int8); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "int8")
	case leafInt16:
		if x, ok := v.(int16); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "int16")
	case leafInt32:
		if x, ok := v.(int32); ok {
			return parquet.Int32Value(x), 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "int32")
	case leafInt64:
		if x, ok := v.(int64); ok {
			return parquet.Int64Value(x), 8, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "int64")
	case leafFloat:
		if x, ok := v.(float32); ok {
			return parquet.FloatValue(x), 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "float32")
	case leafDouble:
		if x, ok := v.(float64); ok {
			return parquet.DoubleValue(x), 8, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "float64")
	case leafString:
		if x, ok := v.(string); ok {
			// The column writer copies the bytes; the string is not kept.
			return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(x), len(x))), int64(len(x)) + 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "string")
	case leafBinary:
		if x, ok := v.([]byte); ok {
			return parquet.ByteArrayValue(x), int64(len(x)) + 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "[]byte")
	case leafDate:
		if x, ok := v.(schema.Date); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "schema.Date")
	case leafTime:
		if x, ok := v.(schema.Time); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
		return parquet.Value{}, 0, typeError(n, v, "schema.Time")
	case leafTimestampMillis, leafTimestampMicros, leafTimestampInt96:
		x, ok := v.(schema.Timestamp)
		if !ok {
			return parquet.Value{}, 0, typeError(n, v, "schema.Timestamp")
		}
		if x.NanoOfMilli < 0 || x.NanoOfMilli >= nanosPerMilli {
			return parquet.Value{}, 0, fmt.Errorf("%w: column %s: timestamp nano-of-millisecond %d out of range", ErrInvalidValue, n.path, x.NanoOfMilli)
		}
		switch n.kind {
		case leafTimestampMillis:
			return parquet.Int64Value(x.Millis), 8, nil
		case leafTimestampMicros:
			// Timestamp.toMicros.
			return parquet.Int64Value(x.Millis*microsPerMilli + int64(x.NanoOfMilli)/1000), 8, nil
		}
		return parquet.Int96Value(timestampToInt96(x)), 12, nil
	case leafDecimal32, leafDecimal64, leafDecimalFixed:
		x, ok := v.(schema.Decimal)
		if !ok {
			return parquet.Value{}, 0, typeError(n, v, "schema.Decimal")
		}
		return w.decimalValue(n, x)
	}
	return parquet.Value{}, 0, fmt.Errorf("%w: column %s: cannot write %s", ErrUnsupported, n.path, typeName(n.t))
}

// timestampToInt96 mirrors ParquetRowDataWriter.timestampToInt96, Java's
// truncating division included: nanos of day, then the Julian day.
func timestampToInt96(ts schema.Timestamp) deprecated.Int96 {
	julianDay := ts.Millis/millisPerDay + julianEpochDay
	nanosOfDay := (ts.Millis%millisPerDay)*nanosPerMilli + int64(ts.NanoOfMilli)
	return deprecated.Int96{uint32(nanosOfDay), uint32(uint64(nanosOfDay) >> 32), uint32(int32(julianDay))}
}

// pow10 holds 10^0 … 10^18.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decimalValue brings a decimal to the column's scale (exactly; a value
// that would need rounding is an error) and checks its precision, as
// Decimal.fromBigDecimal would reject it.
func (w *ParquetWriter) decimalValue(n *wnode, x schema.Decimal) (parquet.Value, int64, error) {
	overflow := func() (parquet.Value, int64, error) {
		return parquet.Value{}, 0, fmt.Errorf("%w: column %s: decimal %s does not fit %s", ErrInvalidValue, n.path, decimalText(x), typeName(n.t))
	}
	if x.Big == nil && x.Scale == n.scale && n.kind != leafDecimalFixed {
		u := x.Compact
		if u <= -pow10[n.prec] || u >= pow10[n.prec] {
			return overflow()
		}
		if n.kind == leafDecimal32 {
			return parquet.Int32Value(int32(u)), 4, nil
		}
		return parquet.Int64Value(u), 8, nil
	}
	if x.Big == nil && x.Scale == n.scale {
		// |int64| < 10^19 <= 10^precision: always fits.
		a := w.arena[n.leaf]
		start := len(a)
		a = append(a, make([]byte, n.width)...)
		b := a[start:]
		u := uint64(x.Compact)
		for i := len(b) - 1; i >= 0; i-- {
			b[i] = byte(u)
			u = uint64(int64(u) >> 8)
		}
		w.arena[n.leaf] = a
		return parquet.FixedLenByteArrayValue(b), int64(n.width), nil
	}
	u := x.Big
	if u == nil {
		u = big.NewInt(x.Compact)
	}
	switch {
	case x.Scale < n.scale:
		u = new(big.Int).Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.scale-x.Scale)), nil))
	case x.Scale > n.scale:
		q, m := new(big.Int).QuoRem(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale-n.scale)), nil), new(big.Int))
		if m.Sign() != 0 {
			return parquet.Value{}, 0, fmt.Errorf("%w: column %s: decimal %s has more than %d fraction digits", ErrInvalidValue, n.path, decimalText(x), n.scale)
		}
		u = q
	}
	if n.kind != leafDecimalFixed {
		if !u.IsInt64() || u.Int64() <= -pow10[n.prec] || u.Int64() >= pow10[n.prec] {
			return overflow()
		}
		if n.kind == leafDecimal32 {
			return parquet.Int32Value(int32(u.Int64())), 4, nil
		}
		return parquet.Int64Value(u.Int64()), 8, nil
	}
	if new(big.Int).Abs(u).Cmp(n.limit) >= 0 {
		return overflow()
	}
	// Big-endian two's complement, sign-extended to the fixed width.
	a := w.arena[n.leaf]
	start := len(a)
	a = append(a, make([]byte, n.width)...)
	b := a[start:]
	if u.Sign() >= 0 {
		u.FillBytes(b)
	} else {
		// 2^(8·width) + u
		t := new(big.Int).Lsh(big.NewInt(1), uint(8*n.width))
		t.Add(t, u)
		t.FillBytes(b)
	}
	w.arena[n.leaf] = a
	return parquet.FixedLenByteArrayValue(b), int64(n.width), nil
}

func decimalText(d schema.Decimal) string {
	u := d.Big
	if u == nil {
		u = big.NewInt(d.Compact)
	}
	return fmt.Sprintf("%se-%d", u.String(), d.Scale)
}
