package provider

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
)

// LookupKeyRuleID identifies LookupKeyRule.
const LookupKeyRuleID analyzer.RuleId = 1001

// LookupKeyRule is a post-analysis rule that makes the keys of index lookups
// into lakesql tables exact. GMS v0.20.0 plans a lookup join by removing the
// equality the key came from (whatever the index's PreciseMatch says) and
// converts each outer row's key to the index column's type, replacing a
// value that does not convert with the type's zero, so with a probe of
// another type the join would match the wrong rows (a string probe into a
// BIGINT key looked up 0; an out-of-range BIGINT into an INT key the
// clamped maximum). Per key part the rule either
//
//   - keeps the key, when the probe's type is the column's;
//   - wraps it in a lookupKey, which converts the probe the way the
//     comparison compares the two types, to the column's one equal value or
//     to NULL when no column value can be equal (a NULL key matches
//     nothing); or
//   - refuses the key part, when one probe value can equal many column
//     values (a number against a string key) or the comparison's conversion
//     is not one lakesql reproduces exactly (a string against a number or a
//     date key): the lookup keeps only the key parts before it and the
//     equality goes back into the join condition, so GMS evaluates it on
//     every row the (shorter, possibly full-range) lookup returns.
func LookupKeyRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return fixLookups(ctx, node)
}

