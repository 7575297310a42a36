package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Type parameter limits and defaults, as Paimon's type classes define them
// (org.apache.paimon.types.*Type: MIN_/MAX_/DEFAULT_ constants).
const (
	MaxDecimalPrecision       = 38
	DefaultDecimalPrecision   = 10
	DefaultDecimalScale       = 0
	MaxTimestampPrecision     = 9
	DefaultTimestampPrecision = 6
	DefaultTimePrecision      = 0
	DefaultStringLength       = 1 // CHAR, VARCHAR, BINARY, VARBINARY without a length
)

// String returns the type's canonical SQL spelling, exactly as Java's
// DataType.asSQLString writes it ("INT NOT NULL", "DECIMAL(10, 2)", "STRING",
// "TIMESTAMP(6) WITH LOCAL TIME ZONE", "ARRAY<INT>", "MAP<INT, STRING>",
// "ROW<`a` INT, `b` STRING>").
func (t DataType) String() string {
	return string(t.appendSQL(nil))
}

func (t DataType) appendSQL(b []byte) []byte {
	switch t.Root {
	case TypeBoolean:
		b = append(b, "BOOLEAN"...)
	case TypeTinyInt:
		b = append(b, "TINYINT"...)
	case TypeSmallInt:
		b = append(b, "SMALLINT"...)
	case TypeInt:
		b = append(b, "INT"...)
	case TypeBigInt:
		b = append(b, "BIGINT"...)
	case TypeFloat:
		b = append(b, "FLOAT"...)
	case TypeDouble:
		b = append(b, "DOUBLE"...)
	case TypeDecimal:
		b = fmt.Appendf(b, "DECIMAL(%d, %d)", t.Precision, t.Scale)
	case TypeChar:
		b = fmt.Appendf(b, "CHAR(%d)", t.Length)
	case TypeVarChar:
		if t.Length == MaxLength {
			b = append(b, "STRING"...)
		} else {
			b = fmt.Appendf(b, "VARCHAR(%d)", t.Length)
		}
	case TypeBinary:
		b = fmt.Appendf(b, "BINARY(%d)", t.Length)
	case TypeVarBinary:
		if t.Length == MaxLength {
			b = append(b, "BYTES"...)
		} else {
			b = fmt.Appendf(b, "VARBINARY(%d)", t.Length)
		}
	case TypeDate:
		b = append(b, "DATE"...)
	case TypeTime:
		b = fmt.Appendf(b, "TIME(%d)", t.Precision)
	case TypeTimestamp:
		b = fmt.Appendf(b, "TIMESTAMP(%d)", t.Precision)
	case TypeLocalZonedTimestamp:
		b = fmt.Appendf(b, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case TypeVariant:
		b = append(b, "VARIANT"...)
	case TypeBlob:
		b = append(b, "BLOB"...)
	case TypeArray, TypeMultiset:
		b = append(b, t.Root.nestedName()...)
		b = append(b, '<')
		if t.Elem != nil {
			b = t.Elem.appendSQL(b)
		}
		b = append(b, '>')
	case TypeMap:
		b = append(b, "MAP<"...)
		if t.Key != nil {
			b = t.Key.appendSQL(b)
		}
		b = append(b, ", "...)
		if t.Value != nil {
			b = t.Value.appendSQL(b)
		}
		b = append(b, '>')
	case TypeRow:
		b = append(b, "ROW<"...)
		for i, f := range t.Fields {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = f.appendSQL(b)
		}
		b = append(b, '>')
	default:
		b = fmt.Appendf(b, "INVALID(%d)", t.Root)
	}
	if !t.Nullable {
		b = append(b, " NOT NULL"...)
	}
	return b
}

// String returns the field as Java's DataField.asSQLString writes it:
// "`name` TYPE", then " COMMENT '...'" when it has a description and
// " DEFAULT ..." when it has a default value.
func (f DataField) String() string { return string(f.appendSQL(nil)) }

func (f DataField) appendSQL(b []byte) []byte {
	b = append(b, '`')
	b = append(b, strings.ReplaceAll(f.Name, "`", "``")...)
	b = append(b, "` "...)
	b = f.Type.appendSQL(b)
	if f.Description != nil && *f.Description != "" {
		b = append(b, " COMMENT '"...)
		b = append(b, strings.ReplaceAll(*f.Description, "'", "''")...)
		b = append(b, '\'')
	}
	if f.DefaultValue != nil {
		b = append(b, " DEFAULT "...)
		b = append(b, *f.DefaultValue...)
	}
	return b
}

// String returns the name Java uses for the type root in nested JSON and
// SQL (ARRAY, MAP, ...), or the atomic family name.
func (r TypeRoot) String() string {
	switch r {
	case TypeBoolean:
		return "BOOLEAN"
	case TypeTinyInt:
		return "TINYINT"
	case TypeSmallInt:
		return "SMALLINT"
	case TypeInt:
		return "INT"
	case TypeBigInt:
		return "BIGINT"
	case TypeFloat:
		return "FLOAT"
	case TypeDouble:
		return "DOUBLE"
	case TypeDecimal:
		return "DECIMAL"
	case TypeChar:
		return "CHAR"
	case TypeVarChar:
		return "VARCHAR"
	case TypeBinary:
		return "BINARY"
	case TypeVarBinary:
		return "VARBINARY"
	case TypeDate:
		return "DATE"
	case TypeTime:
		return "TIME"
	case TypeTimestamp:
		return "TIMESTAMP"
	case TypeLocalZonedTimestamp:
		return "TIMESTAMP_LTZ"
	case TypeArray:
		return "ARRAY"
	case TypeMap:
		return "MAP"
	case TypeMultiset:
		return "MULTISET"
	case TypeRow:
		return "ROW"
	case TypeVariant:
		return "VARIANT"
	case TypeBlob:
		return "BLOB"
	}
	return "TypeRoot(" + strconv.Itoa(int(r)) + ")"
}

func (r TypeRoot) nestedName() string { return r.String() }

// ParseDataType parses a type in SQL spelling the way Java's
// DataTypeJsonParser.parseAtomicTypeSQLString does, generously: keywords are
// case-insensitive; INTEGER, NUMERIC, DEC, TIMESTAMP_LTZ, DOUBLE PRECISION,
// "TIMESTAMP(p) WITHOUT TIME ZONE" and "TIME(p) WITHOUT TIME ZONE" are
// accepted; omitted parameters take Java's defaults (CHAR/VARCHAR/BINARY/
// VARBINARY length 1, DECIMAL(10, 0), TIME(0), TIMESTAMP(6),
// TIMESTAMP_LTZ(6)); "NOT NULL" and an explicit "NULL" suffix set
// nullability; the suffix forms "INT ARRAY" and "INT MULTISET" work. Beyond
// Java's atomic parser it also reads the nested spellings String produces
// (ARRAY<T>, MULTISET<T>, MAP<K, V>, ROW<`name` T 'comment', ...>), numbering
// ROW field ids from 0 depth-first. Errors wrap ErrCorrupt.
func ParseDataType(s string) (DataType, error) {
	toks, err := tokenizeType(s)
	if err != nil {
		return DataType{}, fmt.Errorf("%w: data type %q: %v", ErrCorrupt, s, err)
	}
	p := &typeParser{input: s, toks: toks, cur: -1, nextID: -1}
	t, err := p.parseWithNullability(0)
	if err == nil && p.cur+1 < len(p.toks) {
		err = fmt.Errorf("unexpected token %q", p.toks[p.cur+1].val)
	}
	if errors.Is(err, errUnknownTypeName) {
		return DataType{}, fmt.Errorf("%w %s (lakesql does not know this Paimon type)", ErrUnsupportedType, s)
	}
	if err != nil {
		return DataType{}, fmt.Errorf("%w: data type %q: %v", ErrCorrupt, s, err)
	}
	return t, nil
}

// MustParseDataType is ParseDataType for constant type strings in code and
// tests; it panics on an invalid string, like regexp.MustCompile.
func MustParseDataType(s string) DataType {
	t, err := ParseDataType(s)
	if err != nil {
		panic(err)
	}
	return t
}

type typeTokKind uint8

const (
	tokBeginSub   typeTokKind = iota // <
	tokEndSub                        // >
	tokBeginParam                    // (
	tokEndParam                      // )
	tokSep                           // ,
	tokDot                           // .
	tokString                        // 'literal'
	tokInt                           // 123
	tokKeyword                       // upper-cased keyword
	tokIdent                         // identifier or `quoted`
)

type typeTok struct {
	kind typeTokKind
	val  string
}

// typeKeywords mirrors DataTypeJsonParser.Keyword.
var typeKeywords = map[string]bool{
	"CHAR": true, "VARCHAR": true, "STRING": true, "BOOLEAN": true, "BINARY": true,
	"VARBINARY": true, "BYTES": true, "DECIMAL": true, "NUMERIC": true, "DEC": true,
	"TINYINT": true, "SMALLINT": true, "INT": true, "INTEGER": true, "BIGINT": true,
	"FLOAT": true, "DOUBLE": true, "PRECISION": true, "DATE": true, "TIME": true,
	"WITH": true, "WITHOUT": true, "LOCAL": true, "ZONE": true, "TIMESTAMP": true,
	"TIMESTAMP_LTZ": true, "INTERVAL": true, "YEAR": true, "MONTH": true, "DAY": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "TO": true, "ARRAY": true,
	"VECTOR": true, "MULTISET": true, "MAP": true, "ROW": true, "NULL": true,
	"RAW": true, "LEGACY": true, "VARIANT": true, "BLOB": true, "GEOMETRY": true,
	"GEOGRAPHY": true, "NOT": true,
}

func isTypeDelimiter(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("<>(),.", r)
}

func tokenizeType(s string) ([]typeTok, error) {
	var toks []typeTok
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '<':
			toks = append(toks, typeTok{tokBeginSub, "<"})
		case '>':
			toks = append(toks, typeTok{tokEndSub, ">"})
		case '(':
			toks = append(toks, typeTok{tokBeginParam, "("})
		case ')':
			toks = append(toks, typeTok{tokEndParam, ")"})
		case ',':
			toks = append(toks, typeTok{tokSep, ","})
		case '.':
			toks = append(toks, typeTok{tokDot, "."})
		case '\'', '`':
			var sb strings.Builder
			i++
			closed := false
			for ; i < len(rs); i++ {
				if rs[i] == c {
					if i+1 < len(rs) && rs[i+1] == c {
						sb.WriteRune(c)
						i++
						continue
					}
					closed = true
					break
				}
				sb.WriteRune(rs[i])
			}
			if !closed {
				return nil, fmt.Errorf("unterminated %c", c)
			}
			kind := tokString
			if c == '`' {
				kind = tokIdent
			}
			toks = append(toks, typeTok{kind, sb.String()})
		default:
			if unicode.IsSpace(c) {
				continue
			}
			start := i
			if c >= '0' && c <= '9' {
				for i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
					i++
				}
				toks = append(toks, typeTok{tokInt, string(rs[start : i+1])})
				continue
			}
			for i+1 < len(rs) && !isTypeDelimiter(rs[i+1]) {
				i++
			}
			word := string(rs[start : i+1])
			if up := strings.ToUpper(word); typeKeywords[up] {
				toks = append(toks, typeTok{tokKeyword, up})
			} else {
				toks = append(toks, typeTok{tokIdent, word})
			}
		}
	}
	return toks, nil
}

