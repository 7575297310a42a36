package provider

import (
	"encoding/base64"
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
)

// The Paimon → MySQL type mapping (documented in the README):
//
//	BOOLEAN                      BOOLEAN (TINYINT(1))
//	TINYINT/SMALLINT/INT/BIGINT  TINYINT/SMALLINT/INT/BIGINT
//	FLOAT/DOUBLE                 FLOAT/DOUBLE
//	DECIMAL(p,s)                 DECIMAL(p,s)
//	CHAR(n)                      CHAR(n) (n ≤ 255), else TEXT
//	VARCHAR(n)                   VARCHAR(n) (n ≤ 16383), else LONGTEXT; STRING is LONGTEXT
//	BINARY(n)                    BINARY(n) (n ≤ 255), else BLOB
//	VARBINARY(n)                 VARBINARY(n) (n ≤ 65535), else LONGBLOB; BYTES is LONGBLOB
//	DATE                         DATE
//	TIME(p)                      TIME(6)
//	TIMESTAMP(p)                 DATETIME(min(p,6)) (nanoseconds beyond micros are truncated)
//	TIMESTAMP_LTZ(p)             DATETIME(min(p,6)), the instant in UTC
//	ARRAY/MAP/MULTISET/ROW       JSON
//	VARIANT, BLOB                LONGBLOB
func sqlType(t *schema.DataType) (sql.Type, error) {
	switch t.Root {
	case schema.TypeBoolean:
		return types.Boolean, nil
	case schema.TypeTinyInt:
		return types.Int8, nil
	case schema.TypeSmallInt:
		return types.Int16, nil
	case schema.TypeInt:
		return types.Int32, nil
	case schema.TypeBigInt:
		return types.Int64, nil
	case schema.TypeFloat:
		return types.Float32, nil
	case schema.TypeDouble:
		return types.Float64, nil
	case schema.TypeDecimal:
		return types.CreateColumnDecimalType(uint8(t.Precision), uint8(t.Scale))
	case schema.TypeChar:
		if t.Length <= 255 {
			return types.CreateString(sqltypes.Char, int64(t.Length), sql.Collation_Default)
		}
		return types.Text, nil
	case schema.TypeVarChar:
		if t.Length <= 16383 {
			return types.CreateString(sqltypes.VarChar, int64(t.Length), sql.Collation_Default)
		}
		return types.LongText, nil
	case schema.TypeBinary:
		if t.Length <= 255 {
			return types.CreateBinary(sqltypes.Binary, int64(t.Length))
		}
		return types.Blob, nil
	case schema.TypeVarBinary:
		if t.Length <= 65535 {
			return types.CreateBinary(sqltypes.VarBinary, int64(t.Length))
		}
		return types.LongBlob, nil
	case schema.TypeDate:
		return types.Date, nil
	case schema.TypeTime:
		return types.Time, nil
	case schema.TypeTimestamp:
		return types.CreateDatetimeType(sqltypes.Datetime, min(t.Precision, 6))
	case schema.TypeLocalZonedTimestamp:
		// MySQL's TIMESTAMP only spans 1970..2038; an instant is shown as a
		// UTC DATETIME instead.
		return types.CreateDatetimeType(sqltypes.Datetime, min(t.Precision, 6))
	case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
		return types.JSON, nil
	case schema.TypeVariant, schema.TypeBlob:
		return types.LongBlob, nil
	}
	return nil, fmt.Errorf("provider: unsupported Paimon type root %d", t.Root)
}

