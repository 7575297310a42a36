package provider

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/lsmread"
)

// The PRIMARY index of a primary-key table. Lookups through it become a scan
// predicate: partition pruning (partition keys are part of the primary key),
// key-range pruning by file statistics, and row filtering. Rows do not come
// back in key order (buckets interleave), so the index reports
// IndexOrderNone and GMS keeps any ORDER BY.
type primaryIndex struct {
	t *Table
}

var (
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.OrderedIndex          = (*primaryIndex)(nil)
	_ sql.IndexedTable          = (*indexedTable)(nil)
)

// GetIndexes implements sql.IndexAddressable.
func (t *Table) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	if len(t.sch.PrimaryKeys) == 0 {
		return nil, nil
	}
	return []sql.Index{&primaryIndex{t: t}}, nil
}

// IndexedAccess implements sql.IndexAddressable. The lookup applies per
// LookupPartitions call: lookup joins hand each outer row's ranges there.
func (t *Table) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	return &indexedTable{Table: t.copy()}
}

// PreciseMatch implements sql.IndexAddressable: GMS keeps evaluating the
// filters the lookup came from.
func (t *Table) PreciseMatch() bool { return false }

// addLookup adds the lookup's ranges to the scan predicate.
func (t *Table) addLookup(lookup sql.IndexLookup) {
	pi, ok := lookup.Index.(*primaryIndex)
	if !ok {
		return
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return
	}
	var or lsmread.Or
	for _, r := range ranges {
		var and lsmread.And
		for i, ce := range r {
			if i >= len(pi.t.sch.PrimaryKeys) {
				break
			}
			and = append(and, t.rangeLeaves(t.sch.FieldIndex(pi.t.sch.PrimaryKeys[i]), ce)...)
		}
		if len(and) == 0 {
			return // an unbounded range: nothing to push
		}
		or = append(or, and)
	}
	if lookup.IsEmptyRange {
		or = lsmread.Or{}
	}
	var p lsmread.Predicate = or
	if len(or) == 1 {
		p = or[0]
	}
	if t.filter != nil {
		p = lsmread.And{t.filter, p}
	}
	t.filter = p
	t.filterExprs = append(append([]sql.Expression(nil), t.filterExprs...), pruneNoteText("index lookup: "+p.String()))
}

// rangeLeaves turns one column's range into predicate leaves. Bounds whose
// key does not convert exactly are dropped (pruning stays conservative).
func (t *Table) rangeLeaves(idx int, ce sql.MySQLRangeColumnExpr) []lsmread.Predicate {
	var out []lsmread.Predicate
	add := func(op lsmread.Op, key any) {
		v, ok := pushableValue(&t.sch.Fields[idx].Type, key)
		if !ok {
			return
		}
		l := t.leaf(idx, op)
		l.Literals = []any{v}
		out = append(out, l)
	}
	switch lo := ce.LowerBound.(type) {
	case sql.Below:
		add(lsmread.OpGtEq, lo.Key)
	case sql.Above:
		add(lsmread.OpGt, lo.Key)
	case sql.AboveNull:
		out = append(out, t.leaf(idx, lsmread.OpIsNotNull))
	}
	switch hi := ce.UpperBound.(type) {
	case sql.Above:
		add(lsmread.OpLtEq, hi.Key)
	case sql.Below:
		add(lsmread.OpLt, hi.Key)
	case sql.AboveNull:
		if _, ok := ce.LowerBound.(sql.BelowNull); ok {
			out = append(out, t.leaf(idx, lsmread.OpIsNull))
		}
	}
	return out
}

type indexedTable struct{ *Table }

// LookupPartitions implements sql.IndexedTable: it plans a scan with the
// lookup's ranges as predicate.
func (it *indexedTable) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	c := it.Table.copy()
	c.addLookup(lookup)
	return c.Partitions(ctx)
}

func (ix *primaryIndex) ID() string       { return "PRIMARY" }
func (ix *primaryIndex) Database() string { return ix.t.db.name }
func (ix *primaryIndex) Table() string    { return ix.t.name }
func (ix *primaryIndex) Expressions() []string {
	out := make([]string, len(ix.t.sch.PrimaryKeys))
	for i, k := range ix.t.sch.PrimaryKeys {
		out[i] = strings.ToLower(ix.t.name) + "." + strings.ToLower(k)
	}
	return out
}
func (ix *primaryIndex) IsUnique() bool                             { return true }
func (ix *primaryIndex) IsSpatial() bool                            { return false }
func (ix *primaryIndex) IsFullText() bool                           { return false }
func (ix *primaryIndex) IsVector() bool                             { return false }
func (ix *primaryIndex) Comment() string                            { return "Paimon primary key" }
func (ix *primaryIndex) IndexType() string                          { return "BTREE" }
func (ix *primaryIndex) IsGenerated() bool                          { return false }
func (ix *primaryIndex) Reversible() bool                           { return false }
func (ix *primaryIndex) Order() sql.IndexOrder                      { return sql.IndexOrderNone }
func (ix *primaryIndex) PrefixLengths() []uint16                    { return nil }
func (ix *primaryIndex) CanSupportOrderBy(sql.Expression) bool      { return false }
func (ix *primaryIndex) CanSupport(*sql.Context, ...sql.Range) bool { return true }
func (ix *primaryIndex) ColumnExpressionTypes() []sql.ColumnExpressionType {
	out := make([]sql.ColumnExpressionType, len(ix.t.sch.PrimaryKeys))
	exprs := ix.Expressions()
	for i, k := range ix.t.sch.PrimaryKeys {
		out[i] = sql.ColumnExpressionType{Expression: exprs[i], Type: ix.t.full[ix.t.sch.FieldIndex(k)].Type}
	}
	return out
}
