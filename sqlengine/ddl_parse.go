package sqlengine

import (
	"errors"
	"strings"
	"unicode"

	"github.com/lakesql/lakesql/provider"
)

// The DDL front: a small tokenizer and recursive-descent parser for the DDL
// spellings users bring from Flink, Spark, Doris and StarRocks, which GMS's
// parser lacks (PRIMARY KEY … NOT ENFORCED, STRING/BYTES/ARRAY<…>/ROW<…>
// types, PARTITIONED BY, WITH (…), PROPERTIES (…), ALTER TABLE … SET/RESET),
// plus the MySQL spellings of the same statements, so one code path maps
// types. Statements it does not recognise go to GMS unchanged.
//
// Strings are Flink SQL strings: '' is a quote, a backslash is an ordinary
// character. Identifiers may be backquoted (`` escapes a backquote).

// errDDLSyntax marks a syntax error of the DDL front (MySQL 1064).
var errDDLSyntax = errors.New("syntax error")

func (p *parser) identList() ([]string, error) {
	return p.parenList(p.ident)
}

// property keys may be quoted strings or (Spark) dotted identifiers.
func (p *parser) propKey() (string, error) {
	t := p.peek()
	if t.kind == tokString {
		p.pos++
		return t.text, nil
	}
	var parts []string
	for {
		s, err := p.ident()
		if err != nil {
			return "", p.errorf("expected an option key")
		}
		parts = append(parts, s)
		if !p.acceptSym(".") {
			return strings.Join(parts, "."), nil
		}
	}
}

// props parses ('k' = 'v', ...).
func (p *parser) props() ([][2]string, error) {
	if err := p.expectSym("("); err != nil {
		return nil, err
	}
	var out [][2]string
	if p.acceptSym(")") {
		return out, nil
	}
	for {
		k, err := p.propKey()
		if err != nil {
			return nil, err
		}
		if err := p.expectSym("="); err != nil {
			return nil, err
		}
		t := p.peek()
		var v string
		switch t.kind {
		case tokString, tokNumber:
			v = t.text
			p.pos++
		case tokIdent: // Spark: 'k' = true
			v = t.text
			p.pos++
		default:
			return nil, p.errorf("expected the value of option '%s'", k)
		}
		out = append(out, [2]string{k, v})
		if p.acceptSym(")") {
			return out, nil
		}
		if err := p.expectSym(","); err != nil {
			return nil, err
		}
	}
}

// keyList parses ('k1', 'k2', ...) of RESET / UNSET.
func (p *parser) keyList() ([]string, error) {
	return p.parenList(p.propKey)
}

// colDef is one column definition.
type colDef struct {
	name     string
	typeText string
	notNull  bool
	comment  *string
	pk       bool
	// paimonType: typeText is the exact Paimon type of an executable
	// comment after the MySQL type (`ts` datetime(3) /*!99999 TIMESTAMP(3)
	// WITH LOCAL TIME ZONE */), which wins over the MySQL spelling.
	paimonType bool
}

// columnStop are the words that end a column's type at nesting depth 0.
var columnStop = map[string]bool{
	"NOT": true, "NULL": true, "DEFAULT": true, "COMMENT": true, "PRIMARY": true, "UNIQUE": true,
	"KEY": true, "AUTO_INCREMENT": true, "CHARACTER": true, "CHARSET": true, "COLLATE": true,
	"GENERATED": true, "AS": true, "REFERENCES": true, "CHECK": true, "CONSTRAINT": true,
	"FIRST": true, "AFTER": true, "ON": true, "METADATA": true, "VIRTUAL": true, "STORED": true,
}