// fixLookups walks the plan top-down, so a lookup join's condition can take
// back the equalities its lookup refuses.
func fixLookups(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	same := transform.SameTree
	switch x := n.(type) {
	case *plan.JoinNode:
		if x.Op.IsLookup() {
			nn, changed, err := fixLookupJoin(ctx, x)
			if err != nil {
				return nil, transform.SameTree, err
			}
			if changed {
				n, same = nn, transform.NewTree
			}
		}
	case *plan.IndexedTableAccess:
		// Not under a lookup join (the join's own lookups were fixed on
		// the way down): GMS kept the filters, so refused key parts only
		// shorten the lookup.
		ita, _, changed, err := fixLookupKeys(ctx, x, nil)
		if err != nil {
			return nil, transform.SameTree, err
		}
		if changed {
			return ita, transform.NewTree, nil
		}
		return n, same, nil
	}
	children := n.Children()
	if len(children) == 0 {
		return n, same, nil
	}
	var newChildren []sql.Node
	for i, c := range children {
		nc, s, err := fixLookups(ctx, c)
		if err != nil {
			return nil, transform.SameTree, err
		}
		if s == transform.NewTree {
			if newChildren == nil {
				newChildren = append([]sql.Node(nil), children...)
			}
			newChildren[i] = nc
		}
	}
	if newChildren == nil {
		return n, same, nil
	}
	nn, err := n.WithChildren(newChildren...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return nn, transform.NewTree, nil
}

// fixLookupJoin fixes the lookup on the right of a lookup join and adds the
// equalities it refused to the join condition.
func fixLookupJoin(ctx *sql.Context, j *plan.JoinNode) (sql.Node, bool, error) {
	var path []sql.Node
	n := j.Right()
	for {
		if _, ok := n.(*plan.IndexedTableAccess); ok {
			break
		}
		switch n.(type) {
		case *plan.TableAlias, *plan.Project, *plan.Filter, *plan.Distinct, *plan.OrderedDistinct, *plan.Sort, *plan.Limit:
			path = append(path, n)
			n = n.Children()[0]
			continue
		}
		return j, false, nil // not a lookup into a lakesql table
	}
	var alias *plan.TableAlias
	for _, p := range path {
		if ta, ok := p.(*plan.TableAlias); ok {
			alias = ta
		}
	}
	ita, refused, changed, err := fixLookupKeys(ctx, n.(*plan.IndexedTableAccess), alias)
	if err != nil || !changed {
		return j, false, err
	}
	var right sql.Node = ita
	for i := len(path) - 1; i >= 0; i-- {
		if right, err = path[i].WithChildren(right); err != nil {
			return nil, false, err
		}
	}
	cond := j.Filter
	for _, e := range refused {
		if cond == nil || isTrue(cond) {
			cond = e
		} else {
			cond = expression.NewAnd(cond, e)
		}
	}
	nj, err := j.WithChildren(j.Left(), right)
	if err != nil {
		return nil, false, err
	}
	jn := *nj.(*plan.JoinNode)
	jn.Filter = cond
	return &jn, true, nil
}

func isTrue(e sql.Expression) bool {
	l, ok := e.(*expression.Literal)
	if !ok {
		return false
	}
	b, ok := l.Value().(bool)
	return ok && b
}

// fixLookupKeys returns ita with exact keys and the equalities of the key
// parts it refused (probe = column, the column read through alias when the
// table is aliased).
func fixLookupKeys(ctx *sql.Context, ita *plan.IndexedTableAccess, alias *plan.TableAlias) (*plan.IndexedTableAccess, []sql.Expression, bool, error) {
	if ita.Typ != plan.ItaTypeLookup {
		return ita, nil, false, nil
	}
	pi, ok := ita.Index().(*primaryIndex)
	if !ok {
		return ita, nil, false, nil
	}
	t := pi.t
	keys := ita.Expressions()
	out := make([]sql.Expression, 0, len(keys))
	changed := false
	refuse := len(keys)
	for i, k := range keys {
		if i >= len(pi.cols) {
			refuse = i
			break
		}
		if _, ok := k.(*lookupKey); ok {
			out = append(out, k)
			continue
		}
		f := pi.cols[i]
		switch probeClass(k.Type(), &t.sch.Fields[f].Type, t.full[f].Type) {
		case probeSame:
			out = append(out, k)
		case probeConvert:
			out = append(out, newLookupKey(k, &t.sch.Fields[f].Type, t.full[f].Type))
			changed = true
		default:
			refuse = i
		}
		if refuse < len(keys) {
			break
		}
	}
	if refuse == len(keys) {
		if !changed {
			return ita, nil, false, nil
		}
		n, err := ita.WithExpressions(out...)
		if err != nil {
			return nil, nil, false, err
		}
		return n.(*plan.IndexedTableAccess), nil, true, nil
	}
	// Refused from key part refuse on: a shorter lookup, and the equalities
	// back in the condition.
	var id sql.TableId
	var cols sql.ColSet
	tableName := t.name
	if alias != nil {
		id, cols, tableName = alias.Id(), alias.Columns(), alias.Name()
	} else {
		id, cols = ita.Id(), ita.Columns()
	}
	first, ok := cols.Next(1)
	if !ok {
		return nil, nil, false, fmt.Errorf("provider: lookup into %s: the table has no column ids", t.name)
	}
	var refused []sql.Expression
	for i := refuse; i < len(keys); i++ {
		f := pi.cols[i]
		c := t.full[f]
		gf := expression.NewGetFieldWithTable(int(first)+f, int(id), c.Type, t.db.name, tableName, c.Name, c.Nullable)
		refused = append(refused, expression.NewEquals(keys[i], gf))
	}
	mask := make([]bool, refuse)
	if nm := ita.NullMask(); len(nm) >= refuse {
		copy(mask, nm)
	}
	n, err := plan.NewIndexedAccessForTableNode(ctx, ita.TableNode, plan.NewLookupBuilder(pi, out[:refuse], mask))
	if err != nil {
		return nil, nil, false, err
	}
	return n, refused, true, nil
}

type probeKind uint8

const (
	probeRefuse probeKind = iota
	probeSame
	probeConvert
)

// probeClass decides how a probe of type pt looks up a key column of type
// ft (GMS type ct). It follows the type GMS and MySQL compare the two in:
// signed integers as integers, a DECIMAL with a number as DECIMAL, a float
// with a number as DOUBLE, dates and datetimes as DATETIME, strings of one
// collation as strings.
func probeClass(pt sql.Type, ft *schema.DataType, ct sql.Type) probeKind {
	if types.TypesEqual(pt, ct) {
		return probeSame
	}
	if pt == types.Null {
		return probeConvert
	}
	number := types.IsInteger(pt) || types.IsDecimal(pt) || types.IsFloat(pt)
	switch ft.Root {
	case schema.TypeBoolean, schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt, schema.TypeDecimal:
		if number {
			return probeConvert
		}
	case schema.TypeVarChar:
		ps, ok1 := pt.(sql.StringType)
		cs, ok2 := ct.(sql.StringType)
		if ok1 && ok2 && types.IsTextOnly(pt) && ps.Collation() == cs.Collation() {
			return probeConvert
		}
	case schema.TypeDate, schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		if types.IsTime(pt) {
			return probeConvert
		}
	}
	return probeRefuse
}

// lookupKey converts a lookup join's probe to the key column's one equal
// value in the index's key type (lookupKeyType), or to NULL when no value of
// the column can be equal to it.
type lookupKey struct {
	probe sql.Expression
	ft    *schema.DataType
	typ   sql.Type // lookupKeyType of the column
}

var _ sql.Expression = (*lookupKey)(nil)

func newLookupKey(probe sql.Expression, ft *schema.DataType, ct sql.Type) *lookupKey {
	return &lookupKey{probe: probe, ft: ft, typ: lookupKeyType(ft, ct)}
}

func (k *lookupKey) Resolved() bool             { return k.probe.Resolved() }
func (k *lookupKey) String() string             { return fmt.Sprintf("lookup_key(%s AS %s)", k.probe, k.ft) }
func (k *lookupKey) Type() sql.Type             { return k.typ }
func (k *lookupKey) IsNullable() bool           { return true }
func (k *lookupKey) Children() []sql.Expression { return []sql.Expression{k.probe} }

func (k *lookupKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &lookupKey{probe: children[0], ft: k.ft, typ: k.typ}, nil
}

// Eval implements sql.Expression.
func (k *lookupKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.probe.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return nil, err
	}
	return probeValue(k.ft, v)
}

