package provider

import (
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// The PRIMARY index of a primary-key table, over the longest prefix of the
// primary key whose column types compare exactly (indexKeyType). Lookups
// through it become a scan predicate: partition pruning (partition keys are
// part of the primary key), key-range pruning by file statistics, and row
// filtering. Rows do not come back in key order (buckets interleave), so the
// index reports IndexOrderNone and GMS keeps any ORDER BY.
//
// A lookup must return exactly the rows whose key satisfies the ranges: in a
// lookup join GMS drops the join condition the key came from. So a range
// with a NULL key matches nothing, a bound is never dropped (one that does
// not convert is an error, not a wider scan), and bounds between two column
// values are narrowed to the column's values (columnBound). LookupKeyRule
// makes the keys of lookup joins exact before they reach the index.
type primaryIndex struct {
	t    *Table
	cols []int // field indexes of the index columns, a prefix of the primary key
}

var (
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.OrderedIndex          = (*primaryIndex)(nil)
	_ sql.IndexedTable          = (*indexedTable)(nil)
)

// GetIndexes implements sql.IndexAddressable.
func (t *Table) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	var cols []int
	for _, k := range t.sch.PrimaryKeys {
		idx := t.sch.FieldIndex(k)
		if idx < 0 || !indexKeyType(&t.sch.Fields[idx].Type) {
			break
		}
		cols = append(cols, idx)
	}
	if len(cols) == 0 {
		return nil, nil
	}
	return []sql.Index{&primaryIndex{t: t, cols: cols}}, nil
}

// IndexedAccess implements sql.IndexAddressable. The lookup applies per
// LookupPartitions call: lookup joins hand each outer row's ranges there.
func (t *Table) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	return &indexedTable{Table: t.copy()}
}

// PreciseMatch implements sql.IndexAddressable: GMS keeps evaluating the
// filters the lookup came from (not in lookup joins: see primaryIndex).
func (t *Table) PreciseMatch() bool { return false }

// noRows is the predicate of a lookup that matches nothing.
var noRows = lsmread.Or{}

// addLookup adds the lookup's ranges to the scan predicate.
func (t *Table) addLookup(lookup sql.IndexLookup) error {
	p, err := t.lookupPredicate(lookup)
	if err != nil {
		return err
	}
	if p == nil {
		// One range covers every row: there is nothing to push.
		t.filterExprs = append(append([]sql.Expression(nil), t.filterExprs...), pruneNoteText("index lookup: every row"))
		return nil
	}
	if t.filter != nil {
		p = lsmread.And{t.filter, p}
	}
	t.filter = p
	t.filterExprs = append(append([]sql.Expression(nil), t.filterExprs...), pruneNoteText("index lookup: "+lookupText(p)))
	return nil
}

// lookupPredicate is the predicate of the lookup's ranges; nil when one
// range covers every row.
func (t *Table) lookupPredicate(lookup sql.IndexLookup) (lsmread.Predicate, error) {
	pi, ok := lookup.Index.(*primaryIndex)
	if !ok {
		return nil, fmt.Errorf("provider: table %s: lookup through a foreign index %s", t.name, lookup.Index.ID())
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return nil, fmt.Errorf("provider: table %s: unsupported lookup ranges %T", t.name, lookup.Ranges)
	}
	var or lsmread.Or
	for _, r := range ranges {
		and, empty, err := t.rangePredicate(pi, r)
		if err != nil {
			return nil, err
		}
		if empty {
			continue
		}
		if len(and) == 0 {
			return nil, nil
		}
		or = append(or, and)
	}
	switch len(or) {
	case 0:
		return noRows, nil
	case 1:
		return or[0], nil
	}
	if in, ok := t.pointsAsIn(or); ok {
		return in, nil // a long IN list: one leaf, tested by hash
	}
	return or, nil
}

// pointsAsIn turns ranges that are each one value of the same column into
// one IN leaf.
func (t *Table) pointsAsIn(or lsmread.Or) (lsmread.Predicate, bool) {
	field := -1
	lits := make([]any, 0, len(or))
	for _, r := range or {
		and, ok := r.(lsmread.And)
		if !ok || len(and) != 1 {
			return nil, false
		}
		l, ok := and[0].(lsmread.Leaf)
		if !ok || l.Op != lsmread.OpEq || len(l.Literals) != 1 || field >= 0 && l.Field != field {
			return nil, false
		}
		field = l.Field
		lits = append(lits, l.Literals[0])
	}
	f := t.sch.Fields[field]
	return lsmread.NewInLeaf(field, f.Name, f.Type, lsmread.OpIn, lits), true
}

func lookupText(p lsmread.Predicate) string {
	if or, ok := p.(lsmread.Or); ok && len(or) == 0 {
		return "no rows"
	}
	return p.String()
}

