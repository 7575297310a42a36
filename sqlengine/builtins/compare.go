package builtins

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// MySQL compares values of different types by these rules (reference
// manual, "Type Conversion in Expression Evaluation"): a temporal value
// and a string as temporals (when the string is one), exact numbers
// (integers, DECIMAL) exactly, anything else as DOUBLE, where a string is
// its numeric prefix and a DATE is YYYYMMDD. GMS v0.20.0 converts one side
// to the other's type instead: `d = 0.005` rounds 0.005 to DECIMAL(12,2)
// 0.01, `'2024-01-01' = 2024` is false, `ts < '-3'` is an error, and a hash
// join on DECIMAL keys never matches. Comparisons where both sides have the
// same kind of type stay GMS's (and keep their index lookups).

type cmpOp uint8

const (
	cmpEQ cmpOp = iota
	cmpNullSafeEQ
	cmpLT
	cmpLE
	cmpGT
	cmpGE
)

var cmpText = [...]string{"=", "<=>", "<", "<=", ">", ">="}

// typeClass is the coarse class of a type for choosing a comparison.
type typeClass uint8

const (
	clsOther typeClass = iota
	clsInt
	clsDec
	clsFloat
	clsString
	clsTemporal
)

func classOf(t sql.Type) typeClass {
	switch {
	case types.IsInteger(t):
		return clsInt
	case decimalType(t) != nil:
		return clsDec
	case types.IsFloat(t):
		return clsFloat
	case types.IsText(t):
		return clsString
	case types.IsTime(t) || types.IsDateType(t) || types.IsDatetimeType(t) || types.IsTimestampType(t):
		if types.IsTimespan(t) {
			return clsOther
		}
		return clsTemporal
	}
	return clsOther
}

// needsMySQLCompare reports whether GMS's comparison of l and r can differ
// from MySQL's.
func needsMySQLCompare(l, r sql.Expression) bool {
	lc, rc := classOf(l.Type()), classOf(r.Type())
	if lc == clsOther || rc == clsOther || lc == rc && lc != clsDec {
		return false
	}
	if lc == clsDec && rc == clsDec {
		// A literal with no more digits than the other side converts
		// exactly; two columns (a join key) or a longer literal do not.
		if lit, ok := r.(*expression.Literal); ok {
			return decimalType(lit.Type()).Scale() > decimalType(l.Type()).Scale()
		}
		if lit, ok := l.(*expression.Literal); ok {
			return decimalType(lit.Type()).Scale() > decimalType(r.Type()).Scale()
		}
		return true
	}
	if lc == clsDec && rc == clsInt {
		_, lit := r.(*expression.Literal)
		return !lit
	}
	if rc == clsDec && lc == clsInt {
		_, lit := l.(*expression.Literal)
		return !lit
	}
	if (lc == clsInt || lc == clsFloat) && (rc == clsInt || rc == clsFloat) {
		return false
	}
	// A string literal that GMS converts exactly as MySQL does keeps GMS's
	// comparison (and the index lookups and pushdown built on it): a valid
	// date or datetime against a temporal, a plain number against a number.
	if lit, other := stringLiteral(l, r); lit != "" || other != nil {
		switch classOf(other.Type()) {
		case clsTemporal:
			if _, _, err := types.DatetimeMaxPrecision.Convert(sql.NewEmptyContext(), lit); err == nil && validDateText(lit) {
				return false
			}
		case clsInt, clsDec, clsFloat:
			if _, err := strconv.ParseFloat(strings.TrimSpace(lit), 64); err == nil && !strings.ContainsAny(lit, "eExX") {
				return classOf(other.Type()) != clsFloat && strings.Contains(lit, ".")
			}
		}
	}
	return true
}

// stringLiteral returns the value of whichever of l, r is a string
// literal, and the other side.
func stringLiteral(l, r sql.Expression) (string, sql.Expression) {
	for _, p := range [][2]sql.Expression{{l, r}, {r, l}} {
		if lit, ok := p[0].(*expression.Literal); ok && classOf(lit.Type()) == clsString {
			if s, ok := lit.Value().(string); ok {
				return s, p[1]
			}
		}
	}
	return "", nil
}

// validDateText reports whether s looks like a full date ('YYYY-MM-DD…').
func validDateText(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= 10 && s[4] == '-' && s[7] == '-'
}

// compare is a comparison with MySQL's conversions.
type compare struct {
	op   cmpOp
	l, r sql.Expression
}

var _ sql.Expression = (*compare)(nil)