// column parses name type [NOT NULL | NULL | DEFAULT NULL | COMMENT '…' | PRIMARY KEY [NOT ENFORCED]]…
func (p *parser) column() (colDef, error) {
	var c colDef
	var err error
	nameExec := p.peek().exec
	if c.name, err = p.ident(); err != nil {
		return c, err
	}
	start := p.peek().start
	end := start
	depth := 0
	for {
		t := p.peek()
		if t.kind == tokEOF || t.exec != nameExec {
			break
		}
		if depth == 0 {
			if t.kind == tokSymbol && (t.text == "," || t.text == ")") {
				break
			}
			if t.kind == tokIdent && columnStop[strings.ToUpper(t.text)] {
				// NOT NULL inside the type text is for the column; "WITH LOCAL TIME ZONE" is type text.
				break
			}
		}
		if t.kind == tokSymbol {
			switch t.text {
			case "(", "<":
				depth++
			case ")", ">":
				depth--
			}
		}
		end = t.end
		p.pos++
	}
	c.typeText = strings.TrimSpace(p.src[start:end])
	if c.typeText == "" {
		return c, p.errorf("expected the type of column %s", c.name)
	}
	for {
		switch {
		case p.acceptKw("NOT", "NULL"):
			c.notNull = true
		case p.acceptKw("NULL"):
		case p.acceptKw("DEFAULT", "NULL"):
		case p.atKw("DEFAULT"):
			return c, provider.Unsupported("column %s: DEFAULT values are not supported; Paimon columns default to NULL", c.name)
		case p.acceptKw("COMMENT"):
			s, err := p.str()
			if err != nil {
				return c, err
			}
			c.comment = &s
		case p.acceptKw("PRIMARY", "KEY"):
			c.pk = true
			p.acceptKw("NOT", "ENFORCED")
		case p.acceptKw("CHARACTER", "SET"), p.acceptKw("CHARSET"), p.acceptKw("COLLATE"):
			if _, err := p.ident(); err != nil {
				return c, err
			}
		case p.atKw("AUTO_INCREMENT"):
			return c, provider.Unsupported("column %s: AUTO_INCREMENT is not supported by Paimon tables", c.name)
		case p.peek().exec > 0 && p.peek().exec != nameExec && p.peek().kind == tokIdent && !c.paimonType:
			id := p.peek().exec
			start, end := p.peek().start, p.peek().end
			for p.peek().exec == id && p.peek().kind != tokEOF {
				end = p.next().end
			}
			c.typeText, c.paimonType = strings.TrimSpace(p.src[start:end]), true
		default:
			return c, nil
		}
	}
}

// createTableStmt is CREATE TABLE.
type createTableStmt struct {
	db, name      string
	ifNotExists   bool
	likeDB, like  string
	isLike        bool
	cols          []colDef
	primaryKey    []string
	partitionKeys []string
	options       [][2]string
	comment       *string
	flink         bool // a Flink/Spark/Doris-only construct was seen
}

// alterAction is one action of ALTER TABLE.
type alterAction struct {
	kind    string // ADD, DROP, RENAME, MODIFY, CHANGE, SET, RESET, COMMENT, PK
	col     colDef
	column  string // DROP, RENAME (old), CHANGE (old)
	newName string // RENAME
	first   bool
	after   string
	props   [][2]string
	keys    []string
	comment string
}

type alterTableStmt struct {
	db, name string
	actions  []alterAction
	flink    bool
}

// showCreateTableStmt is SHOW CREATE TABLE (MySQL form) or SHOW CREATE
// PAIMON TABLE (the Flink/Paimon DDL).
type showCreateTableStmt struct {
	db, name string
	paimon   bool
}

// parseDDL parses the statements the front handles. ok is false when q is
// not one of them (it goes to GMS unchanged).
func parseDDL(q string) (stmt any, ok bool, err error) {
	if !mayBeDDL(q) {
		return nil, false, nil
	}
	return parseDDLText(q)
}

