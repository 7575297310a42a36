package sqlengine

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/provider"
)

// Column types of the DDL front. MySQL type names map through
// provider.PaimonTypeOfMySQL, as GMS's parsed types do (TEXT → STRING, BLOB →
// BYTES, DATETIME(p) → TIMESTAMP(p), unsigned integers widen); everything else is Paimon/Flink type text for
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

// mysqlType reads a MySQL type name with its (n), (p, s) and UNSIGNED
// from type text; ok is false when the text is not of that shape.
func mysqlType(text string) (provider.MySQLType, bool) {
	m := mysqlTypeRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return provider.MySQLType{}, false
	}
	t := provider.MySQLType{Name: strings.ToUpper(strings.Join(strings.Fields(m[1]), " ")), HasN: m[2] != "", HasS: m[3] != "", Unsigned: m[4] != ""}
	t.N, _ = strconv.Atoi(m[2])
	t.S, _ = strconv.Atoi(m[3])
	return t, true
}

// columnType maps the type text of a column to a nullable Paimon type: a
// MySQL type through provider.PaimonTypeOfMySQL (the one MySQL → Paimon
// mapping), anything else as Paimon type text.
func columnType(text string, flink bool) (schema.DataType, error) {
	mt, ok := mysqlType(text)
	if !ok {
		// ENUM('a', …) and SET(…) carry lists the type pattern does not take.
		u := strings.ToUpper(strings.TrimSpace(text))
		for _, name := range []string{"ENUM", "SET"} {
			if strings.HasPrefix(u, name) {
				mt, ok = provider.MySQLType{Name: name}, true
			}
		}
	}
	if ok {
		t, isMySQL, err := provider.PaimonTypeOfMySQL(mt, flink)
		if err != nil {
			return schema.DataType{}, err
		}
		if isMySQL {
			return t, nil
		}
	}
	t, err := schema.ParseDataType(text)
	if err != nil {
		return schema.DataType{}, fmt.Errorf("%w %s", errUnknownColumnType, text)
	}
	if err := t.Validate(); err != nil {
		return schema.DataType{}, fmt.Errorf("column type %s: %v", text, err)
	}
	return t.WithNullable(true), nil
}

// unsignedType returns the MySQL integer type name of an UNSIGNED column's
// type text ("int" for "INT(10) UNSIGNED"), recorded in the
// provider.UnsignedOptionPrefix option so writes check the range.
func unsignedType(text string) (string, bool) {
	mt, ok := mysqlType(text)
	if !ok {
		return "", false
	}
	return mt.UnsignedOption()
}

// unsignedChange sets or removes a column's UNSIGNED option for ADD,
// MODIFY and CHANGE COLUMN.
func unsignedChange(c colDef) provider.SchemaChange {
	if u, ok := unsignedType(c.typeText); ok {
		return provider.SchemaChange{Kind: provider.SetOption, Key: provider.UnsignedOptionPrefix + c.name, Value: u}
	}
	return provider.SchemaChange{Kind: provider.RemoveOption, Key: provider.UnsignedOptionPrefix + c.name}
}

// errUnknownColumnType: a column type neither MySQL's nor Paimon's (an
// invalid statement, 1105, not a missing feature).
var errUnknownColumnType = errors.New("unknown column type")
