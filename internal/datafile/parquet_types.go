package datafile

import (
	"fmt"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakesql/lakesql/internal/schema"
)

// typeName renders a Paimon type for error messages.
func typeName(t schema.DataType) string {
	names := map[schema.TypeRoot]string{
		schema.TypeBoolean: "BOOLEAN", schema.TypeTinyInt: "TINYINT", schema.TypeSmallInt: "SMALLINT",
		schema.TypeInt: "INT", schema.TypeBigInt: "BIGINT", schema.TypeFloat: "FLOAT", schema.TypeDouble: "DOUBLE",
		schema.TypeDecimal: "DECIMAL", schema.TypeChar: "CHAR", schema.TypeVarChar: "VARCHAR",
		schema.TypeBinary: "BINARY", schema.TypeVarBinary: "VARBINARY", schema.TypeDate: "DATE",
		schema.TypeTime: "TIME", schema.TypeTimestamp: "TIMESTAMP",
		schema.TypeLocalZonedTimestamp: "TIMESTAMP_LTZ", schema.TypeArray: "ARRAY", schema.TypeMap: "MAP",
		schema.TypeMultiset: "MULTISET", schema.TypeRow: "ROW", schema.TypeVariant: "VARIANT", schema.TypeBlob: "BLOB",
	}
	if s, ok := names[t.Root]; ok {
		switch t.Root {
		case schema.TypeDecimal:
			return fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
		case schema.TypeTime, schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
			return fmt.Sprintf("%s(%d)", s, t.Precision)
		}
		return s
	}
	return fmt.Sprintf("type root %d", t.Root)
}

// timeUnit of a TIME or TIMESTAMP annotated leaf: 3 millis, 6 micros, 9
// nanos, 0 when the leaf has no such annotation.
func timeUnit(n *pqNode) int {
	if lt := n.elem.LogicalType.Value; lt != nil {
		var u *format.TimeUnit
		switch t := lt.(type) {
		case *format.TimestampType:
			u = &t.Unit
		case *format.TimeType:
			u = &t.Unit
		}
		if u != nil {
			switch u.Value.(type) {
			case *format.MilliSeconds:
				return 3
			case *format.MicroSeconds:
				return 6
			case *format.NanoSeconds:
				return 9
			}
		}
	}
	if c, ok := n.converted(); ok {
		switch deprecated.ConvertedType(c) {
		case deprecated.TimeMillis, deprecated.TimestampMillis:
			return 3
		case deprecated.TimeMicros, deprecated.TimestampMicros:
			return 6
		}
	}
	return 0
}

// decimalScale is the scale annotated on a leaf, if any.
func decimalScale(n *pqNode) (int32, bool) {
	if d, ok := n.elem.LogicalType.Value.(*format.DecimalType); ok {
		return d.Scale, true
	}
	if c, ok := n.converted(); ok && deprecated.ConvertedType(c) == deprecated.Decimal {
		s, _ := n.elem.Scale.Get()
		return s, true
	}
	return 0, false
}

// newLeafConv picks the conversion of a primitive Parquet leaf into the
// declared Paimon type t.
func newLeafConv(n *pqNode, t schema.DataType, name string) (*leafConv, error) {
	p := n.physical()
	c := &leafConv{phys: p, name: name}
	bad := func() (*leafConv, error) {
		return nil, fmt.Errorf("%w: column %s: cannot read parquet %s as %s", ErrTypeMismatch, name, p, typeName(t))
	}
	if p == format.FixedLenByteArray {
		if l, _ := n.elem.TypeLength.Get(); l <= 0 {
			return nil, fmt.Errorf("%w: column %s: FIXED_LEN_BYTE_ARRAY of length %d", ErrCorrupt, name, l)
		}
	}
	switch t.Root {
	case schema.TypeBoolean:
		if p != format.Boolean {
			return bad()
		}
		c.kind = convBool
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt:
		if p != format.Int32 {
			return bad()
		}
		c.kind = map[schema.TypeRoot]convKind{schema.TypeTinyInt: convInt8, schema.TypeSmallInt: convInt16, schema.TypeInt: convInt32}[t.Root]
	case schema.TypeBigInt:
		switch p {
		case format.Int64:
			c.kind = convInt64
		case format.Int32:
			c.kind = convInt64FromInt32
		default:
			return bad()
		}
	case schema.TypeFloat:
		if p != format.Float {
			return bad()
		}
		c.kind = convFloat
	case schema.TypeDouble:
		switch p {
		case format.Double:
			c.kind = convDouble
		case format.Float:
			c.kind = convDoubleFromFloat
		default:
			return bad()
		}
	case schema.TypeDecimal:
		c.scale = int32(t.Scale)
		if s, ok := decimalScale(n); ok && s != c.scale {
			return nil, fmt.Errorf("%w: column %s: parquet decimal scale %d, declared %s", ErrTypeMismatch, name, s, typeName(t))
		}
		switch p {
		case format.Int32:
			c.kind = convDecimalInt32
		case format.Int64:
			c.kind = convDecimalInt64
		case format.FixedLenByteArray:
			c.kind = convDecimalFLBA
		case format.ByteArray:
			c.kind = convDecimalBytes
		default:
			return bad()
		}
	case schema.TypeChar, schema.TypeVarChar:
		switch p {
		case format.ByteArray:
			c.kind = convStringBytes
		case format.FixedLenByteArray:
			c.kind = convStringFLBA
		default:
			return bad()
		}
	case schema.TypeBinary, schema.TypeVarBinary, schema.TypeVariant, schema.TypeBlob:
		switch p {
		case format.ByteArray:
			c.kind = convBinaryBytes
		case format.FixedLenByteArray:
			c.kind = convBinaryFLBA
		default:
			return bad()
		}
	case schema.TypeDate:
		if p != format.Int32 {
			return bad()
		}
		c.kind = convDate
	case schema.TypeTime:
		switch {
		case p == format.Int32:
			c.kind = convTimeMillis
		case p == format.Int64 && timeUnit(n) == 9:
			c.kind = convTimeNanos
		case p == format.Int64:
			c.kind = convTimeMicros
		default:
			return bad()
		}
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		switch p {
		case format.Int96:
			c.kind = convTimestampInt96
		case format.Int64:
			u := timeUnit(n)
			if u == 0 {
				// No annotation: Paimon's own rule by precision.
				u = 6
				if t.Precision <= 3 {
					u = 3
				}
			}
			c.kind = map[int]convKind{3: convTimestampMillis, 6: convTimestampMicros, 9: convTimestampNanos}[u]
		default:
			return bad()
		}
	default:
		return nil, fmt.Errorf("%w: column %s: %s is not a primitive type", ErrTypeMismatch, name, typeName(t))
	}
	return c, nil
}
