package provider

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
)

// Index lookups must be exact: for a lookup join GMS removes the join
// condition the key came from, so the rows a lookup returns are the join's
// matches. This file turns a lookup bound (a key value as GMS hands it, of
// any Go type the index's key types produce, or the raw probe value of the
// first lookup) into the column's value model without ever widening it.

// indexKeyType reports whether a primary-key column of this type can be an
// index column: lookups on it compare exactly as MySQL compares. DOUBLE and
// FLOAT are left out (Paimon orders -0.0 before 0.0; MySQL has them equal),
// as are CHAR (MySQL pads), binary, TIME, nested types and timestamps finer
// than microseconds (GMS sees them truncated).
func indexKeyType(t *schema.DataType) bool {
	switch t.Root {
	case schema.TypeBoolean, schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt,
		schema.TypeDecimal, schema.TypeVarChar, schema.TypeDate:
		return true
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return t.Precision <= 6
	}
	return false
}

// lookupKeyType is the type the index reports for a key column: GMS converts
// lookup keys and range bounds to it. It is wider than the column where the
// column's own type would round or clamp a bound (INT clamps 3000000000 to
// 2147483647, DECIMAL(6,2) rounds 1.234 to 1.23, DATE drops the time of
// day); columnBound then narrows exactly.
func lookupKeyType(t *schema.DataType, col sql.Type) sql.Type {
	switch t.Root {
	case schema.TypeBoolean, schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
		return types.Int64
	case schema.TypeDecimal:
		return types.InternalDecimalType
	case schema.TypeDate, schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return types.DatetimeMaxPrecision
	}
	return col
}

// colBound is a bound value v placed among a column's values: exact when v
// is one of them (val), otherwise floor (the largest value below v) and
// ceil (the smallest above), nil where there is none.
type colBound struct {
	exact       bool
	val         any
	floor, ceil any
}

// columnBound converts a lookup bound to the column's value model.
func columnBound(t *schema.DataType, v any) (colBound, error) {
	switch t.Root {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
		lo, hi := intRange(t.Root)
		return intBound(t.Root, v, lo, hi)
	case schema.TypeBoolean:
		b, err := intBound(schema.TypeBigInt, v, 0, 1)
		if err != nil {
			return b, err
		}
		toBool := func(x any) any {
			if x == nil {
				return nil
			}
			return x.(int64) == 1
		}
		return colBound{exact: b.exact, val: toBool(b.val), floor: toBool(b.floor), ceil: toBool(b.ceil)}, nil
	case schema.TypeDecimal:
		d, ok := toDecimal(v)
		if !ok {
			break
		}
		return decimalBound(t, d)
	case schema.TypeVarChar:
		switch x := v.(type) {
		case string:
			return colBound{exact: true, val: x}, nil
		case []byte:
			return colBound{exact: true, val: string(x)}, nil
		}
	case schema.TypeDate:
		tm, ok := v.(time.Time)
		if !ok {
			break
		}
		tm = tm.UTC()
		days := schema.FloorDiv(tm.Unix(), 86400)
		if days < math.MinInt32 || days >= math.MaxInt32 {
			break
		}
		if tm.Equal(time.Unix(days*86400, 0)) {
			return colBound{exact: true, val: schema.Date(days)}, nil
		}
		return colBound{floor: schema.Date(days), ceil: schema.Date(days + 1)}, nil
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		tm, ok := v.(time.Time)
		if !ok {
			break
		}
		// Values are stored at the column's precision: a finer bound lies
		// between two of them.
		tm = tm.UTC()
		unit := time.Duration(1)
		for i := t.Precision; i < 9; i++ {
			unit *= 10
		}
		fl := tm.Truncate(unit)
		if fl.Equal(tm) {
			return colBound{exact: true, val: schema.TimestampFromTime(tm)}, nil
		}
		return colBound{floor: schema.TimestampFromTime(fl), ceil: schema.TimestampFromTime(fl.Add(unit))}, nil
	}
	return colBound{}, fmt.Errorf("provider: index lookup key %v (%T) has no exact %s value", v, v, t)
}