// matchesNothing reports whether p is (or conjoins) the empty disjunction.
func matchesNothing(p lsmread.Predicate) bool {
	switch p := p.(type) {
	case lsmread.Or:
		return len(p) == 0
	case lsmread.And:
		for _, c := range p {
			if matchesNothing(c) {
				return true
			}
		}
	}
	return false
}

// rangePredicate is one range's conjunction of leaves, or empty when the
// range holds no row.
func (t *Table) rangePredicate(pi *primaryIndex, r sql.MySQLRange) (lsmread.And, bool, error) {
	var and lsmread.And
	for i, ce := range r {
		if i >= len(pi.cols) {
			break
		}
		leaves, empty, err := t.rangeLeaves(pi.cols[i], ce)
		if err != nil || empty {
			return nil, empty, err
		}
		and = append(and, leaves...)
	}
	return and, false, nil
}

// rangeLeaves turns one column's range into predicate leaves, exactly.
func (t *Table) rangeLeaves(idx int, ce sql.MySQLRangeColumnExpr) ([]lsmread.Predicate, bool, error) {
	ft := &t.sch.Fields[idx].Type
	type bound struct {
		val       any
		inclusive bool
	}
	var lo, hi *bound
	var out []lsmread.Predicate
	switch lb := ce.LowerBound.(type) {
	case sql.BelowNull:
	case sql.AboveNull:
		out = append(out, t.leaf(idx, lsmread.OpIsNotNull))
	case sql.Below, sql.Above:
		key, open := cutKey(lb)
		if key == nil {
			return nil, true, nil // a NULL key matches nothing
		}
		b, err := columnBound(ft, key)
		if err != nil {
			return nil, false, fmt.Errorf("table %s column %s: %w", t.name, t.sch.Fields[idx].Name, err)
		}
		switch {
		case b.exact:
			lo = &bound{b.val, !open}
		case b.ceil != nil:
			lo = &bound{b.ceil, true}
		default:
			return nil, true, nil // above the column's largest value
		}
	case sql.AboveAll:
		return nil, true, nil
	default:
		return nil, false, fmt.Errorf("provider: table %s: unsupported range bound %T", t.name, lb)
	}
	switch ub := ce.UpperBound.(type) {
	case sql.AboveAll:
	case sql.AboveNull:
		if _, ok := ce.LowerBound.(sql.BelowNull); !ok {
			return nil, true, nil
		}
		out = append(out, t.leaf(idx, lsmread.OpIsNull))
	case sql.Below, sql.Above:
		key, open := cutKey(ub)
		open = !open // Below{k} as an upper bound is x < k
		if key == nil {
			return nil, true, nil
		}
		b, err := columnBound(ft, key)
		if err != nil {
			return nil, false, fmt.Errorf("table %s column %s: %w", t.name, t.sch.Fields[idx].Name, err)
		}
		switch {
		case b.exact:
			hi = &bound{b.val, !open}
		case b.floor != nil:
			hi = &bound{b.floor, true}
		default:
			return nil, true, nil // below the column's smallest value
		}
	case sql.BelowNull:
		return nil, true, nil
	default:
		return nil, false, fmt.Errorf("provider: table %s: unsupported range bound %T", t.name, ub)
	}
	add := func(op lsmread.Op, v any) {
		l := t.leaf(idx, op)
		l.Literals = []any{v}
		out = append(out, l)
	}
	if lo != nil && hi != nil {
		switch c := schema.Compare(ft, lo.val, hi.val); {
		case c > 0:
			return nil, true, nil
		case c == 0:
			if !lo.inclusive || !hi.inclusive {
				return nil, true, nil
			}
			add(lsmread.OpEq, lo.val)
			return out, false, nil
		}
	}
	if lo != nil {
		if lo.inclusive {
			add(lsmread.OpGtEq, lo.val)
		} else {
			add(lsmread.OpGt, lo.val)
		}
	}
	if hi != nil {
		if hi.inclusive {
			add(lsmread.OpLtEq, hi.val)
		} else {
			add(lsmread.OpLt, hi.val)
		}
	}
	return out, false, nil
}

// cutKey returns a key cut's key and whether the cut lies above it (Above).
func cutKey(c sql.MySQLRangeCut) (any, bool) {
	switch c := c.(type) {
	case sql.Below:
		return c.Key, false
	case sql.Above:
		return c.Key, true
	}
	return nil, false
}

// indexedTable is a table read through its PRIMARY index. The probes of a
// lookup join call LookupPartitions once per outer row: the table is
// planned once (the statement's snapshot, schema and live files), and each
// probe narrows that plan to its key (lsmread.Plan.Narrow: the key's
// partition and bucket, the files whose key range holds it) and reads it
// through the lookup files.
type indexedTable struct {
	*Table
	mu     sync.Mutex
	base   *lsmread.Plan
	reader *lsmread.Reader
}

