package sqlengine

import "fmt"

// mergeWhen is which rows a WHEN clause of MERGE applies to.
type mergeWhen uint8

const (
	// whenMatched: target rows with a source row satisfying ON.
	whenMatched mergeWhen = iota + 1
	// whenNotMatched (BY TARGET): source rows no target row matches.
	whenNotMatched
	// whenNotMatchedBySource: target rows no source row matches.
	whenNotMatchedBySource
)

func (w mergeWhen) String() string {
	switch w {
	case whenMatched:
		return "WHEN MATCHED"
	case whenNotMatched:
		return "WHEN NOT MATCHED"
	case whenNotMatchedBySource:
		return "WHEN NOT MATCHED BY SOURCE"
	}
	return fmt.Sprintf("mergeWhen(%d)", uint8(w))
}

// mergeAction is what a WHEN clause does.
type mergeAction uint8

const (
	mergeUpdate mergeAction = iota + 1
	mergeDelete
	mergeInsert
)

// mergeClause is one WHEN … THEN … clause; expressions are SQL text.
type mergeClause struct {
	when   mergeWhen
	cond   string // the AND condition, "" when absent
	action mergeAction
	star   bool     // UPDATE SET * / INSERT * (Spark): every target column from the source column of its name
	cols   []string // columns assigned (UPDATE SET) or inserted (INSERT (cols)); nil with INSERT means every column
	exprs  []string // one per column (or per target column when cols is nil)
}

// mergeStmt is a parsed MERGE INTO.
type mergeStmt struct {
	db, table   string
	alias       string // the target's qualifier: its alias or its name
	source      string // SQL text of the source: a table reference or a parenthesised query
	sourceAlias string // the source's qualifier
	on          string
	clauses     []mergeClause
}

