package provider

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/internal/schema"
)

// MySQLType is a MySQL column type as a statement names it: the type name
// (upper case, words separated by one space: "INT", "DOUBLE PRECISION"),
// its (n) or (p, s), and UNSIGNED. Both DDL paths describe their column
// types with it — GMS's parsed types (PaimonTypeOf) and the DDL front's
// type text — so MySQL types map to Paimon types in one place
// (PaimonTypeOfMySQL); the way back, Paimon → MySQL, is sqlType (types.go).
type MySQLType struct {
	Name     string
	N, S     int
	HasN     bool
	HasS     bool
	Unsigned bool
}

// PaimonTypeOfMySQL maps a MySQL column type to a nullable Paimon type:
//
//	BOOL, BOOLEAN, TINYINT(1)       BOOLEAN (TINYINT(1) stays TINYINT in Flink DDL)
//	TINYINT/SMALLINT/INT/BIGINT     TINYINT/SMALLINT/INT/BIGINT (MEDIUMINT, INTEGER → INT)
//	unsigned integers               the next wider signed type; BIGINT UNSIGNED → DECIMAL(20, 0)
//	                                (and a lakesql.unsigned.<column> option: unsigned.go)
//	FLOAT(p ≤ 24), FLOAT/DOUBLE     FLOAT/DOUBLE (FLOAT(p > 24), REAL, DOUBLE PRECISION → DOUBLE)
//	DECIMAL(p,s), NUMERIC, DEC, FIXED  DECIMAL(p,s) (p ≤ 38; DECIMAL alone is DECIMAL(10, 0))
//	CHAR(n)/VARCHAR(n)              CHAR(n)/VARCHAR(n) (n defaults to 1, as in Paimon)
//	BINARY(n)/VARBINARY(n)          BINARY(n)/VARBINARY(n)
//	TINYTEXT…LONGTEXT               STRING
//	TINYBLOB…LONGBLOB               BYTES
//	DATE                            DATE
//	TIME(p)                         TIME(p)
//	DATETIME(p)                     TIMESTAMP(p)
//	TIMESTAMP(p)                    TIMESTAMP_LTZ(p) (in Flink DDL: Paimon's TIMESTAMP(p), not
//	                                a MySQL type: ok is false)
//
// JSON, ENUM, SET, BIT, YEAR and spatial types have no Paimon type and are
// rejected with an error naming the type and the alternative. ok is false
// when the name is not a MySQL type (the caller reads it as a Paimon type:
// STRING, BYTES, ARRAY<…>, …).
func PaimonTypeOfMySQL(t MySQLType, flink bool) (dt schema.DataType, ok bool, err error) {
	atomic := func(r schema.TypeRoot) (schema.DataType, bool, error) { return schema.AtomicType(r), true, nil }
	n := func(def int) int {
		if t.HasN {
			return t.N
		}
		return def
	}
	switch t.Name {
	case "BOOL", "BOOLEAN":
		return atomic(schema.TypeBoolean)
	case "TINYINT":
		switch {
		case t.Unsigned:
			return atomic(schema.TypeSmallInt)
		case t.HasN && t.N == 1 && !flink:
			return atomic(schema.TypeBoolean)
		}
		return atomic(schema.TypeTinyInt)
	case "SMALLINT":
		if t.Unsigned {
			return atomic(schema.TypeInt)
		}
		return atomic(schema.TypeSmallInt)
	case "MEDIUMINT":
		return atomic(schema.TypeInt)
	case "INT", "INTEGER":
		if t.Unsigned {
			return atomic(schema.TypeBigInt)
		}
		return atomic(schema.TypeInt)
	case "BIGINT":
		if t.Unsigned {
			return schema.DecimalType(20, 0), true, nil
		}
		return atomic(schema.TypeBigInt)
	case "FLOAT":
		if t.HasN && t.N > 24 {
			return atomic(schema.TypeDouble)
		}
		return atomic(schema.TypeFloat)
	case "DOUBLE", "DOUBLE PRECISION", "REAL":
		return atomic(schema.TypeDouble)
	case "DECIMAL", "NUMERIC", "DEC", "FIXED":
		p, s := schema.DefaultDecimalPrecision, schema.DefaultDecimalScale
		if t.HasN {
			p, s = t.N, t.S
		}
		if p < 1 || p > schema.MaxDecimalPrecision || s > p || s < 0 {
			return schema.DataType{}, true, fmt.Errorf("%s: Paimon decimals have a precision of 1 to %d and a scale of at most the precision", t, schema.MaxDecimalPrecision)
		}
		return schema.DecimalType(p, s), true, nil
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		root := map[string]schema.TypeRoot{"CHAR": schema.TypeChar, "VARCHAR": schema.TypeVarChar, "BINARY": schema.TypeBinary, "VARBINARY": schema.TypeVarBinary}[t.Name]
		dt := schema.DataType{Root: root, Nullable: true, Length: n(schema.DefaultStringLength)}
		if err := dt.Validate(); err != nil {
			return schema.DataType{}, true, fmt.Errorf("%s: %v", t, err)
		}
		return dt, true, nil
	case "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT":
		return schema.StringType(), true, nil
	case "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
		return schema.BytesType(), true, nil
	case "DATE":
		return atomic(schema.TypeDate)
	case "TIME":
		p := n(0)
		if p < 0 || p > schema.MaxTimestampPrecision {
			return schema.DataType{}, true, fmt.Errorf("%s: time precision must be 0 to %d", t, schema.MaxTimestampPrecision)
		}
		return schema.DataType{Root: schema.TypeTime, Nullable: true, Precision: p}, true, nil
	case "DATETIME":
		return timestampOf(t, n(0), false)
	case "TIMESTAMP":
		if flink {
			return schema.DataType{}, false, nil // Paimon's TIMESTAMP(p)
		}
		return timestampOf(t, n(0), true)
	case "JSON":
		return schema.DataType{}, true, fmt.Errorf("JSON has no Paimon type; use STRING, or ARRAY<…>, MAP<…, …> or ROW<…> in Flink DDL")
	case "YEAR":
		return schema.DataType{}, true, fmt.Errorf("YEAR has no Paimon type; use SMALLINT or INT")
	case "BIT":
		return schema.DataType{}, true, fmt.Errorf("BIT has no Paimon type; use BOOLEAN, BIGINT or BINARY(n)")
	case "ENUM", "SET":
		return schema.DataType{}, true, fmt.Errorf("%s has no Paimon type; use VARCHAR(n) or STRING", t.Name)
	case "GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION":
		return schema.DataType{}, true, fmt.Errorf("spatial type %s has no Paimon type", t.Name)
	}
	if t.Unsigned {
		return schema.DataType{}, true, fmt.Errorf("%s: UNSIGNED applies to integer types only", t)
	}
	return schema.DataType{}, false, nil
}

