package builtins

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0's planbuilder converts a DECIMAL literal compared with a
// DECIMAL column to the column's type when the types look congruent
// (planbuilder/scalar.go typeExpandComparisonLiteral), so `d = 0.005`
// against DECIMAL(12,2) becomes `d = 0.01` before any analyzer rule runs.
// Parser hides such literals from it: after parsing, a decimal literal
// compared with a non-literal is wrapped in exactLiteralFn, which the rule
// unwraps again into the same literal, now beyond the planbuilder's
// conversion. Column names come from the query text, so they do not change.

// exactLiteralFn is the wrapper's function name (not callable by users:
// the rule removes it, and a name with a space cannot be written in SQL).
const exactLiteralFn = "lakesql exact literal"

// Parser wraps p with the literal and CAST protections and the rewrite of
// VALUES(col) in INSERT … SELECT … ON DUPLICATE KEY UPDATE (odku_values.go,
// which asks columnsOf for the table's columns when the INSERT names none).
func Parser(p sql.Parser, columnsOf ColumnsFunc) sql.Parser {
	return &parser{Parser: p, columnsOf: columnsOf}
}

type parser struct {
	sql.Parser
	columnsOf ColumnsFunc
}

func (p *parser) fix(ctx context.Context, st ast.Statement) ast.Statement {
	if st == nil {
		return st
	}
	rewriteInsertSelectValues(ctx, st, p.columnsOf)
	return protect(st)
}

func (p *parser) ParseSimple(query string) (ast.Statement, error) {
	st, err := p.Parser.ParseSimple(query)
	return p.fix(context.Background(), st), err
}

func (p *parser) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	st, q, rest, err := p.Parser.Parse(ctx, query, multi)
	return p.fix(ctx, st), q, rest, err
}

func (p *parser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (ast.Statement, string, string, error) {
	st, q, rest, err := p.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	return p.fix(ctx, st), q, rest, err
}

func (p *parser) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (ast.Statement, int, error) {
	st, n, err := p.Parser.ParseOneWithOptions(ctx, query, options)
	return p.fix(ctx, st), n, err
}

func protect(st ast.Statement) ast.Statement {
	if st == nil {
		return st
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if s, ok := n.(*ast.Select); ok {
			protectRepeatedSelect(s) // repeated_select.go
			return true, nil
		}
		if cv, ok := n.(*ast.ConvertExpr); ok {
			if cv.Type != nil && isDecimalTypeName(cv.Type.Type) {
				cv.Expr = &ast.FuncExpr{Name: ast.NewColIdent(castOperandFn), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: cv.Expr}}}
			}
			return true, nil
		}
		c, ok := n.(*ast.ComparisonExpr)
		if !ok {
			return true, nil
		}
		switch c.Operator {
		case ast.EqualStr, ast.LessThanStr, ast.LessEqualStr, ast.GreaterThanStr, ast.GreaterEqualStr,
			ast.NotEqualStr, ast.NullSafeEqualStr:
			if isDecimalLiteral(c.Right) && !isLiteral(c.Left) {
				c.Right = wrapLiteral(c.Right)
			} else if isDecimalLiteral(c.Left) && !isLiteral(c.Right) {
				c.Left = wrapLiteral(c.Left)
			}
		}
		return true, nil
	}, st)
	return st
}

// The planbuilder also drops CAST(x AS DECIMAL(M,D)) when x is a DECIMAL
// expression (planbuilder/factory.go buildConvert: GMS types both as its
// internal DECIMAL(65,30)), so CAST(d + 1 AS DECIMAL(12,2)) would neither
// round nor clamp. Parser wraps the operand of every CAST/CONVERT to
// DECIMAL in castOperandFn, whose type is not a DECIMAL, so the CAST is
// kept; the rule removes the wrapper before anything evaluates it.

// castOperandFn is the wrapper's function name (not callable by users).
const castOperandFn = "lakesql cast operand"

func isDecimalTypeName(t string) bool {
	switch strings.ToLower(t) {
	case "decimal", "dec", "numeric", "fixed":
		return true
	}
	return false
}

// castOperand is the planbuilder's view of a protected CAST operand: it
// evaluates as the operand, typed as text so the CAST is not deduplicated.
type castOperand struct{ e sql.Expression }

func (c *castOperand) Resolved() bool                                { return c.e.Resolved() }
func (c *castOperand) String() string                                { return c.e.String() }
func (c *castOperand) Type() sql.Type                                { return types.LongText }
func (c *castOperand) IsNullable() bool                              { return c.e.IsNullable() }
func (c *castOperand) Eval(ctx *sql.Context, r sql.Row) (any, error) { return c.e.Eval(ctx, r) }
func (c *castOperand) Children() []sql.Expression                    { return []sql.Expression{c.e} }
func (c *castOperand) FunctionName() string                          { return castOperandFn }
func (c *castOperand) Description() string                           { return "a CAST operand kept from deduplication (lakesql)" }

func (c *castOperand) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	return &castOperand{e: children[0]}, nil
}

var castOperandFunction = sql.Function1{Name: castOperandFn, Fn: func(e sql.Expression) sql.Expression {
	return &castOperand{e: e}
}}

func isLiteral(e ast.Expr) bool {
	_, ok := e.(*ast.SQLVal)
	return ok
}

func isDecimalLiteral(e ast.Expr) bool {
	v, ok := e.(*ast.SQLVal)
	return ok && v.Type == ast.FloatVal && !strings.ContainsAny(string(v.Val), "eE")
}

func wrapLiteral(e ast.Expr) ast.Expr {
	return &ast.FuncExpr{Name: ast.NewColIdent(exactLiteralFn), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: e}}}
}

// exactLiteral is the planbuilder's view of a protected literal.
type exactLiteral struct{ lit sql.Expression }

func (e *exactLiteral) Resolved() bool                                { return true }
func (e *exactLiteral) String() string                                { return e.lit.String() }
func (e *exactLiteral) Type() sql.Type                                { return e.lit.Type() }
func (e *exactLiteral) IsNullable() bool                              { return e.lit.IsNullable() }
func (e *exactLiteral) Eval(ctx *sql.Context, r sql.Row) (any, error) { return e.lit.Eval(ctx, r) }
func (e *exactLiteral) Children() []sql.Expression                    { return []sql.Expression{e.lit} }
func (e *exactLiteral) FunctionName() string                          { return exactLiteralFn }
func (e *exactLiteral) Description() string                           { return "a literal kept exact (lakesql)" }

func (e *exactLiteral) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(e, len(children), 1)
	}
	return &exactLiteral{lit: children[0]}, nil
}

var exactLiteralFunction = sql.Function1{Name: exactLiteralFn, Fn: func(e sql.Expression) sql.Expression {
	return &exactLiteral{lit: e}
}}

// unwrapExact is the rule's part: the literal itself again.
func unwrapExact(e *exactLiteral) (sql.Expression, transform.TreeIdentity, error) {
	if lit, ok := e.lit.(*expression.Literal); ok {
		return lit, transform.NewTree, nil
	}
	return e.lit, transform.NewTree, nil
}
