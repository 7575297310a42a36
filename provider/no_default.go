package provider

import (
	"fmt"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// A NOT NULL column without a default that an INSERT, INSERT … SELECT or
// LOAD DATA leaves out of its column list. MySQL 8.0 fails the statement
// in strict mode with 1364 (HY000) "Field 'c' doesn't have a default
// value" (GMS's sql.ErrInsertIntoNonNullableDefaultNullColumn, mapped in
// errors.go), naming the first such column, before any row: the strict
// rule (strict.go) fails it when it plans the statement, also an
// INSERT … SELECT whose SELECT returns no rows (GMS alone checks each row). Under IGNORE, LOAD DATA LOCAL (IGNORE as GMS plans it) or a
// sql_mode without STRICT_TRANS_TABLES/STRICT_ALL_TABLES/TRADITIONAL it
// stores the type's implicit default (0, '', …) with one Warning 1364 per
// column and statement; GMS's path would answer IGNORE with a Note 1048 per
// row and fail in non-strict mode.

// implicitDefaults says a left-out column without a default takes its
// implicit default (with a warning) rather than failing the statement.
func implicitDefaults(ctx *sql.Context, ignore bool) bool {
	if ignore {
		return true
	}
	m := sql.LoadSqlMode(ctx)
	return !m.ModeEnabled("STRICT_TRANS_TABLES") && !m.ModeEnabled("STRICT_ALL_TABLES") && !m.ModeEnabled("TRADITIONAL")
}

// warnNoDefault adds MySQL's Warning 1364 for column name.
func warnNoDefault(ctx *sql.Context, name string) {
	if ctx.Session != nil {
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERNoDefaultForField, Message: sql.ErrInsertIntoNonNullableDefaultNullColumn.New(name).Error()})
	}
}

// implicitDefault is the value of a left-out column without a default
// where implicitDefaults holds: the type's zero, warning once per
// statement.
type implicitDefault struct {
	col *sql.Column
	// warned is 1 + the Pid of the last statement that warned.
	warned atomic.Uint64
}

var _ sql.Expression = (*implicitDefault)(nil)

func (d *implicitDefault) Resolved() bool             { return true }
func (d *implicitDefault) String() string             { return fmt.Sprintf("implicit default of %s", d.col.Name) }
func (d *implicitDefault) Type() sql.Type             { return d.col.Type }
func (d *implicitDefault) IsNullable() bool           { return false }
func (d *implicitDefault) Children() []sql.Expression { return nil }
func (d *implicitDefault) Eval(ctx *sql.Context, _ sql.Row) (any, error) {
	if pid := ctx.Pid() + 1; d.warned.Swap(pid) != pid {
		warnNoDefault(ctx, d.col.Name)
	}
	return d.col.Type.Zero(), nil
}

func (d *implicitDefault) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 0)
	}
	return d, nil
}

// hasImplicitDefault says e already holds an implicitDefault (the rule ran).
func hasImplicitDefault(e sql.Expression) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		_, ok := e.(*implicitDefault)
		return ok
	})
}
