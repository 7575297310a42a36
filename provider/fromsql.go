package provider

import (
	"fmt"
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
)

// fromSQL converts a value GMS holds for a column of sqlType(t) to the schema
// value model, for writes.
func fromSQL(t *schema.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("provider: cannot store %v (%T) in a %s column", v, v, t)
	}
	switch t.Root {
	case schema.TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		}
		if i, ok := exactInt(v); ok {
			return i != 0, nil
		}
		return bad()
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
		// A value of the column's own Go type is returned as it is: no
		// second boxing per value (LOAD DATA's hot path).
		switch v.(type) {
		case int64:
			if t.Root == schema.TypeBigInt {
				return v, nil
			}
		case int32:
			if t.Root == schema.TypeInt {
				return v, nil
			}
		}
		i, ok := exactInt(v)
		if !ok {
			return bad()
		}
		switch t.Root {
		case schema.TypeTinyInt:
			if i < math.MinInt8 || i > math.MaxInt8 {
				return bad()
			}
			return int8(i), nil
		case schema.TypeSmallInt:
			if i < math.MinInt16 || i > math.MaxInt16 {
				return bad()
			}
			return int16(i), nil
		case schema.TypeInt:
			if i < math.MinInt32 || i > math.MaxInt32 {
				return bad()
			}
			return int32(i), nil
		}
		return i, nil
	case schema.TypeFloat:
		switch x := v.(type) {
		case float32:
			return x, nil
		case float64:
			return float32(x), nil
		}
	case schema.TypeDouble:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
	case schema.TypeDecimal:
		var d decimal.Decimal
		switch x := v.(type) {
		case decimal.Decimal:
			d = x
		case decimal.NullDecimal:
			if !x.Valid {
				return nil, nil
			}
			d = x.Decimal
		default:
			i, ok := exactInt(v)
			if !ok {
				return bad()
			}
			d = decimal.NewFromInt(i)
		}
		if e := d.Exponent(); e <= 0 {
			// coefficient × 10^e: no text round trip (LOAD DATA's hot path).
			return schema.DecimalFromUnscaled(d.Coefficient(), int(-e)).Rescale(t.Precision, t.Scale)
		}
		return schema.DecimalFromString(d.String(), t.Precision, t.Scale)
	case schema.TypeChar, schema.TypeVarChar:
		switch x := v.(type) {
		case string:
			return v, nil
		case []byte:
			return string(x), nil
		}
	case schema.TypeBinary, schema.TypeVarBinary, schema.TypeBlob, schema.TypeVariant:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case schema.TypeDate:
		if tm, ok := v.(time.Time); ok {
			return schema.DateFromTime(tm.UTC()), nil
		}
	case schema.TypeTime:
		if ts, ok := v.(types.Timespan); ok {
			return schema.Time(ts.AsMicroseconds() / 1000), nil
		}
	case schema.TypeTimestamp:
		if tm, ok := v.(time.Time); ok {
			return schema.TimestampFromWallClock(tm.UTC()).Truncate(t.Precision), nil
		}
	case schema.TypeLocalZonedTimestamp:
		if tm, ok := v.(time.Time); ok {
			return schema.TimestampFromTime(tm).Truncate(t.Precision), nil
		}
	case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
		return nil, fmt.Errorf("provider: writing %s columns through SQL is not supported yet", t)
	}
	return bad()
}