const maxTypeDepth = 64

type typeParser struct {
	input  string
	toks   []typeTok
	cur    int
	nextID int
}

func (p *typeParser) peek(k typeTokKind) bool {
	return p.cur+1 < len(p.toks) && p.toks[p.cur+1].kind == k
}

func (p *typeParser) peekKeyword(words ...string) bool {
	if p.cur+len(words) >= len(p.toks) {
		return false
	}
	for i, w := range words {
		t := p.toks[p.cur+1+i]
		if t.kind != tokKeyword || t.val != w {
			return false
		}
	}
	return true
}

func (p *typeParser) next(k typeTokKind) (typeTok, error) {
	p.cur++
	if p.cur >= len(p.toks) {
		return typeTok{}, fmt.Errorf("unexpected end")
	}
	t := p.toks[p.cur]
	if t.kind != k {
		return t, fmt.Errorf("unexpected token %q", t.val)
	}
	return t, nil
}

func (p *typeParser) nextKeyword(w string) error {
	t, err := p.next(tokKeyword)
	if err != nil {
		return fmt.Errorf("%s expected: %v", w, err)
	}
	if t.val != w {
		return fmt.Errorf("keyword %s expected but was %s", w, t.val)
	}
	return nil
}

func (p *typeParser) nextInt() (int, error) {
	t, err := p.next(tokInt)
	if err != nil {
		return 0, fmt.Errorf("integer expected: %v", err)
	}
	v, err := strconv.ParseInt(t.val, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid integer value %q", t.val)
	}
	return int(v), nil
}

