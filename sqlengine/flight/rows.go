package flight

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Results of statements that are not plain scans come from the handler
// chain over an in-process MySQL connection, as MySQL text rows; rowReader
// converts them to Arrow record batches of rowBatch rows, column by column
// from each MySQL type to its Arrow type (the same types a plain scan of a
// Paimon column gives: datafile.ArrowType).

const rowBatch = 16384

// columnType is one result column: its Arrow type and how its text parses.
type columnType struct {
	arrow arrow.DataType
	parse func(b array.Builder, text []byte) error
}

func arrowColumns(cts []*sql.ColumnType) (*arrow.Schema, []columnType, error) {
	fields := make([]arrow.Field, len(cts))
	cols := make([]columnType, len(cts))
	for i, ct := range cts {
		c, err := columnFor(ct)
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", ct.Name(), err)
		}
		nullable, ok := ct.Nullable()
		fields[i] = arrow.Field{Name: ct.Name(), Type: c.arrow, Nullable: nullable || !ok}
		cols[i] = c
	}
	return arrow.NewSchema(fields, nil), cols, nil
}

func intParser(bits int) func(array.Builder, []byte) error {
	return func(b array.Builder, text []byte) error {
		n, err := strconv.ParseInt(string(text), 10, bits)
		if err != nil {
			return err
		}
		switch b := b.(type) {
		case *array.Int8Builder:
			b.Append(int8(n))
		case *array.Int16Builder:
			b.Append(int16(n))
		case *array.Int32Builder:
			b.Append(int32(n))
		case *array.Int64Builder:
			b.Append(n)
		}
		return nil
	}
}

func uintParser(bits int) func(array.Builder, []byte) error {
	return func(b array.Builder, text []byte) error {
		n, err := strconv.ParseUint(string(text), 10, bits)
		if err != nil {
			return err
		}
		switch b := b.(type) {
		case *array.Uint8Builder:
			b.Append(uint8(n))
		case *array.Uint16Builder:
			b.Append(uint16(n))
		case *array.Uint32Builder:
			b.Append(uint32(n))
		case *array.Uint64Builder:
			b.Append(n)
		}
		return nil
	}
}

