package builtins

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// GMS v0.20.0's insert stores 0 for an out-of-range DECIMAL under INSERT
// IGNORE (rowexec/insert.go uses the type's zero value); MySQL stores the
// nearest value DECIMAL(M,D) holds, with warning 1264, and in strict mode
// fails with error 1264. clampInsert puts a projection on the rows of an
// INSERT … SELECT that does either, by destination column.
func clampInsert(ii *plan.InsertInto) (sql.Node, transform.TreeIdentity, error) {
	if _, ok := ii.Source.(*plan.Values); ok || ii.Source == nil || !ii.Source.Resolved() || !ii.Destination.Resolved() {
		return ii, transform.SameTree, nil
	}
	if p, ok := ii.Source.(*plan.Project); ok {
		for _, e := range p.Projections {
			if a, ok := e.(*expression.Alias); ok {
				e = a.Child
			}
			if _, done := e.(*insertDecimal); done {
				return ii, transform.SameTree, nil
			}
		}
	}
	dest := ii.Destination.Schema()
	src := ii.Source.Schema()
	cols := ii.ColumnNames
	if len(cols) == 0 {
		for _, c := range dest {
			cols = append(cols, c.Name)
		}
	}
	if len(cols) != len(src) {
		return ii, transform.SameTree, nil
	}
	projs := make([]sql.Expression, len(src))
	changed := false
	for i, sc := range src {
		gf := expression.NewGetFieldWithTable(i, 0, sc.Type, sc.DatabaseSource, sc.Source, sc.Name, sc.Nullable)
		projs[i] = gf
		idx := dest.IndexOfColName(cols[i])
		if idx < 0 {
			continue
		}
		if dt := decimalType(dest[idx].Type); dt != nil {
			projs[i] = expression.NewAlias(sc.Name, &insertDecimal{child: gf, typ: dt, column: dest[idx].Name, ignore: ii.Ignore})
			changed = true
		}
	}
	if !changed {
		return ii, transform.SameTree, nil
	}
	return ii.WithSource(plan.NewProject(projs, ii.Source)), transform.NewTree, nil
}

// insertDecimal checks one value bound for a DECIMAL column.
type insertDecimal struct {
	child  sql.Expression
	typ    sql.DecimalType
	column string
	ignore bool
}

func (d *insertDecimal) Resolved() bool             { return d.child.Resolved() }
func (d *insertDecimal) String() string             { return d.child.String() }
func (d *insertDecimal) Type() sql.Type             { return d.typ }
func (d *insertDecimal) IsNullable() bool           { return true }
func (d *insertDecimal) Children() []sql.Expression { return []sql.Expression{d.child} }

func (d *insertDecimal) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	nd := *d
	nd.child = children[0]
	return &nd, nil
}

func (d *insertDecimal) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	n := toNum(v, d.child.Type())
	switch n.kind {
	case kInt, kUint, kDec:
	case kFloat:
		if _, isStr := v.(string); isStr {
			return v, nil // GMS's string conversion and its errors
		}
	default:
		return v, nil
	}
	clamped, ok := clampDecimal(n.dec(), d.typ)
	if ok {
		return v, nil
	}
	if !d.ignore {
		return nil, mysql.NewSQLError(mysql.ERWarnDataOutOfRange, mysql.SSDataOutOfRange,
			"Out of range value for column '%s' at row 1", d.column)
	}
	warn(ctx, mysql.ERWarnDataOutOfRange, "Out of range value for column '%s' at row 1", d.column)
	return clamped, nil
}