func (p *typeParser) parseNullability() bool {
	if p.peekKeyword("NOT", "NULL") {
		p.cur += 2
		return false
	}
	if p.peekKeyword("NULL") {
		p.cur++
	}
	return true
}

func (p *typeParser) parseWithNullability(depth int) (DataType, error) {
	if depth > maxTypeDepth {
		return DataType{}, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
	}
	t, err := p.parseByKeyword(depth)
	if err != nil {
		return DataType{}, err
	}
	t.Nullable = p.parseNullability()
	// Suffix notation "INT ARRAY", "INT MULTISET" (possibly repeated).
	for p.peekKeyword("ARRAY") || p.peekKeyword("MULTISET") {
		p.cur++
		root := TypeArray
		if p.toks[p.cur].val == "MULTISET" {
			root = TypeMultiset
		}
		elem := t
		t = DataType{Root: root, Elem: &elem}
		t.Nullable = p.parseNullability()
		if depth++; depth > maxTypeDepth {
			return DataType{}, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
		}
	}
	return t, nil
}

// optParam reads an optional "(n)".
func (p *typeParser) optParam(def int) (int, error) {
	if !p.peek(tokBeginParam) {
		return def, nil
	}
	p.cur++
	v, err := p.nextInt()
	if err != nil {
		return 0, err
	}
	if _, err := p.next(tokEndParam); err != nil {
		return 0, fmt.Errorf("')' expected: %v", err)
	}
	return v, nil
}