func columnFor(ct *sql.ColumnType) (columnType, error) {
	switch ct.DatabaseTypeName() {
	case "TINYINT":
		return columnType{arrow.PrimitiveTypes.Int8, intParser(8)}, nil
	case "SMALLINT", "YEAR":
		return columnType{arrow.PrimitiveTypes.Int16, intParser(16)}, nil
	case "MEDIUMINT", "INT":
		return columnType{arrow.PrimitiveTypes.Int32, intParser(32)}, nil
	case "BIGINT":
		return columnType{arrow.PrimitiveTypes.Int64, intParser(64)}, nil
	case "UNSIGNED TINYINT":
		return columnType{arrow.PrimitiveTypes.Uint8, uintParser(8)}, nil
	case "UNSIGNED SMALLINT":
		return columnType{arrow.PrimitiveTypes.Uint16, uintParser(16)}, nil
	case "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		return columnType{arrow.PrimitiveTypes.Uint32, uintParser(32)}, nil
	case "UNSIGNED BIGINT", "BIT":
		return columnType{arrow.PrimitiveTypes.Uint64, uintParser(64)}, nil
	case "FLOAT":
		return columnType{arrow.PrimitiveTypes.Float32, func(b array.Builder, t []byte) error {
			f, err := strconv.ParseFloat(string(t), 32)
			b.(*array.Float32Builder).Append(float32(f))
			return err
		}}, nil
	case "DOUBLE":
		return columnType{arrow.PrimitiveTypes.Float64, func(b array.Builder, t []byte) error {
			f, err := strconv.ParseFloat(string(t), 64)
			b.(*array.Float64Builder).Append(f)
			return err
		}}, nil
	case "DECIMAL":
		p, s, ok := ct.DecimalSize()
		if !ok || p < 1 || p > 38 {
			p, s = 38, min(max(s, 0), 38)
		}
		dt := &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}
		return columnType{dt, func(b array.Builder, t []byte) error {
			n, err := decimal128.FromString(string(t), dt.Precision, dt.Scale)
			b.(*array.Decimal128Builder).Append(n)
			return err
		}}, nil
	case "DATE":
		return columnType{arrow.FixedWidthTypes.Date32, func(b array.Builder, t []byte) error {
			d, err := time.Parse(time.DateOnly, string(t))
			b.(*array.Date32Builder).Append(arrow.Date32FromTime(d))
			return err
		}}, nil
	case "DATETIME", "TIMESTAMP":
		return columnType{&arrow.TimestampType{Unit: arrow.Microsecond}, func(b array.Builder, t []byte) error {
			d, err := time.Parse("2006-01-02 15:04:05.999999999", string(t))
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(d.UnixMicro()))
			return err
		}}, nil
	case "TIME":
		return columnType{arrow.FixedWidthTypes.Time64us, func(b array.Builder, t []byte) error {
			us, err := parseTime(string(t))
			b.(*array.Time64Builder).Append(arrow.Time64(us))
			return err
		}}, nil
	case "BINARY", "VARBINARY", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY":
		return columnType{arrow.BinaryTypes.Binary, func(b array.Builder, t []byte) error {
			b.(*array.BinaryBuilder).Append(t)
			return nil
		}}, nil
	case "NULL":
		return columnType{arrow.Null, func(b array.Builder, _ []byte) error {
			b.AppendNull()
			return nil
		}}, nil
	}
	// CHAR, VARCHAR, TEXT…, JSON, ENUM, SET: text.
	return columnType{arrow.BinaryTypes.String, func(b array.Builder, t []byte) error {
		b.(*array.StringBuilder).BinaryBuilder.Append(t)
		return nil
	}}, nil
}

// parseTime reads MySQL's TIME text ([-]h…h:mm:ss[.ffffff]) as
// microseconds.
func parseTime(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, fmt.Errorf("bad TIME %q", s)
	}
	h, err1 := strconv.ParseInt(parts[0], 10, 64)
	m, err2 := strconv.ParseInt(parts[1], 10, 64)
	sec, frac, _ := strings.Cut(parts[2], ".")
	sc, err3 := strconv.ParseInt(sec, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, fmt.Errorf("bad TIME %q", s)
	}
	us := ((h*60+m)*60 + sc) * 1e6
	if frac != "" {
		frac = (frac + "000000")[:6]
		f, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad TIME %q", s)
		}
		us += f
	}
	if neg {
		us = -us
	}
	return us, nil
}

// rowReader reads record batches from rows.
type rowReader struct {
	rows   *sql.Rows
	schema *arrow.Schema
	cols   []columnType
	mem    memory.Allocator
	vals   []sql.RawBytes
	ptrs   []any
}

func newRowReader(rows *sql.Rows, mem memory.Allocator) (*rowReader, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	sc, cols, err := arrowColumns(cts)
	if err != nil {
		return nil, err
	}
	r := &rowReader{rows: rows, schema: sc, cols: cols, mem: mem, vals: make([]sql.RawBytes, len(cols))}
	r.ptrs = make([]any, len(cols))
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	return r, nil
}

// next reads up to rowBatch rows; nil at the end.
func (r *rowReader) next() (arrow.RecordBatch, error) {
	bld := array.NewRecordBuilder(r.mem, r.schema)
	defer bld.Release()
	n := 0
	for n < rowBatch && r.rows.Next() {
		if err := r.rows.Scan(r.ptrs...); err != nil {
			return nil, err
		}
		for i, v := range r.vals {
			fb := bld.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			if err := r.cols[i].parse(fb, v); err != nil {
				return nil, fmt.Errorf("column %s: %w", r.schema.Field(i).Name, err)
			}
		}
		n++
	}
	if err := r.rows.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	return bld.NewRecordBatch(), nil
}