func timestampOf(t MySQLType, p int, ltz bool) (schema.DataType, bool, error) {
	if p < 0 || p > schema.MaxTimestampPrecision {
		return schema.DataType{}, true, fmt.Errorf("%s: timestamp precision must be 0 to %d", t, schema.MaxTimestampPrecision)
	}
	if ltz {
		return schema.LocalZonedTimestampType(p), true, nil
	}
	return schema.TimestampType(p), true, nil
}

// String renders the type as MySQL writes it.
func (t MySQLType) String() string {
	var b strings.Builder
	b.WriteString(t.Name)
	if t.HasN {
		fmt.Fprintf(&b, "(%d", t.N)
		if t.HasS {
			fmt.Fprintf(&b, ",%d", t.S)
		}
		b.WriteByte(')')
	}
	if t.Unsigned {
		b.WriteString(" UNSIGNED")
	}
	return b.String()
}

// UnsignedOption is the value of the UnsignedOptionPrefix option of an
// UNSIGNED integer column ("int" for INT UNSIGNED); ok is false for other
// types.
func (t MySQLType) UnsignedOption() (string, bool) {
	if !t.Unsigned {
		return "", false
	}
	switch t.Name {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT":
		return strings.ToLower(t.Name), true
	case "INTEGER":
		return "int", true
	}
	return "", false
}

