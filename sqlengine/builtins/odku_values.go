package builtins

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0 binds VALUES(col) in ON DUPLICATE KEY UPDATE only for
// INSERT … VALUES (planbuilder/scalar.go: "expected ON DUPLICATE KEY ...
// VALUES() to reference a column"), so MySQL's
//
//	INSERT INTO t (a, b) SELECT … ON DUPLICATE KEY UPDATE b = VALUES(b)
//
// fails. The parser rewrites it into the row-alias form GMS binds, which
// means the same thing (VALUES(b) is the value the row would have inserted
// into b):
//
//	INSERT INTO t (a, b) SELECT * FROM (SELECT …) AS `lakesql values` (a, b)
//	  ON DUPLICATE KEY UPDATE b = `lakesql values`.b
//
// The derived table's columns are the INSERT's column list, or the table's
// columns (ColumnsFunc) when there is none; VALUES of a table column the
// INSERT does not name is its default, NULL (Paimon columns have no other).

// valuesAlias is the derived table's name (users cannot collide with it:
// it would have to be quoted, and lakesql table names have no spaces).
const valuesAlias = "lakesql values"

// ColumnsFunc returns the column names of db.table in order (db is the
// current database when empty), or false when the table is unknown.
type ColumnsFunc func(ctx *sql.Context, db, table string) ([]string, bool)

// rewriteInsertSelectValues rewrites st in place when it is an INSERT …
// SELECT whose ON DUPLICATE KEY UPDATE uses VALUES(col).
func rewriteInsertSelectValues(ctx context.Context, st ast.Statement, columnsOf ColumnsFunc) {
	ins, ok := st.(*ast.Insert)
	if !ok || len(ins.OnDup) == 0 {
		return
	}
	sel, ok := ins.Rows.(ast.SelectStatement)
	if !ok {
		return
	}
	var refs []*ast.ValuesFuncExpr
	for _, a := range ins.OnDup {
		_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
			if v, ok := n.(*ast.ValuesFuncExpr); ok && v.Name != nil && v.Name.Qualifier.IsEmpty() {
				refs = append(refs, v)
			}
			return true, nil
		}, a.Expr)
	}
	if len(refs) == 0 {
		return
	}
	var tableCols ast.Columns
	if sctx, ok := ctx.(*sql.Context); ok && columnsOf != nil {
		if names, ok := columnsOf(sctx, ins.Table.DbQualifier.String(), ins.Table.Name.String()); ok {
			for _, n := range names {
				tableCols = append(tableCols, ast.NewColIdent(n))
			}
		}
	}
	cols := ins.Columns
	if len(cols) == 0 {
		cols = tableCols
	}
	if len(cols) == 0 {
		return
	}
	// VALUES(col) of a column the INSERT does not name is the column's
	// default, which is NULL for every Paimon column; of a column the
	// table lacks it stays an error.
	for _, v := range refs {
		if cols.FindColumn(v.Name.Name) < 0 && tableCols.FindColumn(v.Name.Name) < 0 {
			return
		}
	}
	alias := ast.NewTableIdent(valuesAlias)
	ins.Rows = &ast.Select{
		SelectExprs: ast.SelectExprs{&ast.StarExpr{}},
		From: ast.TableExprs{&ast.AliasedTableExpr{
			Expr: &ast.Subquery{Select: sel, Columns: cols},
			As:   alias,
			// A derived table: the tables inside carry their own checks.
			Auth: ast.AuthInformation{AuthType: ast.AuthType_IGNORE},
		}},
	}
	for _, a := range ins.OnDup {
		for _, v := range refs {
			var to ast.Expr = &ast.NullVal{}
			if cols.FindColumn(v.Name.Name) >= 0 {
				to = &ast.ColName{Qualifier: ast.TableName{Name: alias}, Name: v.Name.Name}
			}
			a.Expr = ast.ReplaceExpr(a.Expr, v, to)
		}
	}
}
