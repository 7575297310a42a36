package sqlengine

import (
	"fmt"
	"strings"
)

// partSpec is one column of INSERT OVERWRITE … PARTITION (…).
type partSpec struct {
	col     string
	static  bool
	literal string // SQL text of the value (static only)
	text    string // the value as partition text (static only)
}

// overwriteStmt is a parsed INSERT OVERWRITE.
type overwriteStmt struct {
	db, table string
	partition []partSpec
	hasSpec   bool     // a PARTITION clause was given
	cols      []string // explicit column list, or nil
	query     string   // SELECT/VALUES/… text; VALUES rows already carry the static partition values
	values    bool     // query is a VALUES list
}

// staticCols are the partition columns PARTITION gives values.
func (s *overwriteStmt) staticCols() []partSpec {
	var out []partSpec
	for _, p := range s.partition {
		if p.static {
			out = append(out, p)
		}
	}
	return out
}

// parseOverwrite parses the Spark/Flink/Hive spelling
//
//	INSERT OVERWRITE [TABLE] t [PARTITION (k = v | k, …)] [(cols)] { SELECT … | VALUES (…), … | WITH … | TABLE … }
func parseOverwrite(q string) (*overwriteStmt, error) {
	toks, err := tokens(q, mysqlDialect, errWriteSyntax)
	if err != nil {
		return nil, err
	}
	p := &parser{src: q, toks: toks, syntaxErr: errWriteSyntax}
	if err := p.expectKw("INSERT", "OVERWRITE"); err != nil {
		return nil, err
	}
	p.acceptKw("TABLE")
	s := &overwriteStmt{}
	if s.db, s.table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptKw("PARTITION") {
		s.hasSpec = true
		if err := p.partitionSpec(s); err != nil {
			return nil, err
		}
	}
	if p.atKw("IF", "NOT", "EXISTS") {
		return nil, notSupported("INSERT OVERWRITE … IF NOT EXISTS")
	}
	if p.peek().sym("(") && !p.peekAt(1).is("SELECT") && !p.peekAt(1).is("WITH") && !p.peekAt(1).sym("(") {
		if s.cols, err = p.columnList(s.table); err != nil {
			return nil, err
		}
	}
	start := p.peek()
	switch {
	case start.is("VALUES") || start.is("VALUE"):
		s.values = true
		if s.query, err = p.valuesWith(s.staticCols()); err != nil {
			return nil, err
		}
	case start.is("SELECT") || start.is("WITH") || start.is("TABLE") || start.sym("("):
		end := len(p.toks) - 1
		if end > p.pos && p.toks[end-1].sym(";") {
			end--
		}
		s.query = q[start.start:p.toks[end-1].end]
		p.pos = len(p.toks) - 1
	default:
		return nil, p.errorf("expected SELECT or VALUES")
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return s, nil
}

// partitionSpec parses ( k = v | k , … ).
func (p *parser) partitionSpec(s *overwriteStmt) error {
	if err := p.expectSym("("); err != nil {
		return err
	}
	for {
		col, err := p.ident()
		if err != nil {
			return err
		}
		ps := partSpec{col: col}
		if p.acceptSym("=") {
			ps.static = true
			t := p.next()
			neg := t.sym("-")
			if neg || t.sym("+") {
				t = p.next()
				if t.kind != tokNumber {
					return p.errorf("expected a number")
				}
			}
			switch {
			case t.kind == tokString:
				ps.text = t.text
			case t.kind == tokNumber:
				ps.text = t.text
				if neg {
					ps.text = "-" + t.text
				}
			case t.is("TRUE") || t.is("FALSE"):
				ps.text = strings.ToLower(t.text)
			case t.is("NULL"):
				return notSupported("a NULL static partition value in INSERT OVERWRITE")
			default:
				return fmt.Errorf("%w at position %d near %s: a partition value must be a literal", errWriteSyntax, t.start, t)
			}
			ps.literal = p.src[p.toks[p.pos-1].start:t.end]
			if neg {
				ps.literal = p.src[p.toks[p.pos-2].start:t.end]
			}
		}
		for _, o := range s.partition {
			if strings.EqualFold(o.col, col) {
				return fmt.Errorf("%w: partition column %s is given twice", errWriteSyntax, col)
			}
		}
		s.partition = append(s.partition, ps)
		if p.acceptSym(")") {
			return nil
		}
		if err := p.expectSym(","); err != nil {
			return err
		}
	}
}

// valuesWith parses VALUES (…), … and returns its text with the static
// partition values appended to every row, as Spark fills them in.
func (p *parser) valuesWith(static []partSpec) (string, error) {
	start := p.next() // VALUES
	var b strings.Builder
	last := start.start
	for {
		p.acceptKw("ROW")
		if !p.peek().sym("(") {
			return "", p.errorf("expected '('")
		}
		if _, err := p.parenGroup("a VALUES row"); err != nil {
			return "", err
		}
		closing := p.toks[p.pos-1]
		b.WriteString(p.src[last:closing.start])
		for i, s := range static {
			if i > 0 || !p.toks[p.pos-2].sym("(") {
				b.WriteString(", ")
			}
			b.WriteString(s.literal)
		}
		last = closing.start
		if !p.acceptSym(",") {
			break
		}
	}
	b.WriteString(p.src[last:p.toks[p.pos-1].end])
	return b.String(), nil
}