// probeValue is the key value equal to v, or nil when none is.
func probeValue(ft *schema.DataType, v any) (any, error) {
	switch ft.Root {
	case schema.TypeBoolean, schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
		lo, hi := intRange(ft.Root)
		if ft.Root == schema.TypeBoolean {
			lo, hi = 0, 1
		}
		b, err := intBound(schema.TypeBigInt, v, lo, hi)
		if err != nil || !b.exact {
			return nil, err
		}
		return b.val, nil
	case schema.TypeDecimal:
		d, ok := toDecimal(v)
		if !ok {
			return nil, fmt.Errorf("provider: lookup key %v (%T) is not a number", v, v)
		}
		// Finer than the column's scale or wider than its precision: no
		// column value is equal.
		if !d.Round(int32(ft.Scale)).Equal(d) {
			return nil, nil
		}
		if d.Abs().GreaterThanOrEqual(decimal.New(1, int32(ft.Precision-ft.Scale))) {
			return nil, nil
		}
		return d, nil
	case schema.TypeVarChar:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x)
		default:
			return nil, fmt.Errorf("provider: lookup key %v (%T) is not a string", v, v)
		}
		if ft.Length > 0 && ft.Length < schema.MaxLength && utf8.RuneCountInString(s) > ft.Length {
			return nil, nil
		}
		return s, nil
	case schema.TypeDate:
		tm, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("provider: lookup key %v (%T) is not a date", v, v)
		}
		tm = tm.UTC()
		if tm.Hour() != 0 || tm.Minute() != 0 || tm.Second() != 0 || tm.Nanosecond() != 0 {
			return nil, nil
		}
		return tm, nil
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		tm, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("provider: lookup key %v (%T) is not a datetime", v, v)
		}
		return tm.UTC(), nil
	}
	return nil, fmt.Errorf("provider: no lookup key of type %s", ft)
}
