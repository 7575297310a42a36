package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// withoutIndexSortElision removes GMS v0.20.0's replaceIdxSort rule, which
// drops an ascending ORDER BY above an IndexedTableAccess whose columns
// prefix the sort without asking the index whether it returns rows in order
// (it reads sql.OrderedIndex only for DESC). lakesql's PRIMARY index is
// unordered (buckets and sorted runs interleave: Order() is IndexOrderNone),
// so the rule returned unsorted rows for "WHERE k > x ORDER BY k" on a
// keyable key column. Without it the Sort stays, which is always correct.
func withoutIndexSortElision(b *analyzer.Builder) *analyzer.Builder {
	for _, r := range analyzer.OnceAfterDefault {
		if r.Id.String() == "replaceIdxSort" {
			return b.RemoveOnceAfterRule(r.Id)
		}
	}
	return b
}

// TopNRuleID identifies topNThroughProject.
const TopNRuleID analyzer.RuleId = 1005

// topNThroughProject turns Limit(Project…(Sort(x))) into
// Limit(Project…(TopN(x))). GMS's insertTopNNodes only sees Limit directly
// above Sort, but ORDER BY an alias (… AS s ORDER BY s LIMIT 10) puts a
// Project between them, and the query then sorts every row (every group of
// a high-cardinality GROUP BY) to keep ten. A Project maps rows one to one,
// so keeping the first n sorted rows below it keeps the same rows. Not
// with SQL_CALC_FOUND_ROWS, which counts every row.
func topNThroughProject(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		l, ok := n.(*plan.Limit)
		if !ok || l.CalcFoundRows {
			return n, transform.SameTree, nil
		}
		var projs []*plan.Project
		c := l.Child
		for {
			p, ok := c.(*plan.Project)
			if !ok {
				break
			}
			projs = append(projs, p)
			c = p.Child
		}
		s, ok := c.(*plan.Sort)
		if !ok || len(projs) == 0 {
			return n, transform.SameTree, nil
		}
		var node sql.Node = plan.NewTopN(s.SortFields, l.Limit, s.Child)
		for i := len(projs) - 1; i >= 0; i-- {
			var err error
			if node, err = projs[i].WithChildren(node); err != nil {
				return nil, transform.SameTree, err
			}
		}
		out, err := l.WithChildren(node)
		return out, transform.NewTree, err
	})
}