// parseDDLText is parseDDL without the first-token check.
func parseDDLText(q string) (stmt any, ok bool, err error) {
	toks, err := tokens(q, ddlDialect, errDDLSyntax)
	if err != nil {
		return nil, startsWithKw(q, "CREATE", "TABLE") || startsWithKw(q, "ALTER", "TABLE"), err
	}
	p := &parser{src: q, toks: toks, syntaxErr: errDDLSyntax}
	switch {
	case p.atKw("CREATE", "TABLE"):
		p.pos += 2
		s, err := p.createTable()
		return s, true, err
	case p.atKw("ALTER", "TABLE"):
		p.pos += 2
		s, err := p.alterTable()
		return s, true, err
	case p.atKw("SHOW", "CREATE", "TABLE"):
		p.pos += 3
		db, name, err := p.tableName()
		if err != nil {
			return nil, false, nil
		}
		if p.end() != nil || strings.Contains(name, "$") {
			return nil, false, nil // AS OF, system tables: GMS
		}
		return &showCreateTableStmt{db: db, name: name}, true, nil
	case p.atKw("SHOW", "CREATE", "PAIMON", "TABLE"):
		p.pos += 4
		db, name, err := p.tableName()
		if err != nil {
			return nil, true, err
		}
		if err := p.end(); err != nil {
			return nil, true, provider.Unsupported("SHOW CREATE PAIMON TABLE takes a table name only (no AS OF)")
		}
		if strings.Contains(name, "$") {
			return nil, true, provider.Unsupported("SHOW CREATE PAIMON TABLE %s: system tables and branches have no Paimon DDL; use SHOW CREATE TABLE", name)
		}
		return &showCreateTableStmt{db: db, name: name, paimon: true}, true, nil
	}
	return nil, false, nil
}

// mayBeDDL is false for a statement parseDDL leaves alone (most
// statements), known from its first token without lexing it whole.
func mayBeDDL(q string) bool {
	first, err := lexLimit(q, ddlDialect, 1)
	if err != nil {
		return true // let the whole lexing decide
	}
	if len(first) > 0 && (first[0].IsWord("CREATE") || first[0].IsWord("ALTER") || first[0].IsWord("SHOW")) {
		return true
	}
	// A statement whose lexing fails is still DDL when its first two
	// words are CREATE TABLE or ALTER TABLE (startsWithKw).
	t := strings.TrimLeftFunc(q, unicode.IsSpace)
	return len(t) >= 5 && strings.EqualFold(t[:5], "ALTER") || len(t) >= 6 && strings.EqualFold(t[:6], "CREATE")
}

func startsWithKw(q string, kws ...string) bool {
	f := strings.Fields(q)
	if len(f) < len(kws) {
		return false
	}
	for i, kw := range kws {
		if !strings.EqualFold(f[i], kw) {
			return false
		}
	}
	return true
}

