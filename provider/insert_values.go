package provider

import (
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
)

// INSERT … VALUES of literals into a Paimon table through a Loader (the
// sqlengine's direct INSERT node, sqlengine/insertvalues.go): each row
// arrives as the values GMS's plan gives the table's columns (the
// literals, the column defaults) before the INSERT path's checks. A value
// whose outcome is certain goes straight to the Paimon value — an integer
// literal in range of a signed integer column, a DECIMAL literal that fits
// the column without rounding, a number with an exponent for a DOUBLE,
// text the LOAD DATA fast path takes for a string, DATE or DATETIME
// column —; every other value takes the INSERT path's steps, those of
// LOAD DATA's slow path (strict check, nullability, GMS's conversion, the
// value model), so errors and warnings are those of GMS's path.

// InsertDirectVar is the switch of the direct INSERT … VALUES path
// (session and global, default ON); OFF sends every INSERT through GMS's
// INSERT path (same rows, errors and warnings; tests compare the two).
const InsertDirectVar = "lakesql_insert_direct"

var installInsertDirectVar sync.Once

// InstallInsertDirectVariable registers lakesql_insert_direct.
func InstallInsertDirectVariable() {
	installInsertDirectVar.Do(func() {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{switchVariable(InsertDirectVar)})
	})
}

// InsertDirect reports whether the session inserts literal VALUES
// through a Loader.
func InsertDirect(ctx *sql.Context) bool { return switchOn(ctx, InsertDirectVar) }

// insertedRows counts the rows ValuesRow buffered (InsertedRows).
var insertedRows atomic.Int64

// InsertedRows is the number of rows INSERT … VALUES wrote through the
// direct path since the process started (tests use it to see the path
// was taken).
func InsertedRows() int64 { return insertedRows.Load() }

// ValuesRow converts one row of an INSERT … VALUES and buffers it in the
// statement's transaction: row holds, in the table's column order, the
// value GMS's plan gives each column before the INSERT path.
func (l *Loader) ValuesRow(ctx *sql.Context, row sql.Row) error {
	l.rows++
	l.values = true
	out := make([]any, len(l.cols))
	anySlow := false
	for i := range l.cols {
		c := &l.cols[i]
		l.slow[i] = false
		if v, ok := c.fastValue(row[i]); ok {
			out[i] = v
			l.gms[i] = nil
			continue
		}
		l.slow[i] = true
		anySlow = true
		v := row[i]
		if s, ok := v.(string); ok && c.strict {
			// As the strict rule's check (strictValue): canonical
			// DATE/DATETIME text is read once into its time.
			if tm, ok := canonicalDatetime(c.col.Type, s); ok {
				v = tm
			}
		}
		l.gms[i] = v
	}
	return l.add(ctx, out, anySlow)
}

// fastValue converts a literal's GMS value on the column's fast path; ok
// is false when the value needs the INSERT path's steps.
func (c *loadCol) fastValue(v any) (any, bool) {
	switch c.kind {
	case loadInt:
		var i int64
		switch x := v.(type) {
		case int8:
			i = int64(x)
		case int16:
			i = int64(x)
		case int32:
			i = int64(x)
		case int64:
			i = x
		default:
			return nil, false
		}
		if i < c.lo || i > c.hi {
			return nil, false
		}
		return c.intValue(i), true
	case loadDecimal:
		d, ok := v.(decimal.Decimal)
		if !ok {
			return nil, false
		}
		u, ok := decimalUnscaled(d, c.prec, c.scale)
		if !ok {
			return nil, false
		}
		return schema.DecimalFromInt64(u, c.scale), true
	case loadDouble:
		f, ok := v.(float64)
		return f, ok
	case loadString, loadDate, loadDatetime:
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		return c.fast(s)
	}
	return nil, false
}

// decimalUnscaled is d as an unscaled value at scale when it has at most
// scale fraction digits and fits precision (≤ 18) digits.
func decimalUnscaled(d decimal.Decimal, precision, scale int) (int64, bool) {
	exp := int(d.Exponent())
	if exp > 0 || -exp > scale {
		return 0, false
	}
	co := d.Coefficient()
	if !co.IsInt64() {
		return 0, false
	}
	u := co.Int64()
	limit := pow10[precision]
	for k := -exp; k < scale; k++ {
		if u >= limit || u <= -limit {
			return 0, false
		}
		u *= 10
	}
	if u >= limit || u <= -limit {
		return 0, false
	}
	return u, true
}

// pow10[n] is 10ⁿ (n ≤ 18).
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// HasPrimaryKey: table is a Paimon table with a primary key.
func HasPrimaryKey(table sql.Table) bool {
	t, ok := sql.GetUnderlyingTable(table).(*Table)
	return ok && len(t.sch.PrimaryKeys) > 0
}

// IsStrictCheck: e is the strict rule's check around a value (strict.go).
func IsStrictCheck(e sql.Expression) bool {
	s, ok := e.(*strictValue)
	return ok && s.col != nil
}