func (p *typeParser) parseByKeyword(depth int) (DataType, error) {
	kw, err := p.next(tokKeyword)
	if err != nil {
		return DataType{}, fmt.Errorf("type keyword expected: %v", err)
	}
	switch kw.val {
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		n, err := p.optParam(DefaultStringLength)
		if err != nil {
			return DataType{}, err
		}
		if n < 1 {
			return DataType{}, fmt.Errorf("%s length must be between 1 and %d", kw.val, MaxLength)
		}
		root := map[string]TypeRoot{"CHAR": TypeChar, "VARCHAR": TypeVarChar, "BINARY": TypeBinary, "VARBINARY": TypeVarBinary}[kw.val]
		return DataType{Root: root, Length: n}, nil
	case "STRING":
		return DataType{Root: TypeVarChar, Length: MaxLength}, nil
	case "BYTES":
		return DataType{Root: TypeVarBinary, Length: MaxLength}, nil
	case "BOOLEAN":
		return DataType{Root: TypeBoolean}, nil
	case "DECIMAL", "NUMERIC", "DEC":
		prec, scale := DefaultDecimalPrecision, DefaultDecimalScale
		if p.peek(tokBeginParam) {
			p.cur++
			if prec, err = p.nextInt(); err != nil {
				return DataType{}, err
			}
			if p.peek(tokSep) {
				p.cur++
				if scale, err = p.nextInt(); err != nil {
					return DataType{}, err
				}
			}
			if _, err := p.next(tokEndParam); err != nil {
				return DataType{}, fmt.Errorf("')' expected: %v", err)
			}
		}
		if prec < 1 || prec > MaxDecimalPrecision {
			return DataType{}, fmt.Errorf("decimal precision must be between 1 and %d (both inclusive)", MaxDecimalPrecision)
		}
		if scale < 0 || scale > prec {
			return DataType{}, fmt.Errorf("decimal scale must be between 0 and the precision %d (both inclusive)", prec)
		}
		return DataType{Root: TypeDecimal, Precision: prec, Scale: scale}, nil
	case "TINYINT":
		return DataType{Root: TypeTinyInt}, nil
	case "SMALLINT":
		return DataType{Root: TypeSmallInt}, nil
	case "INT", "INTEGER":
		return DataType{Root: TypeInt}, nil
	case "BIGINT":
		return DataType{Root: TypeBigInt}, nil
	case "FLOAT":
		return DataType{Root: TypeFloat}, nil
	case "DOUBLE":
		if p.peekKeyword("PRECISION") {
			p.cur++
		}
		return DataType{Root: TypeDouble}, nil
	case "DATE":
		return DataType{Root: TypeDate}, nil
	case "TIME":
		prec, err := p.optParam(DefaultTimePrecision)
		if err != nil {
			return DataType{}, err
		}
		if p.peekKeyword("WITHOUT", "TIME", "ZONE") {
			p.cur += 3
		}
		if prec < 0 || prec > MaxTimestampPrecision {
			return DataType{}, fmt.Errorf("time precision must be between 0 and %d (both inclusive)", MaxTimestampPrecision)
		}
		return DataType{Root: TypeTime, Precision: prec}, nil
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		prec, err := p.optParam(DefaultTimestampPrecision)
		if err != nil {
			return DataType{}, err
		}
		root := TypeTimestamp
		if kw.val == "TIMESTAMP_LTZ" {
			root = TypeLocalZonedTimestamp
		} else if p.peekKeyword("WITHOUT") {
			p.cur++
			if err := p.nextKeyword("TIME"); err != nil {
				return DataType{}, err
			}
			if err := p.nextKeyword("ZONE"); err != nil {
				return DataType{}, err
			}
		} else if p.peekKeyword("WITH") {
			p.cur++
			if p.peekKeyword("LOCAL") {
				p.cur++
				if err := p.nextKeyword("TIME"); err != nil {
					return DataType{}, err
				}
				if err := p.nextKeyword("ZONE"); err != nil {
					return DataType{}, err
				}
				root = TypeLocalZonedTimestamp
			}
		}
		if prec < 0 || prec > MaxTimestampPrecision {
			return DataType{}, fmt.Errorf("timestamp precision must be between 0 and %d (both inclusive)", MaxTimestampPrecision)
		}
		return DataType{Root: root, Precision: prec}, nil
	case "VARIANT":
		return DataType{Root: TypeVariant}, nil
	case "BLOB":
		return DataType{Root: TypeBlob}, nil
	case "ARRAY", "MULTISET":
		if _, err := p.next(tokBeginSub); err != nil {
			return DataType{}, fmt.Errorf("'<' expected: %v", err)
		}
		elem, err := p.parseWithNullability(depth + 1)
		if err != nil {
			return DataType{}, err
		}
		if _, err := p.next(tokEndSub); err != nil {
			return DataType{}, fmt.Errorf("'>' expected: %v", err)
		}
		root := TypeArray
		if kw.val == "MULTISET" {
			root = TypeMultiset
		}
		return DataType{Root: root, Elem: &elem}, nil
	case "MAP":
		if _, err := p.next(tokBeginSub); err != nil {
			return DataType{}, fmt.Errorf("'<' expected: %v", err)
		}
		k, err := p.parseWithNullability(depth + 1)
		if err != nil {
			return DataType{}, err
		}
		if _, err := p.next(tokSep); err != nil {
			return DataType{}, fmt.Errorf("',' expected: %v", err)
		}
		v, err := p.parseWithNullability(depth + 1)
		if err != nil {
			return DataType{}, err
		}
		if _, err := p.next(tokEndSub); err != nil {
			return DataType{}, fmt.Errorf("'>' expected: %v", err)
		}
		return DataType{Root: TypeMap, Key: &k, Value: &v}, nil
	case "ROW":
		return p.parseRow(depth)
	}
	if newerPaimonTypes[strings.ToUpper(kw.val)] {
		return DataType{}, fmt.Errorf("%w: %s", errUnknownTypeName, kw.val)
	}
	return DataType{}, fmt.Errorf("unsupported type: %s", kw.val)
}