func (p *parser) createTable() (*createTableStmt, error) {
	s := &createTableStmt{}
	if p.acceptKw("IF", "NOT", "EXISTS") {
		s.ifNotExists = true
	}
	var err error
	if s.db, s.name, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKw("LIKE") || (p.atSym("(") && p.peekAt(1).is("LIKE")) {
		paren := p.acceptSym("(")
		if paren {
			p.acceptKw("LIKE")
		}
		s.isLike = true
		if s.likeDB, s.like, err = p.tableName(); err != nil {
			return nil, err
		}
		if paren {
			if err := p.expectSym(")"); err != nil {
				return nil, err
			}
		}
		return s, p.end()
	}
	if err := p.expectSym("("); err != nil {
		return nil, err
	}
	for {
		switch {
		case p.atKw("CONSTRAINT") || p.atKw("PRIMARY", "KEY"):
			if p.acceptKw("CONSTRAINT") {
				if _, err := p.ident(); err != nil {
					return nil, err
				}
			}
			if err := p.expectKw("PRIMARY", "KEY"); err != nil {
				return nil, err
			}
			if s.primaryKey != nil {
				return nil, p.errorf("the primary key is declared twice")
			}
			if s.primaryKey, err = p.identList(); err != nil {
				return nil, err
			}
			if p.acceptKw("NOT", "ENFORCED") {
				s.flink = true
			}
		case p.atKw("KEY"), p.atKw("INDEX"), p.atKw("UNIQUE"), p.atKw("FOREIGN"), p.atKw("CHECK"),
			p.atKw("FULLTEXT"), p.atKw("SPATIAL"), p.atKw("WATERMARK"), p.atKw("PERIOD"):
			return nil, p.errorf("indexes, constraints and watermarks are not part of a Paimon table")
		default:
			c, err := p.column()
			if err != nil {
				return nil, err
			}
			if c.pk {
				if s.primaryKey != nil {
					return nil, p.errorf("the primary key is declared twice")
				}
				s.primaryKey = []string{c.name}
			}
			s.cols = append(s.cols, c)
		}
		if p.acceptSym(")") {
			break
		}
		if err := p.expectSym(","); err != nil {
			return nil, err
		}
	}
	for !p.atSym(";") && p.peek().kind != tokEOF {
		// Clauses inside an executable comment (the MySQL form of SHOW
		// CREATE TABLE) do not make the statement Flink-dialect: its column
		// types are MySQL's.
		exec, flink := p.peek().exec, s.flink
		switch {
		case p.acceptKw("COMMENT"):
			p.acceptSym("=")
			c, err := p.str()
			if err != nil {
				return nil, err
			}
			s.comment = &c
		case p.acceptKw("PARTITIONED", "BY"), p.acceptKw("PARTITION", "BY"):
			if s.partitionKeys != nil {
				return nil, p.errorf("the partition keys are declared twice")
			}
			if s.partitionKeys, err = p.identList(); err != nil {
				return nil, err
			}
			s.flink = true
		case p.acceptKw("PRIMARY", "KEY"), p.acceptKw("UNIQUE", "KEY"): // Doris/StarRocks key clause
			if s.primaryKey != nil {
				return nil, p.errorf("the primary key is declared twice")
			}
			if s.primaryKey, err = p.identList(); err != nil {
				return nil, err
			}
			s.flink = true
		case p.acceptKw("DISTRIBUTED", "BY", "HASH"): // Doris/StarRocks
			keys, err := p.identList()
			if err != nil {
				return nil, err
			}
			s.options = append(s.options, [2]string{"bucket-key", strings.Join(keys, ",")})
			if p.acceptKw("BUCKETS") {
				t := p.next()
				if t.kind != tokNumber {
					return nil, p.errorf("expected a bucket count")
				}
				s.options = append(s.options, [2]string{"bucket", t.text})
			}
			s.flink = true
		case p.acceptKw("WITH"), p.acceptKw("PROPERTIES"), p.acceptKw("TBLPROPERTIES"), p.acceptKw("OPTIONS"):
			props, err := p.props()
			if err != nil {
				return nil, err
			}
			s.options = append(s.options, props...)
			s.flink = true
		case p.acceptKw("USING"): // Spark: USING paimon
			f, err := p.ident()
			if err != nil {
				return nil, err
			}
			if !strings.EqualFold(f, "paimon") {
				return nil, provider.Unsupported("USING %s: lakesql creates Paimon tables only", f)
			}
			s.flink = true
		case p.acceptKw("ENGINE"):
			p.acceptSym("=")
			if _, err := p.ident(); err != nil {
				return nil, err
			}
		case p.acceptKw("DEFAULT", "CHARSET"), p.acceptKw("DEFAULT", "CHARACTER", "SET"), p.acceptKw("CHARSET"), p.acceptKw("CHARACTER", "SET"),
			p.acceptKw("DEFAULT", "COLLATE"), p.acceptKw("COLLATE"):
			p.acceptSym("=")
			if _, err := p.ident(); err != nil {
				return nil, err
			}
		case p.acceptSym(","):
		default:
			return nil, p.errorf("unexpected table clause")
		}
		if exec > 0 {
			s.flink = flink
		}
	}
	return s, p.end()
}

func (p *parser) placement(a *alterAction) error {
	switch {
	case p.acceptKw("FIRST"):
		a.first = true
	case p.acceptKw("AFTER"):
		s, err := p.ident()
		if err != nil {
			return err
		}
		a.after = s
	}
	return nil
}

func (p *parser) alterTable() (*alterTableStmt, error) {
	s := &alterTableStmt{}
	var err error
	if s.db, s.name, err = p.tableName(); err != nil {
		return nil, err
	}
	for {
		if err := p.alterAction(s); err != nil {
			return nil, err
		}
		if !p.acceptSym(",") {
			break
		}
	}
	return s, p.end()
}

