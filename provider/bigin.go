package provider

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Long IN lists. GMS v0.20.0 turns `key IN (v1, …, vn)` into n index
// ranges and removes overlapping ranges in O(n²) (10,000 keys took
// seconds to plan). A list longer than bigInLen is rewritten before the
// analysis into a bigIn, which evaluates exactly as GMS's HashInTuple but
// is not turned into ranges: the pushdown gives it to the scan as one
// hash-tested IN leaf, and the scan looks the keys up when they pin the
// primary key (lsmread's point lookups).

// BigInRuleID identifies BigInRule.
const BigInRuleID analyzer.RuleId = 1004

// bigInLen is the length from which an IN list is not an index lookup.
const bigInLen = 256

// BigInRule is a pre-analysis rule that rewrites long `column IN (literals)`
// filters into bigIn expressions.
func BigInRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		e, same, err := transform.Expr(f.Expression, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			in, ok := e.(*expression.InTuple)
			if !ok {
				return e, transform.SameTree, nil
			}
			if _, ok := in.Left().(*expression.GetField); !ok {
				return e, transform.SameTree, nil
			}
			tup, ok := in.Right().(expression.Tuple)
			if !ok || len(tup) < bigInLen {
				return e, transform.SameTree, nil
			}
			for _, x := range tup {
				if _, ok := x.(*expression.Literal); !ok {
					return e, transform.SameTree, nil
				}
			}
			b, err := newBigIn(ctx, in.Left(), tup)
			if err != nil {
				return e, transform.SameTree, nil // GMS evaluates it as it is
			}
			return b, transform.NewTree, nil
		})
		if err != nil || same {
			return n, transform.SameTree, err
		}
		nf, err := f.WithExpressions(e)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nf, transform.NewTree, nil
	})
}

// bigIn is a long IN list of literals: it evaluates as GMS's HashInTuple,
// and shows the analyzer only its left operand (its one child), so the
// index analysis does not turn it into ranges and the operand validation
// does not count the list as columns.
type bigIn struct {
	h     *expression.HashInTuple
	left  sql.Expression
	right expression.Tuple
}

var (
	_ sql.Expression         = (*bigIn)(nil)
	_ sql.CollationCoercible = (*bigIn)(nil)
)

func newBigIn(ctx *sql.Context, left sql.Expression, right expression.Tuple) (*bigIn, error) {
	h, err := expression.NewHashInTuple(ctx, left, right)
	if err != nil {
		return nil, err
	}
	return &bigIn{h: h, left: left, right: right}, nil
}

func (b *bigIn) Resolved() bool                                  { return b.h.Resolved() }
func (b *bigIn) String() string                                  { return b.h.String() }
func (b *bigIn) Type() sql.Type                                  { return b.h.Type() }
func (b *bigIn) IsNullable() bool                                { return b.h.IsNullable() }
func (b *bigIn) Children() []sql.Expression                      { return []sql.Expression{b.left} }
func (b *bigIn) Eval(ctx *sql.Context, row sql.Row) (any, error) { return b.h.Eval(ctx, row) }

// CollationCoercibility implements sql.CollationCoercible.
func (b *bigIn) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return b.h.CollationCoercibility(ctx)
}

// WithChildren implements sql.Expression: a new left operand, the same list.
func (b *bigIn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 1)
	}
	h, err := b.h.WithChildren(children[0], b.right)
	if err != nil {
		return nil, err
	}
	return &bigIn{h: h.(*expression.HashInTuple), left: children[0], right: b.right}, nil
}