// toSQL converts a value of the schema value model to the value GMS expects for
// sqlType(t). It is called once per value on the read path.
func toSQL(t *schema.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Root {
	case schema.TypeBoolean:
		if b, ok := v.(bool); ok {
			if b {
				return int8(1), nil
			}
			return int8(0), nil
		}
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt,
		schema.TypeFloat, schema.TypeDouble, schema.TypeChar, schema.TypeVarChar:
		return v, nil
	case schema.TypeBinary, schema.TypeVarBinary, schema.TypeVariant, schema.TypeBlob:
		return v, nil
	case schema.TypeDecimal:
		if d, ok := v.(schema.Decimal); ok {
			return decimalToSQL(d), nil
		}
	case schema.TypeDate:
		if d, ok := v.(schema.Date); ok {
			return time.Unix(int64(d)*86400, 0).UTC(), nil
		}
	case schema.TypeTime:
		if tm, ok := v.(schema.Time); ok {
			return types.Time.MicrosecondsToTimespan(int64(tm) * 1000), nil
		}
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		if ts, ok := v.(schema.Timestamp); ok {
			return timestampToTime(ts), nil
		}
	case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
		j, err := toJSON(t, v)
		if err != nil {
			return nil, err
		}
		return types.JSONDocument{Val: j}, nil
	}
	return nil, fmt.Errorf("provider: value %T does not match Paimon type %d", v, t.Root)
}

func decimalToSQL(d schema.Decimal) decimal.Decimal {
	if d.Big != nil {
		return decimal.NewFromBigInt(d.Big, -d.Scale)
	}
	return decimal.New(d.Compact, -d.Scale)
}

func timestampToTime(ts schema.Timestamp) time.Time {
	return time.UnixMilli(ts.Millis).Add(time.Duration(ts.NanoOfMilli)).UTC()
}

// toJSON converts nested values to the plain Go values JSON documents hold:
// ARRAY and MULTISET keys as arrays, ROW as an object by field name, MAP as an
// object when its keys are strings, else as an array of [key, value] pairs.
func toJSON(t *schema.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Root {
	case schema.TypeArray:
		a, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("provider: ARRAY value is %T", v)
		}
		out := make([]any, len(a))
		for i, e := range a {
			j, err := toJSON(t.Elem, e)
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case schema.TypeRow:
		r, ok := v.([]any)
		if !ok || len(r) != len(t.Fields) {
			return nil, fmt.Errorf("provider: ROW value is %T", v)
		}
		out := make(map[string]any, len(r))
		for i := range t.Fields {
			j, err := toJSON(&t.Fields[i].Type, r[i])
			if err != nil {
				return nil, err
			}
			out[t.Fields[i].Name] = j
		}
		return out, nil
	case schema.TypeMap, schema.TypeMultiset:
		m, ok := v.(schema.Map)
		if !ok {
			return nil, fmt.Errorf("provider: MAP value is %T", v)
		}
		kt, vt := t.Key, t.Value
		if t.Root == schema.TypeMultiset {
			kt, vt = t.Elem, &schema.DataType{Root: schema.TypeInt}
		}
		if kt.Root == schema.TypeVarChar || kt.Root == schema.TypeChar {
			out := make(map[string]any, len(m.Keys))
			for i := range m.Keys {
				k, _ := m.Keys[i].(string)
				j, err := toJSON(vt, m.Values[i])
				if err != nil {
					return nil, err
				}
				out[k] = j
			}
			return out, nil
		}
		out := make([]any, len(m.Keys))
		for i := range m.Keys {
			k, err := toJSON(kt, m.Keys[i])
			if err != nil {
				return nil, err
			}
			val, err := toJSON(vt, m.Values[i])
			if err != nil {
				return nil, err
			}
			out[i] = []any{k, val}
		}
		return out, nil
	case schema.TypeDecimal:
		d, _ := v.(schema.Decimal)
		f, _ := decimalToSQL(d).Float64()
		return f, nil
	case schema.TypeDate, schema.TypeTime, schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		s, err := toSQL(t, v)
		if err != nil {
			return nil, err
		}
		return fmt.Sprint(s), nil
	case schema.TypeBinary, schema.TypeVarBinary, schema.TypeBlob, schema.TypeVariant:
		b, _ := v.([]byte)
		return "base64:" + base64.StdEncoding.EncodeToString(b), nil
	}
	return v, nil
}