func isIndexWord(t token) bool {
	for _, kw := range []string{"INDEX", "KEY", "UNIQUE", "FULLTEXT", "SPATIAL", "FOREIGN", "CHECK"} {
		if t.is(kw) {
			return true
		}
	}
	return false
}

func (p *parser) alterAction(s *alterTableStmt) error {
	// columns parses "coldef [FIRST|AFTER c]" or Flink's "(coldef, ...)".
	columns := func(kind string) error {
		if p.acceptSym("(") {
			s.flink = true
			for {
				c, err := p.column()
				if err != nil {
					return err
				}
				a := alterAction{kind: kind, col: c, column: c.name}
				if err := p.placement(&a); err != nil {
					return err
				}
				s.actions = append(s.actions, a)
				if p.acceptSym(")") {
					return nil
				}
				if err := p.expectSym(","); err != nil {
					return err
				}
			}
		}
		c, err := p.column()
		if err != nil {
			return err
		}
		a := alterAction{kind: kind, col: c, column: c.name}
		if err := p.placement(&a); err != nil {
			return err
		}
		s.actions = append(s.actions, a)
		return nil
	}
	switch {
	case p.atKw("ADD", "PRIMARY"), p.atKw("DROP", "PRIMARY"), p.atKw("ADD", "CONSTRAINT"), p.atKw("DROP", "CONSTRAINT"):
		return provider.Unsupported("changing the primary key of a Paimon table is not supported (its files are sorted and bucketed by the key); create a new table and copy the rows")
	case (p.atKw("ADD") || p.atKw("DROP")) && isIndexWord(p.peekAt(1)):
		return p.errorf("indexes and constraints are not part of a Paimon table")
	case p.acceptKw("ADD"):
		p.acceptKw("COLUMN")
		return columns("ADD")
	case p.acceptKw("MODIFY"):
		p.acceptKw("COLUMN")
		return columns("MODIFY")
	case p.acceptKw("CHANGE"):
		p.acceptKw("COLUMN")
		old, err := p.ident()
		if err != nil {
			return err
		}
		c, err := p.column()
		if err != nil {
			return err
		}
		a := alterAction{kind: "CHANGE", column: old, col: c}
		if err := p.placement(&a); err != nil {
			return err
		}
		s.actions = append(s.actions, a)
	case p.acceptKw("DROP"):
		p.acceptKw("COLUMN")
		if p.atSym("(") {
			names, err := p.identList()
			if err != nil {
				return err
			}
			for _, n := range names {
				s.actions = append(s.actions, alterAction{kind: "DROP", column: n})
			}
			return nil
		}
		n, err := p.ident()
		if err != nil {
			return err
		}
		s.actions = append(s.actions, alterAction{kind: "DROP", column: n})
	case p.acceptKw("RENAME", "COLUMN"):
		old, err := p.ident()
		if err != nil {
			return err
		}
		if err := p.expectKw("TO"); err != nil {
			return err
		}
		n, err := p.ident()
		if err != nil {
			return err
		}
		s.actions = append(s.actions, alterAction{kind: "RENAME", column: old, newName: n})
	case p.atKw("RENAME"):
		return provider.ErrRenameTable
	case p.acceptKw("SET", "TBLPROPERTIES"), p.acceptKw("SET"):
		props, err := p.props()
		if err != nil {
			return err
		}
		s.actions = append(s.actions, alterAction{kind: "SET", props: props})
		s.flink = true
	case p.acceptKw("RESET"), p.acceptKw("UNSET", "TBLPROPERTIES"):
		keys, err := p.keyList()
		if err != nil {
			return err
		}
		s.actions = append(s.actions, alterAction{kind: "RESET", keys: keys})
		s.flink = true
	case p.acceptKw("COMMENT"):
		p.acceptSym("=")
		c, err := p.str()
		if err != nil {
			return err
		}
		s.actions = append(s.actions, alterAction{kind: "COMMENT", comment: c})
	default:
		return p.errorf("expected ADD, DROP, MODIFY, CHANGE, RENAME COLUMN, SET, RESET or COMMENT")
	}
	return nil
}
