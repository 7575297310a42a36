package provider

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/lakesql/lakesql/internal/schema"
)

// PaimonTypeOf maps a MySQL column type (as GMS parsed it) back to a Paimon
// type, the inverse of sqlType where one exists:
//
//	BOOLEAN / TINYINT(1)            BOOLEAN
//	TINYINT/SMALLINT/INT/BIGINT     TINYINT/SMALLINT/INT/BIGINT (MEDIUMINT → INT)
//	unsigned integers               the next wider signed type; BIGINT UNSIGNED → DECIMAL(20, 0)
//	                                (and a lakesql.unsigned.<column> option: unsigned.go)
//	FLOAT/DOUBLE                    FLOAT/DOUBLE
//	DECIMAL(p,s)                    DECIMAL(p,s) (p ≤ 38)
//	CHAR(n)/VARCHAR(n)              CHAR(n)/VARCHAR(n)
//	TINYTEXT…LONGTEXT               STRING
//	BINARY(n)/VARBINARY(n)          BINARY(n)/VARBINARY(n)
//	TINYBLOB…LONGBLOB               BYTES
//	DATE                            DATE
//	TIME                            TIME(0) (GMS keeps no TIME precision)
//	DATETIME(p)                     TIMESTAMP(p)
//	TIMESTAMP(p)                    TIMESTAMP_LTZ(p)
//
// JSON, ENUM, SET, BIT, YEAR and spatial types have no Paimon type and are
// rejected with an error naming the type and the alternative. The result is
// nullable; the caller sets nullability.
func PaimonTypeOf(t sql.Type) (schema.DataType, error) {
	switch t.Type() {
	case sqltypes.Int8:
		if nt, ok := t.(sql.NumberType); ok && nt.DisplayWidth() == 1 {
			return schema.AtomicType(schema.TypeBoolean), nil
		}
		return schema.AtomicType(schema.TypeTinyInt), nil
	case sqltypes.Int16, sqltypes.Uint8:
		return schema.AtomicType(schema.TypeSmallInt), nil
	case sqltypes.Int24, sqltypes.Int32, sqltypes.Uint16, sqltypes.Uint24:
		return schema.AtomicType(schema.TypeInt), nil
	case sqltypes.Int64, sqltypes.Uint32:
		return schema.AtomicType(schema.TypeBigInt), nil
	case sqltypes.Uint64:
		return schema.DecimalType(20, 0), nil
	case sqltypes.Float32:
		return schema.AtomicType(schema.TypeFloat), nil
	case sqltypes.Float64:
		return schema.AtomicType(schema.TypeDouble), nil
	case sqltypes.Decimal:
		dt, ok := t.(sql.DecimalType)
		if !ok {
			return schema.DataType{}, fmt.Errorf("unexpected decimal type %s", t)
		}
		if dt.Precision() > schema.MaxDecimalPrecision {
			return schema.DataType{}, fmt.Errorf("%s: Paimon decimals have at most %d digits", t, schema.MaxDecimalPrecision)
		}
		return schema.DecimalType(int(dt.Precision()), int(dt.Scale())), nil
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Binary, sqltypes.VarBinary:
		st, ok := t.(sql.StringType)
		if !ok {
			return schema.DataType{}, fmt.Errorf("unexpected string type %s", t)
		}
		n := int(st.MaxCharacterLength())
		if n < 1 {
			n = 1
		}
		root := schema.TypeChar
		switch t.Type() {
		case sqltypes.VarChar:
			root = schema.TypeVarChar
		case sqltypes.Binary:
			root = schema.TypeBinary
		case sqltypes.VarBinary:
			root = schema.TypeVarBinary
		}
		return schema.DataType{Root: root, Nullable: true, Length: n}, nil
	case sqltypes.Text:
		return schema.StringType(), nil
	case sqltypes.Blob:
		return schema.BytesType(), nil
	case sqltypes.Date:
		return schema.AtomicType(schema.TypeDate), nil
	case sqltypes.Time:
		return schema.DataType{Root: schema.TypeTime, Nullable: true, Precision: 0}, nil
	case sqltypes.Datetime:
		return schema.TimestampType(datetimePrecision(t)), nil
	case sqltypes.Timestamp:
		return schema.LocalZonedTimestampType(datetimePrecision(t)), nil
	case sqltypes.TypeJSON:
		return schema.DataType{}, fmt.Errorf("JSON has no Paimon type; use STRING, or ARRAY<…>, MAP<…, …> or ROW<…> in Flink DDL")
	case sqltypes.Year:
		return schema.DataType{}, fmt.Errorf("YEAR has no Paimon type; use SMALLINT or INT")
	case sqltypes.Enum, sqltypes.Set:
		return schema.DataType{}, fmt.Errorf("%s has no Paimon type; use VARCHAR(n) or STRING", t)
	case sqltypes.Bit:
		return schema.DataType{}, fmt.Errorf("BIT has no Paimon type; use BOOLEAN, BIGINT or BINARY(n)")
	}
	return schema.DataType{}, fmt.Errorf("type %s has no Paimon type", t)
}

func datetimePrecision(t sql.Type) int {
	if dt, ok := t.(sql.DatetimeType); ok {
		return dt.Precision()
	}
	return 0
}
