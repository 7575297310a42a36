package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql/analyzer"
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