func intRange(root schema.TypeRoot) (int64, int64) {
	switch root {
	case schema.TypeTinyInt:
		return math.MinInt8, math.MaxInt8
	case schema.TypeSmallInt:
		return math.MinInt16, math.MaxInt16
	case schema.TypeInt:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// intBound places v among the integers lo..hi (values in the column's Go
// type).
func intBound(root schema.TypeRoot, v any, lo, hi int64) (colBound, error) {
	cast := func(i int64) any {
		switch root {
		case schema.TypeTinyInt:
			return int8(i)
		case schema.TypeSmallInt:
			return int16(i)
		case schema.TypeInt:
			return int32(i)
		}
		return i
	}
	var r *big.Rat
	switch x := v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32:
		i, _ := exactInt(x)
		r = new(big.Rat).SetInt64(i)
	case uint64:
		r = new(big.Rat).SetUint64(x)
	case uint:
		r = new(big.Rat).SetUint64(uint64(x))
	case bool:
		if x {
			r = big.NewRat(1, 1)
		} else {
			r = new(big.Rat)
		}
	case float32:
		return intBound(root, float64(x), lo, hi)
	case float64:
		switch {
		case math.IsNaN(x):
			return colBound{}, fmt.Errorf("provider: index lookup key NaN")
		case math.IsInf(x, 1):
			return colBound{floor: cast(hi)}, nil
		case math.IsInf(x, -1):
			return colBound{ceil: cast(lo)}, nil
		}
		r = new(big.Rat)
		r.SetFloat64(x)
	case decimal.Decimal:
		r = x.Rat()
	default:
		return colBound{}, fmt.Errorf("provider: index lookup key %v (%T) is not a number", v, v)
	}
	loR, hiR := new(big.Rat).SetInt64(lo), new(big.Rat).SetInt64(hi)
	switch {
	case r.Cmp(hiR) > 0:
		return colBound{floor: cast(hi)}, nil
	case r.Cmp(loR) < 0:
		return colBound{ceil: cast(lo)}, nil
	}
	if r.IsInt() {
		return colBound{exact: true, val: cast(r.Num().Int64())}, nil
	}
	// lo < r < hi and r is not an integer: floor and ceil are in range.
	f := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for a positive denominator
	c := new(big.Int).Add(f, big.NewInt(1))
	return colBound{floor: cast(f.Int64()), ceil: cast(c.Int64())}, nil
}

// toDecimal converts a numeric value the way GMS compares it with a DECIMAL
// (floats through their shortest decimal form).
func toDecimal(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return decimal.Decimal{}, false
		}
		return decimal.NewFromFloat(x), true
	case float32:
		return toDecimal(float64(x))
	case uint64:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(x), 0), true
	case uint:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(uint64(x)), 0), true
	case bool:
		if x {
			return decimal.NewFromInt(1), true
		}
		return decimal.Zero, true
	}
	if i, ok := exactInt(v); ok {
		return decimal.NewFromInt(i), true
	}
	return decimal.Decimal{}, false
}

// decimalBound places d among the values of a DECIMAL(p,s) column, as
// schema.Decimal values at scale s (the form the bucket hash and the file
// statistics hold).
func decimalBound(t *schema.DataType, d decimal.Decimal) (colBound, error) {
	s := int32(t.Scale)
	maxV := decimal.New(1, int32(t.Precision-t.Scale)).Sub(decimal.New(1, -s))
	at := func(x decimal.Decimal) (any, error) {
		out, err := schema.DecimalFromString(x.StringFixed(s), t.Precision, t.Scale)
		if err != nil {
			return nil, fmt.Errorf("provider: index lookup key %s: %w", x, err)
		}
		return out, nil
	}
	switch {
	case d.GreaterThan(maxV):
		m, err := at(maxV)
		return colBound{floor: m}, err
	case d.LessThan(maxV.Neg()):
		m, err := at(maxV.Neg())
		return colBound{ceil: m}, err
	}
	fl, ce := d.RoundFloor(s), d.RoundCeil(s)
	if fl.Equal(d) {
		v, err := at(fl)
		return colBound{exact: true, val: v}, err
	}
	f, err := at(fl)
	if err != nil {
		return colBound{}, err
	}
	c, err := at(ce)
	return colBound{floor: f, ceil: c}, err
}