func (c *compare) Resolved() bool             { return c.l.Resolved() && c.r.Resolved() }
func (c *compare) String() string             { return fmt.Sprintf("(%s %s %s)", c.l, cmpText[c.op], c.r) }
func (c *compare) Type() sql.Type             { return types.Boolean }
func (c *compare) IsNullable() bool           { return c.op != cmpNullSafeEQ }
func (c *compare) Children() []sql.Expression { return []sql.Expression{c.l, c.r} }
func (c *compare) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (c *compare) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 2)
	}
	return &compare{op: c.op, l: children[0], r: children[1]}, nil
}

func (c *compare) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := c.l.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	rv, err := c.r.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if lv == nil || rv == nil {
		if c.op == cmpNullSafeEQ {
			return lv == nil && rv == nil, nil
		}
		return nil, nil
	}
	if lv, err = sql.UnwrapAny(ctx, lv); err != nil {
		return nil, err
	}
	if rv, err = sql.UnwrapAny(ctx, rv); err != nil {
		return nil, err
	}
	cmp, err := c.compareValues(ctx, lv, rv)
	if err != nil {
		return nil, err
	}
	switch c.op {
	case cmpEQ, cmpNullSafeEQ:
		return cmp == 0, nil
	case cmpLT:
		return cmp < 0, nil
	case cmpLE:
		return cmp <= 0, nil
	case cmpGT:
		return cmp > 0, nil
	}
	return cmp >= 0, nil
}

func (c *compare) compareValues(ctx *sql.Context, lv, rv any) (int, error) {
	lt, rt := c.l.Type(), c.r.Type()
	lc, rc := classOf(lt), classOf(rt)
	// A temporal and a string: as temporals when the string is one.
	if lc == clsTemporal && rc == clsString || lc == clsString && rc == clsTemporal {
		tt := lt
		if rc == clsTemporal {
			tt = rt
		}
		if types.IsDateType(tt) {
			tt = types.DatetimeMaxPrecision // '2020-01-01 10:00' against a DATE compares the time too
		}
		l, _, lerr := tt.Convert(ctx, lv)
		r, _, rerr := tt.Convert(ctx, rv)
		if lerr == nil && rerr == nil {
			if _, ok := l.(time.Time); ok {
				if _, ok := r.(time.Time); ok {
					return tt.Compare(ctx, l, r)
				}
			}
		}
		// Not a temporal string: MySQL compares as DOUBLE (with a warning).
	}
	// A DATETIME/DATE column against a number constant: MySQL converts the
	// constant to a DATETIME (20200101 is 2020-01-01) when it is one.
	if lc == clsTemporal && (rc == clsInt || rc == clsDec) && isConst(c.r) {
		if t, ok := numberAsDatetime(rv, rt); ok {
			return types.DatetimeMaxPrecision.Compare(ctx, lv, t)
		}
	} else if rc == clsTemporal && (lc == clsInt || lc == clsDec) && isConst(c.l) {
		if t, ok := numberAsDatetime(lv, lt); ok {
			return types.DatetimeMaxPrecision.Compare(ctx, t, rv)
		}
	}
	ln, rn := toNum(lv, lt), toNum(rv, rt)
	if ln.kind == kNone || rn.kind == kNone {
		return 0, fmt.Errorf("lakesql: cannot compare %T with %T", lv, rv)
	}
	exact := func(k numKind) bool { return k == kInt || k == kUint || k == kDec }
	if exact(ln.kind) && exact(rn.kind) {
		return ln.dec().Cmp(rn.dec()), nil
	}
	lf, rf := ln.float(), rn.float()
	switch {
	case lf < rf:
		return -1, nil
	case lf > rf:
		return 1, nil
	}
	return 0, nil
}

func isConst(e sql.Expression) bool {
	_, ok := e.(*expression.Literal)
	return ok
}

// numberAsDatetime reads YYYYMMDD or YYYYMMDDhhmmss as MySQL does.
func numberAsDatetime(v any, t sql.Type) (time.Time, bool) {
	n := toNum(v, t)
	var i int64
	switch n.kind {
	case kInt:
		i = n.i
	case kDec:
		if !n.d.Equal(n.d.Truncate(0)) {
			return time.Time{}, false
		}
		i = n.d.IntPart()
	default:
		return time.Time{}, false
	}
	var y, mo, d, h, mi, s int64
	switch {
	case i >= 10000101 && i <= 99991231:
		y, mo, d = i/10000, i/100%100, i%100
	case i >= 10000101000000 && i <= 99991231235959:
		y, mo, d, h, mi, s = i/10000000000, i/100000000%100, i/1000000%100, i/10000%100, i/100%100, i%100
	default:
		return time.Time{}, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	tm := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(s), 0, time.UTC)
	if tm.Day() != int(d) {
		return time.Time{}, false
	}
	return tm, true
}