// parseMerge parses
//
//	MERGE INTO target [[AS] t] USING source [[AS] s] ON cond
//	  { WHEN MATCHED [AND c] THEN { UPDATE SET col = expr, … | UPDATE SET * | DELETE }
//	  | WHEN NOT MATCHED [BY TARGET] [AND c] THEN { INSERT [(cols)] VALUES (exprs) | INSERT * }
//	  | WHEN NOT MATCHED BY SOURCE [AND c] THEN { UPDATE SET col = expr, … | DELETE } } …
//
// where source is a table (optionally with AS OF) or a parenthesised query.
func parseMerge(q string) (*mergeStmt, error) {
	toks, err := tokens(q, mysqlDialect, errWriteSyntax)
	if err != nil {
		return nil, err
	}
	p := &parser{src: q, toks: toks, syntaxErr: errWriteSyntax}
	if err := p.expectKw("MERGE", "INTO"); err != nil {
		return nil, err
	}
	s := &mergeStmt{}
	if s.db, s.table, err = p.tableName(); err != nil {
		return nil, err
	}
	s.alias = s.table
	if p.acceptKw("AS") {
		if s.alias, err = p.ident(); err != nil {
			return nil, err
		}
	} else if t := p.peek(); (t.kind == tokIdent || t.kind == tokQuotedIdent) && !t.is("USING") {
		s.alias = t.text
		p.pos++
	}
	if err := p.expectKw("USING"); err != nil {
		return nil, err
	}
	if err := p.mergeSource(s); err != nil {
		return nil, err
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, err
	}
	if s.on, err = p.exprUntil("a join condition", func(t token) bool { return t.is("WHEN") }); err != nil {
		return nil, err
	}
	for p.acceptKw("WHEN") {
		c, err := p.mergeClause(s.alias)
		if err != nil {
			return nil, err
		}
		s.clauses = append(s.clauses, c)
	}
	if len(s.clauses) == 0 {
		return nil, p.errorf("expected WHEN [NOT] MATCHED")
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return s, nil
}

// mergeSource parses the USING source and its alias.
func (p *parser) mergeSource(s *mergeStmt) error {
	first := p.pos
	if p.peek().sym("(") {
		if _, err := p.parenGroup("the source query"); err != nil {
			return err
		}
		s.source = p.src[p.toks[first].start:p.toks[p.pos-1].end]
		p.acceptKw("AS")
		t := p.peek()
		if t.kind != tokIdent && t.kind != tokQuotedIdent || t.is("ON") {
			return p.errorf("a source query needs an alias")
		}
		s.sourceAlias = t.text
		p.pos++
		return nil
	}
	db, name, err := p.tableName()
	if err != nil {
		return err
	}
	s.sourceAlias = name
	// Time travel (FOR SYSTEM_TIME AS OF …, AS OF …) and the alias: every
	// token up to ON. The alias is a trailing identifier after AS or after
	// anything but OF and '.'.
	nameEnd := p.pos
	for depth := 0; depth > 0 || !p.peek().is("ON"); p.pos++ {
		switch t := p.peek(); {
		case t.kind == tokEOF:
			return p.errorf("expected ON")
		case t.sym("("):
			depth++
		case t.sym(")"):
			depth--
		}
	}
	end := p.pos
	text := func(from, to int) string { return p.src[p.toks[from].start:p.toks[to-1].end] }
	if last := end - 1; last >= nameEnd {
		t, prev := p.toks[last], p.toks[last-1]
		if (t.kind == tokIdent || t.kind == tokQuotedIdent) && !prev.sym(".") && !prev.is("OF") {
			s.sourceAlias = t.text
			end = last
			if prev.is("AS") {
				end--
			}
		}
	}
	ref := quoteName(name)
	if db != "" {
		ref = quoteName(db) + "." + ref
	}
	if end > nameEnd {
		ref += " " + text(nameEnd, end)
	}
	s.source = ref
	return nil
}

// mergeClause parses one clause after WHEN.
func (p *parser) mergeClause(target string) (mergeClause, error) {
	var c mergeClause
	switch {
	case p.acceptKw("MATCHED"):
		c.when = whenMatched
	case p.acceptKw("NOT", "MATCHED"):
		c.when = whenNotMatched
		if p.acceptKw("BY", "SOURCE") {
			c.when = whenNotMatchedBySource
		} else {
			p.acceptKw("BY", "TARGET")
		}
	default:
		return c, p.errorf("expected MATCHED or NOT MATCHED")
	}
	var err error
	if p.acceptKw("AND") {
		if c.cond, err = p.exprUntil("a condition", func(t token) bool { return t.is("THEN") }); err != nil {
			return c, err
		}
	}
	if err := p.expectKw("THEN"); err != nil {
		return c, err
	}
	switch {
	case p.acceptKw("UPDATE"):
		c.action = mergeUpdate
		if err := p.expectKw("SET"); err != nil {
			return c, err
		}
		if p.acceptSym("*") {
			c.star = true
			break
		}
		for {
			col, err := p.columnRef(target)
			if err != nil {
				return c, err
			}
			if err := p.expectSym("="); err != nil {
				return c, err
			}
			e, err := p.exprUntil("an expression", func(t token) bool { return t.sym(",") || t.is("WHEN") })
			if err != nil {
				return c, err
			}
			c.cols, c.exprs = append(c.cols, col), append(c.exprs, e)
			if !p.acceptSym(",") {
				break
			}
		}
	case p.acceptKw("DELETE"):
		c.action = mergeDelete
	case p.acceptKw("INSERT"):
		c.action = mergeInsert
		if p.acceptSym("*") {
			c.star = true
			break
		}
		if p.peek().sym("(") {
			if c.cols, err = p.columnList(target); err != nil {
				return c, err
			}
		}
		if err := p.expectKw("VALUES"); err != nil {
			return c, err
		}
		if err := p.expectSym("("); err != nil {
			return c, err
		}
		for {
			e, err := p.exprUntil("an expression", func(t token) bool { return t.sym(",") || t.sym(")") })
			if err != nil {
				return c, err
			}
			c.exprs = append(c.exprs, e)
			if p.acceptSym(")") {
				break
			}
			if err := p.expectSym(","); err != nil {
				return c, err
			}
		}
		if c.cols != nil && len(c.cols) != len(c.exprs) {
			return c, fmt.Errorf("%w: INSERT names %d columns but has %d values", errWriteSyntax, len(c.cols), len(c.exprs))
		}
	default:
		return c, p.errorf("expected UPDATE, DELETE or INSERT")
	}
	switch {
	case c.when == whenNotMatched && c.action != mergeInsert:
		return c, fmt.Errorf("%w: %s can only INSERT", errWriteSyntax, c.when)
	case c.when != whenNotMatched && c.action == mergeInsert:
		return c, fmt.Errorf("%w: %s cannot INSERT (only WHEN NOT MATCHED can)", errWriteSyntax, c.when)
	case c.when == whenNotMatchedBySource && c.star:
		return c, fmt.Errorf("%w: %s cannot UPDATE SET * (there is no source row)", errWriteSyntax, c.when)
	}
	return c, nil
}
