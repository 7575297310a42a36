package kv_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// parseType parses the SQL-ish type strings the tests use: INT, BIGINT NOT
// NULL, DECIMAL(10,2), VARCHAR(5), STRING, BYTES, ARRAY<INT>,
// MAP<STRING,INT>, ROW<a INT, b STRING>, TIMESTAMP(3)...
func parseType(s string) (schema.DataType, error) {
	p := &typeParser{s: strings.TrimSpace(s)}
	t, err := p.parse()
	if err != nil {
		return t, err
	}
	if p.pos != len(p.s) {
		return t, fmt.Errorf("trailing text in type %q", s)
	}
	return t, nil
}

type typeParser struct {
	s   string
	pos int
}

func (p *typeParser) space() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *typeParser) word() string {
	p.space()
	start := p.pos
	for p.pos < len(p.s) && (p.s[p.pos] == '_' || p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z' ||
		p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z' || p.s[p.pos] >= '0' && p.s[p.pos] <= '9') {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *typeParser) eat(c byte) bool {
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *typeParser) params() ([]int, error) {
	var out []int
	if !p.eat('(') {
		return nil, nil
	}
	for {
		n, err := strconv.Atoi(p.word())
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.eat(')') {
			return out, nil
		}
		if !p.eat(',') {
			return nil, fmt.Errorf("bad type parameters in %q", p.s)
		}
	}
}

func (p *typeParser) parse() (schema.DataType, error) {
	t := schema.DataType{Nullable: true}
	name := strings.ToUpper(p.word())
	ps, err := p.params()
	if err != nil {
		return t, err
	}
	param := func(i, def int) int {
		if i < len(ps) {
			return ps[i]
		}
		return def
	}
	switch name {
	case "BOOLEAN":
		t.Root = schema.TypeBoolean
	case "TINYINT":
		t.Root = schema.TypeTinyInt
	case "SMALLINT":
		t.Root = schema.TypeSmallInt
	case "INT", "INTEGER":
		t.Root = schema.TypeInt
	case "BIGINT":
		t.Root = schema.TypeBigInt
	case "FLOAT":
		t.Root = schema.TypeFloat
	case "DOUBLE":
		t.Root = schema.TypeDouble
	case "DECIMAL":
		t.Root, t.Precision, t.Scale = schema.TypeDecimal, param(0, 10), param(1, 0)
	case "CHAR":
		t.Root, t.Length = schema.TypeChar, param(0, 1)
	case "VARCHAR":
		t.Root, t.Length = schema.TypeVarChar, param(0, 1)
	case "STRING":
		t.Root, t.Length = schema.TypeVarChar, schema.MaxLength
	case "BINARY":
		t.Root, t.Length = schema.TypeBinary, param(0, 1)
	case "BYTES":
		t.Root, t.Length = schema.TypeVarBinary, schema.MaxLength
	case "DATE":
		t.Root = schema.TypeDate
	case "TIME":
		t.Root, t.Precision = schema.TypeTime, param(0, 0)
	case "TIMESTAMP":
		t.Root, t.Precision = schema.TypeTimestamp, param(0, 6)
	case "ARRAY", "MULTISET":
		t.Root = schema.TypeArray
		if name == "MULTISET" {
			t.Root = schema.TypeMultiset
		}
		if !p.eat('<') {
			return t, fmt.Errorf("%s needs <T>", name)
		}
		e, err := p.parse()
		if err != nil {
			return t, err
		}
		t.Elem = &e
		if !p.eat('>') {
			return t, fmt.Errorf("missing > in %q", p.s)
		}
	case "MAP":
		t.Root = schema.TypeMap
		if !p.eat('<') {
			return t, fmt.Errorf("MAP needs <K,V>")
		}
		k, err := p.parse()
		if err != nil {
			return t, err
		}
		if !p.eat(',') {
			return t, fmt.Errorf("missing , in %q", p.s)
		}
		v, err := p.parse()
		if err != nil {
			return t, err
		}
		t.Key, t.Value = &k, &v
		if !p.eat('>') {
			return t, fmt.Errorf("missing > in %q", p.s)
		}
	case "ROW":
		t.Root = schema.TypeRow
		if !p.eat('<') {
			return t, fmt.Errorf("ROW needs <...>")
		}
		for i := 0; ; i++ {
			fname := p.word()
			ft, err := p.parse()
			if err != nil {
				return t, err
			}
			t.Fields = append(t.Fields, schema.DataField{ID: i, Name: fname, Type: ft})
			if p.eat('>') {
				break
			}
			if !p.eat(',') {
				return t, fmt.Errorf("missing , in %q", p.s)
			}
		}
	default:
		return t, fmt.Errorf("unknown type %q", name)
	}
	p.space()
	if strings.HasPrefix(strings.ToUpper(p.s[p.pos:]), "NOT NULL") {
		p.pos += len("NOT NULL")
		t.Nullable = false
	}
	return t, nil
}