// Filters implements sql.FilteredTable for an index lookup: the pushed
// filters and the pruning note, without the sorted-run note of a full scan
// (GMS v0.20.0 prints what Filters returns in place of the lookup's
// ranges, so nothing is returned without pushed filters).
func (it *indexedTable) Filters() []sql.Expression {
	if len(it.filterExprs) == 0 {
		return nil
	}
	return it.filtersWithNotes(false)
}

// LookupPartitions implements sql.IndexedTable: it reads the lookup's
// ranges.
func (it *indexedTable) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	if it.pending(ctx) != nil {
		// The transaction's own writes: the overlay merges them.
		c := it.Table.copy()
		if err := c.addLookup(lookup); err != nil {
			return nil, err
		}
		if matchesNothing(c.filter) {
			return sql.PartitionsToPartitionIter(), nil
		}
		return c.Partitions(ctx)
	}
	pred, err := it.lookupPredicate(lookup)
	if err != nil {
		return nil, err
	}
	if pred != nil && matchesNothing(pred) {
		return sql.PartitionsToPartitionIter(), nil
	}
	base, reader, err := it.basePlan(ctx)
	if err != nil {
		return nil, err
	}
	if pred == nil {
		return sql.PartitionsToPartitionIter(scanPartition{plan: base, reader: reader}), nil
	}
	np, err := base.Narrow(ctx, pred)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", it.name, err))
	}
	r, err := reader.ForPlan(np)
	if err != nil {
		return nil, mapError(err)
	}
	return sql.PartitionsToPartitionIter(scanPartition{plan: np, reader: r}), nil
}

// basePlan plans the table once for all probes.
func (it *indexedTable) basePlan(ctx *sql.Context) (*lsmread.Plan, *lsmread.Reader, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.base != nil {
		return it.base, it.reader, nil
	}
	spec := it.scanSpec()
	spec.TimeZone = sessionZone(ctx)
	p, err := it.lt.Plan(ctx, spec)
	if err != nil {
		return nil, nil, mapError(fmt.Errorf("table %s: %w", it.name, err))
	}
	r, err := p.NewReader()
	if err != nil {
		return nil, nil, mapError(err)
	}
	it.noteRead(ctx, p)
	noteScan(ctx, p)
	it.base, it.reader = p, r
	return p, r, nil
}

func (ix *primaryIndex) ID() string       { return "PRIMARY" }
func (ix *primaryIndex) Database() string { return ix.t.db.name }
func (ix *primaryIndex) Table() string    { return ix.t.name }
func (ix *primaryIndex) Expressions() []string {
	out := make([]string, len(ix.cols))
	for i, f := range ix.cols {
		out[i] = strings.ToLower(ix.t.name) + "." + strings.ToLower(ix.t.sch.Fields[f].Name)
	}
	return out
}

// IsUnique implements sql.Index: the index spans the whole primary key.
func (ix *primaryIndex) IsUnique() bool   { return len(ix.cols) == len(ix.t.sch.PrimaryKeys) }
func (ix *primaryIndex) IsSpatial() bool  { return false }
func (ix *primaryIndex) IsFullText() bool { return false }
func (ix *primaryIndex) IsVector() bool   { return false }

// Comment implements sql.Index: empty, as MySQL's PRIMARY index without a
// COMMENT (SHOW KEYS Comment and Index_comment, information_schema.STATISTICS
// INDEX_COMMENT are all empty).
func (ix *primaryIndex) Comment() string { return "" }

func (ix *primaryIndex) IndexType() string                          { return "BTREE" }
func (ix *primaryIndex) IsGenerated() bool                          { return false }
func (ix *primaryIndex) Reversible() bool                           { return false }
func (ix *primaryIndex) Order() sql.IndexOrder                      { return sql.IndexOrderNone }
func (ix *primaryIndex) PrefixLengths() []uint16                    { return nil }
func (ix *primaryIndex) CanSupportOrderBy(sql.Expression) bool      { return false }
func (ix *primaryIndex) CanSupport(*sql.Context, ...sql.Range) bool { return true }
func (ix *primaryIndex) ColumnExpressionTypes() []sql.ColumnExpressionType {
	out := make([]sql.ColumnExpressionType, len(ix.cols))
	exprs := ix.Expressions()
	for i, f := range ix.cols {
		out[i] = sql.ColumnExpressionType{Expression: exprs[i], Type: lookupKeyType(&ix.t.sch.Fields[f].Type, ix.t.full[f].Type)}
	}
	return out
}