// newerPaimonTypes are type names of newer Paimon versions that lakesql
// cannot represent (Paimon 2.x VECTOR(elem, dim)); ParseDataType reports
// them as ErrUnsupportedType, not ErrCorrupt: the file is well-formed.
var newerPaimonTypes = map[string]bool{"VECTOR": true}

// errUnknownTypeName marks a type name of newerPaimonTypes.
var errUnknownTypeName = errors.New("unsupported type")

func (p *typeParser) parseRow(depth int) (DataType, error) {
	open, end := tokBeginSub, tokEndSub
	if p.peek(tokBeginParam) {
		open, end = tokBeginParam, tokEndParam
	}
	if _, err := p.next(open); err != nil {
		return DataType{}, fmt.Errorf("'<' expected after ROW: %v", err)
	}
	t := DataType{Root: TypeRow, Fields: []DataField{}}
	if p.peek(end) {
		p.cur++
		return t, nil
	}
	for {
		p.cur++
		if p.cur >= len(p.toks) {
			return DataType{}, fmt.Errorf("unexpected end in ROW")
		}
		nameTok := p.toks[p.cur]
		if nameTok.kind != tokIdent && nameTok.kind != tokKeyword {
			return DataType{}, fmt.Errorf("field name expected but was %q", nameTok.val)
		}
		p.nextID++
		f := DataField{ID: p.nextID, Name: nameTok.val}
		ft, err := p.parseWithNullability(depth + 1)
		if err != nil {
			return DataType{}, err
		}
		f.Type = ft
		if p.cur+2 < len(p.toks) && p.toks[p.cur+1].kind == tokIdent &&
			strings.EqualFold(p.toks[p.cur+1].val, "COMMENT") && p.toks[p.cur+2].kind == tokString {
			p.cur++ // COMMENT 'text'
		}
		if p.peek(tokString) {
			p.cur++
			d := p.toks[p.cur].val
			f.Description = &d
		}
		t.Fields = append(t.Fields, f)
		if p.peek(tokSep) {
			p.cur++
			continue
		}
		if _, err := p.next(end); err != nil {
			return DataType{}, fmt.Errorf("end of ROW expected: %v", err)
		}
		return t, nil
	}
}
