package sqlengine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/provider"
)

// Column types of the DDL front. MySQL names map as provider.PaimonTypeOf
// maps GMS types (TEXT → STRING, BLOB → BYTES, DATETIME(p) → TIMESTAMP(p),
// unsigned integers widen); everything else is Paimon/Flink type text for
// schema.ParseDataType (STRING, BYTES, TIMESTAMP_LTZ(3), ARRAY<…>, MAP<…>,
// ROW<…>, "TIMESTAMP(3) WITH LOCAL TIME ZONE", …).
//
// The one name whose meaning differs is TIMESTAMP: in a Flink-dialect
// statement (one with PRIMARY KEY … NOT ENFORCED, PARTITIONED BY, WITH,
// PROPERTIES, SET/RESET or a Flink-only type) TIMESTAMP(p) is Paimon's
// TIMESTAMP(p) without time zone, as in Flink; in a MySQL statement it is
// MySQL's TIMESTAMP, an instant: TIMESTAMP_LTZ(p).

var mysqlTypeRE = regexp.MustCompile(`(?is)^([a-z_]+(?:\s+precision)?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*(unsigned)?\s*(zerofill)?$`)

// flinkOnlyTypes are the type names MySQL lacks.
var flinkOnlyTypes = map[string]bool{"STRING": true, "BYTES": true, "TIMESTAMP_LTZ": true, "ARRAY": true,
	"MAP": true, "MULTISET": true, "ROW": true, "VARIANT": true}

// isFlinkType reports whether a column's type text is a Flink/Paimon-only
// spelling.
func isFlinkType(text string) bool {
	u := strings.ToUpper(text)
	if strings.Contains(u, "TIME ZONE") || strings.ContainsAny(u, "<") {
		return true
	}
	word := u
	if i := strings.IndexAny(u, " (\t\n"); i >= 0 {
		word = u[:i]
	}
	return flinkOnlyTypes[word]
}

// columnType maps the type text of a column to a nullable Paimon type.
func columnType(text string, flink bool) (schema.DataType, error) {
	m := mysqlTypeRE.FindStringSubmatch(strings.TrimSpace(text))
	if m != nil {
		name := strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
		hasN := m[2] != ""
		n, _ := strconv.Atoi(m[2])
		s, _ := strconv.Atoi(m[3])
		unsigned := m[4] != ""
		atomic := func(r schema.TypeRoot) (schema.DataType, error) { return schema.AtomicType(r), nil }
		switch name {
		case "BOOL", "BOOLEAN":
			return atomic(schema.TypeBoolean)
		case "TINYINT":
			switch {
			case unsigned:
				return atomic(schema.TypeSmallInt)
			case hasN && n == 1 && !flink:
				return atomic(schema.TypeBoolean)
			}
			return atomic(schema.TypeTinyInt)
		case "SMALLINT":
			if unsigned {
				return atomic(schema.TypeInt)
			}
			return atomic(schema.TypeSmallInt)
		case "MEDIUMINT":
			return atomic(schema.TypeInt)
		case "INT", "INTEGER":
			if unsigned {
				return atomic(schema.TypeBigInt)
			}
			return atomic(schema.TypeInt)
		case "BIGINT":
			if unsigned {
				return schema.DecimalType(20, 0), nil
			}
			return atomic(schema.TypeBigInt)
		case "FLOAT":
			if hasN && n > 24 {
				return atomic(schema.TypeDouble)
			}
			return atomic(schema.TypeFloat)
		case "DOUBLE", "DOUBLE PRECISION", "REAL":
			return atomic(schema.TypeDouble)
		case "DECIMAL", "NUMERIC", "DEC", "FIXED":
			p, sc := schema.DefaultDecimalPrecision, schema.DefaultDecimalScale
			if hasN {
				p, sc = n, s
			}
			if p < 1 || p > schema.MaxDecimalPrecision || sc > p {
				return schema.DataType{}, fmt.Errorf("%s: Paimon decimals have a precision of 1 to %d and a scale of at most the precision", text, schema.MaxDecimalPrecision)
			}
			return schema.DecimalType(p, sc), nil
		case "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT":
			return schema.StringType(), nil
		case "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
			return schema.BytesType(), nil
		case "DATETIME":
			p := 0
			if hasN {
				p = n
			}
			return timestampOf(text, p, false)
		case "TIMESTAMP":
			if !flink {
				p := 0
				if hasN {
					p = n
				}
				return timestampOf(text, p, true)
			}
		case "JSON":
			return schema.DataType{}, fmt.Errorf("JSON has no Paimon type; use STRING, or ARRAY<…>, MAP<…, …> or ROW<…>")
		case "YEAR":
			return schema.DataType{}, fmt.Errorf("YEAR has no Paimon type; use SMALLINT or INT")
		case "BIT":
			return schema.DataType{}, fmt.Errorf("BIT has no Paimon type; use BOOLEAN, BIGINT or BINARY(n)")
		case "GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION":
			return schema.DataType{}, fmt.Errorf("spatial type %s has no Paimon type", name)
		}
		if unsigned {
			return schema.DataType{}, fmt.Errorf("%s: UNSIGNED applies to integer types only", text)
		}
	}
	u := strings.ToUpper(strings.TrimSpace(text))
	if strings.HasPrefix(u, "ENUM") || strings.HasPrefix(u, "SET") {
		return schema.DataType{}, fmt.Errorf("%s has no Paimon type; use VARCHAR(n) or STRING", text)
	}
	t, err := schema.ParseDataType(text)
	if err != nil {
		return schema.DataType{}, fmt.Errorf("unknown column type %s", text)
	}
	if err := t.Validate(); err != nil {
		return schema.DataType{}, fmt.Errorf("column type %s: %v", text, err)
	}
	return t.WithNullable(true), nil
}

func timestampOf(text string, p int, ltz bool) (schema.DataType, error) {
	if p < 0 || p > schema.MaxTimestampPrecision {
		return schema.DataType{}, fmt.Errorf("%s: timestamp precision must be 0 to %d", text, schema.MaxTimestampPrecision)
	}
	if ltz {
		return schema.LocalZonedTimestampType(p), nil
	}
	return schema.TimestampType(p), nil
}

// unsignedType returns the MySQL integer type name of an UNSIGNED column's
// type text ("int" for "INT(10) UNSIGNED"), recorded in the
// provider.UnsignedOptionPrefix option so writes check the range.
func unsignedType(text string) (string, bool) {
	m := mysqlTypeRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil || m[4] == "" {
		return "", false
	}
	switch name := strings.ToLower(m[1]); name {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		return name, true
	case "integer":
		return "int", true
	}
	return "", false
}

// unsignedChange sets or removes a column's UNSIGNED option for ADD,
// MODIFY and CHANGE COLUMN.
func unsignedChange(c colDef) provider.SchemaChange {
	if u, ok := unsignedType(c.typeText); ok {
		return provider.SchemaChange{Kind: provider.SetOption, Key: provider.UnsignedOptionPrefix + c.name, Value: u}
	}
	return provider.SchemaChange{Kind: provider.RemoveOption, Key: provider.UnsignedOptionPrefix + c.name}
}