// mysqlTypeOf describes a GMS column type as a MySQLType.
func mysqlTypeOf(t sql.Type) MySQLType {
	switch t.Type() {
	case sqltypes.Int8:
		if nt, ok := t.(sql.NumberType); ok && nt.DisplayWidth() == 1 {
			return MySQLType{Name: "TINYINT", N: 1, HasN: true}
		}
		return MySQLType{Name: "TINYINT"}
	case sqltypes.Uint8:
		return MySQLType{Name: "TINYINT", Unsigned: true}
	case sqltypes.Int16, sqltypes.Uint16:
		return MySQLType{Name: "SMALLINT", Unsigned: t.Type() == sqltypes.Uint16}
	case sqltypes.Int24, sqltypes.Uint24:
		return MySQLType{Name: "MEDIUMINT", Unsigned: t.Type() == sqltypes.Uint24}
	case sqltypes.Int32, sqltypes.Uint32:
		return MySQLType{Name: "INT", Unsigned: t.Type() == sqltypes.Uint32}
	case sqltypes.Int64, sqltypes.Uint64:
		return MySQLType{Name: "BIGINT", Unsigned: t.Type() == sqltypes.Uint64}
	case sqltypes.Float32:
		return MySQLType{Name: "FLOAT"}
	case sqltypes.Float64:
		return MySQLType{Name: "DOUBLE"}
	case sqltypes.Decimal:
		if dt, ok := t.(sql.DecimalType); ok {
			return MySQLType{Name: "DECIMAL", N: int(dt.Precision()), S: int(dt.Scale()), HasN: true, HasS: true}
		}
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Binary, sqltypes.VarBinary:
		name := map[querypb.Type]string{sqltypes.Char: "CHAR", sqltypes.VarChar: "VARCHAR", sqltypes.Binary: "BINARY", sqltypes.VarBinary: "VARBINARY"}[t.Type()]
		if st, ok := t.(sql.StringType); ok {
			return MySQLType{Name: name, N: max(int(st.MaxCharacterLength()), 1), HasN: true}
		}
	case sqltypes.Text:
		return MySQLType{Name: "LONGTEXT"}
	case sqltypes.Blob:
		return MySQLType{Name: "LONGBLOB"}
	case sqltypes.Date:
		return MySQLType{Name: "DATE"}
	case sqltypes.Time:
		return MySQLType{Name: "TIME"} // GMS keeps no TIME precision
	case sqltypes.Datetime, sqltypes.Timestamp:
		name := "DATETIME"
		if t.Type() == sqltypes.Timestamp {
			name = "TIMESTAMP"
		}
		p := 0
		if dt, ok := t.(sql.DatetimeType); ok {
			p = dt.Precision()
		}
		return MySQLType{Name: name, N: p, HasN: true}
	case sqltypes.TypeJSON:
		return MySQLType{Name: "JSON"}
	case sqltypes.Year:
		return MySQLType{Name: "YEAR"}
	case sqltypes.Enum:
		return MySQLType{Name: "ENUM"}
	case sqltypes.Set:
		return MySQLType{Name: "SET"}
	case sqltypes.Bit:
		return MySQLType{Name: "BIT"}
	}
	return MySQLType{Name: strings.ToUpper(t.String())}
}

// PaimonTypeOf maps a MySQL column type as GMS parsed it to a nullable
// Paimon type (PaimonTypeOfMySQL); the caller sets nullability.
func PaimonTypeOf(t sql.Type) (schema.DataType, error) {
	dt, ok, err := PaimonTypeOfMySQL(mysqlTypeOf(t), false)
	if err == nil && !ok {
		err = fmt.Errorf("type %s has no Paimon type", t)
	}
	return dt, err
}

// UnsignedTypeName returns the UnsignedOptionPrefix option value of a GMS
// unsigned integer type.
func UnsignedTypeName(t sql.Type) (string, bool) { return mysqlTypeOf(t).UnsignedOption() }
