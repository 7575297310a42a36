package sqlengine

import (
	"errors"
	"fmt"
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
// from type text, on the lexer's tokens: name [PRECISION] [(n[, s])]
// [UNSIGNED] [ZEROFILL], the name of letters and '_'; ok is false when the
// text is not of that shape.
func mysqlType(text string) (provider.MySQLType, bool) {
	toks, err := lexLimit(text, mysqlDialect, 11) // DOUBLE PRECISION ( 10 , 2 ) UNSIGNED ZEROFILL EOF
	if err != nil || toks[len(toks)-1].Kind != lexEOF || !isTypeName(toks[0]) {
		return provider.MySQLType{}, false
	}
	t := provider.MySQLType{Name: strings.ToUpper(toks[0].Text())}
	i := 1
	if toks[i].IsWord("PRECISION") {
		t.Name += " PRECISION"
		i++
	}
	digits := func(tok Token) (int, bool) {
		if tok.Kind != lexNumber || strings.Trim(tok.Text(), "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.Atoi(tok.Text())
		return n, err == nil
	}
	if toks[i].IsSymbol("(") {
		var ok bool
		if t.N, ok = digits(toks[i+1]); !ok {
			return provider.MySQLType{}, false
		}
		t.HasN, i = true, i+2
		if toks[i].IsSymbol(",") {
			if t.S, ok = digits(toks[i+1]); !ok {
				return provider.MySQLType{}, false
			}
			t.HasS, i = true, i+2
		}
		if !toks[i].IsSymbol(")") {
			return provider.MySQLType{}, false
		}
		i++
	}
	if toks[i].IsWord("UNSIGNED") {
		t.Unsigned = true
		i++
	}
	if toks[i].IsWord("ZEROFILL") {
		i++
	}
	if toks[i].Kind != lexEOF {
		return provider.MySQLType{}, false
	}
	return t, true
}

// isTypeName reports whether t is a word of letters and '_' only.
func isTypeName(t Token) bool {
	if t.Kind != lexWord {
		return false
	}
	for _, c := range []byte(t.Text()) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
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
