package provider

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// Strict mode for writes. lakesql reports STRICT_TRANS_TABLES, and MySQL
// then stores a value exactly or fails the statement; GMS v0.20.0 clamps an
// out-of-range UPDATE value to the column's limit, wraps an out-of-range
// integer string ('9223372036854775808' becomes -9223372036854775808),
// stores '' as 0 and answers range, length and date errors with 1105. The
// strict rule wraps every value an INSERT, REPLACE, UPDATE or ON DUPLICATE
// KEY UPDATE assigns to a column in a check that runs before GMS converts
// the value, and fails with MySQL's error:
//
//	1264 (22003) Out of range value for column 'c' at row n
//	1366 (HY000) Incorrect integer/decimal value: '…' for column 'c' at row n ('' or 'abc')
//	1265 (01000) Data truncated for column 'c' at row n ('12abc'; any non-numeric text into FLOAT/DOUBLE)
//	1406 (22001) Data too long for column 'c' at row n
//	1292 (22007) Incorrect date/datetime/time value: '…' for column 'c' at row n
//	1690 (22003) BIGINT value is out of range in '(a + b)' (integer arithmetic that overflows)
//
// INSERT IGNORE and UPDATE IGNORE store the closest valid value instead, with
// MySQL's warning (1264, 1265, 1366), as MySQL does; dates are left to GMS.
// A message quotes at most maxQuoted bytes of a value.

// StrictRuleID identifies the strict-write analyzer rule.
const StrictRuleID analyzer.RuleId = 1090

const maxQuoted = 64

var installStrict sync.Once

// InstallStrictRule adds the strict-write rule to GMS's after-all rules. It
// must run there (after resolveInsertRows puts INSERT values in table
// order), and simple INSERT … VALUES and single-table UPDATEs skip the
// post-analyze batch, so the rule goes into analyzer.OnceAfterAll, which
// every analysis runs; call it before analyzer.NewBuilder.
func InstallStrictRule() {
	installStrict.Do(func() {
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: StrictRuleID, Apply: StrictRule})
	})
}

// StrictRule wraps the values written by INSERT, REPLACE, UPDATE and ON
// DUPLICATE KEY UPDATE in strict checks (see above), and marks the
// destination of INSERT IGNORE and ON DUPLICATE KEY UPDATE for key lookups
// (markLookupInsert): the rule sees every INSERT.
func StrictRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			m, marked, err := markLookupInsert(n) // editor.go
			if err != nil {
				return nil, transform.SameTree, err
			}
			out, same, err := strictInsert(ctx, m)
			if err == nil && marked {
				same = transform.NewTree
			}
			return out, same, err
		case *plan.UpdateSource:
			exprs, changed := strictSetFields(n.UpdateExprs, n.Ignore)
			if !changed {
				return n, transform.SameTree, nil
			}
			nn := *n
			nn.UpdateExprs = exprs
			return &nn, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

func strictInsert(ctx *sql.Context, n *plan.InsertInto) (sql.Node, transform.TreeIdentity, error) {
	changed := false
	out := n
	if p, ok := n.Source.(*plan.Project); ok {
		dst := n.Destination.Schema()
		if len(p.Projections) == len(dst) {
			rows := new(atomic.Int64)
			exprs := make([]sql.Expression, len(p.Projections))
			implicit := !n.DeferredDefaults.Empty() && implicitDefaults(ctx, n.Ignore)
			if !n.DeferredDefaults.Empty() && !implicit {
				// Strict mode: the statement fails before any row, also
				// when it has none (MySQL checks when it prepares).
				for i, c := range dst {
					if n.DeferredDefaults.Contains(i) {
						return nil, transform.SameTree, sql.ErrInsertIntoNonNullableDefaultNullColumn.New(c.Name)
					}
				}
			}
			for i, e := range p.Projections {
				if implicit && n.DeferredDefaults.Contains(i) && !hasImplicitDefault(e) {
					e = &implicitDefault{col: dst[i]} // no_default.go
				}
				exprs[i] = wrapStrict(e, dst[i], rows, i == 0, n.Ignore)
				changed = changed || exprs[i] != p.Projections[i]
			}
			// INSERT … VALUES: the projections read the Values node, whose
			// tuples hold the expressions; integer arithmetic there is
			// checked for overflow (1690).
			child, same, err := transform.Node(p.Child, strictValues)
			if err != nil {
				return nil, transform.SameTree, err
			}
			if changed || same == transform.NewTree {
				np := *p
				np.Projections = exprs
				np.Child = child
				out = n.WithSource(&np)
				changed = true
			}
		}
	}
	if len(n.OnDupExprs) > 0 {
		if exprs, ok := strictSetFields(n.OnDupExprs, n.Ignore); ok {
			if out == n {
				c := *n
				out = &c
			}
			out.OnDupExprs = exprs
			changed = true
		}
	}
	if !changed {
		return n, transform.SameTree, nil
	}
	return out, transform.NewTree, nil
}

func strictValues(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	v, ok := n.(*plan.Values)
	if !ok {
		return n, transform.SameTree, nil
	}
	changed := false
	tuples := make([][]sql.Expression, len(v.ExpressionTuples))
	for i, tuple := range v.ExpressionTuples {
		tuples[i] = make([]sql.Expression, len(tuple))
		for j, e := range tuple {
			tuples[i][j] = e
			if _, ok := e.(*expression.Arithmetic); ok {
				tuples[i][j] = &strictValue{UnaryExpression: expression.UnaryExpression{Child: e}, rows: new(atomic.Int64)}
				changed = true
			}
		}
	}
	if !changed {
		return n, transform.SameTree, nil
	}
	nv := *v
	nv.ExpressionTuples = tuples
	return &nv, transform.NewTree, nil
}

func strictSetFields(in []sql.Expression, ignore bool) ([]sql.Expression, bool) {
	rows := new(atomic.Int64)
	out := make([]sql.Expression, len(in))
	changed := false
	for i, e := range in {
		out[i] = e
		sf, ok := e.(*expression.SetField)
		if !ok {
			continue
		}
		gf, ok := sf.LeftChild.(*expression.GetField)
		if !ok {
			continue
		}
		col := &sql.Column{Name: gf.Name(), Type: gf.Type(), Source: gf.Table()}
		r := wrapStrict(sf.RightChild, col, rows, i == 0, ignore)
		if r != sf.RightChild {
			out[i] = expression.NewSetField(sf.LeftChild, r)
			changed = true
		}
	}
	return out, changed
}

func wrapStrict(e sql.Expression, col *sql.Column, rows *atomic.Int64, counts, ignore bool) sql.Expression {
	if _, ok := e.(*strictValue); ok {
		return e
	}
	switch {
	case types.IsInteger(col.Type), types.IsDecimal(col.Type), types.IsFloat(col.Type),
		types.IsText(col.Type), types.IsBinaryType(col.Type), types.IsTime(col.Type), types.IsTimespan(col.Type):
		return &strictValue{UnaryExpression: expression.UnaryExpression{Child: e}, col: col, rows: rows, counts: counts, ignore: ignore}
	}
	return e
}

// strictValue passes its child's value through after checking that col can
// hold it exactly.
type strictValue struct {
	expression.UnaryExpression
	col    *sql.Column
	rows   *atomic.Int64 // rows of the statement so far, for "at row n"
	counts bool          // the first value of a row advances rows
	ignore bool          // INSERT/UPDATE IGNORE: clamp with a warning
}

var _ sql.Expression = (*strictValue)(nil)

func (e *strictValue) Type() sql.Type      { return e.Child.Type() }
func (e *strictValue) IsNullable() bool    { return e.Child.IsNullable() }
func (e *strictValue) String() string      { return e.Child.String() }
func (e *strictValue) DebugString() string { return "strict(" + sql.DebugString(e.Child) + ")" }

func (e *strictValue) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(e, len(children), 1)
	}
	c := *e
	c.Child = children[0]
	return &c, nil
}

func (e *strictValue) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, e.Child)
}

func (e *strictValue) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var n int64
	if e.counts {
		n = e.rows.Add(1)
	} else {
		n = max(e.rows.Load(), 1)
	}
	if err := checkIntArithmetic(ctx, e.Child, row); err != nil {
		return nil, err
	}
	v, err := e.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	if e.col == nil { // an arithmetic check only (strictValues)
		return v, nil
	}
	if s, ok := v.(string); ok {
		if tm, ok := canonicalDatetime(e.col.Type, s); ok {
			return tm, nil // valid: no strict check, no layout-by-layout parse in GMS
		}
	}
	return strictOrClamp(ctx, e.col, v, n, e.ignore)
}

// strictOrClamp checks v for col strictly: an error, or with ignore
// (INSERT/UPDATE IGNORE) the closest valid value and MySQL's warning.
func strictOrClamp(ctx *sql.Context, col *sql.Column, v any, n int64, ignore bool) (any, error) {
	if err := checkStrict(ctx, col, v, n); err != nil {
		if !ignore {
			return nil, err
		}
		// MySQL stores the closest valid value and warns with the error's
		// code; a value in range makes GMS's conversion add no Note of
		// its own.
		if c, ok := clampValue(col, v); ok {
			if se, isSQL := err.(*mysql.SQLError); isSQL && ctx.Session != nil {
				if se.Num == mysql.ERDataTooLong { // MySQL warns "truncated" for a cut string
					se = errTruncated(col.Name, n).(*mysql.SQLError)
				}
				ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: se.Num, Message: se.Message})
			}
			return c, nil
		}
	}
	return v, nil
}

// canonicalDatetime reads text in the canonical form of a DATE
// (YYYY-MM-DD) or DATETIME(p) column (YYYY-MM-DD HH:MM:SS[.f], at most p
// fraction digits), years 1000–9999, as the time GMS's conversion of the
// text gives; ok is false for any other text or column type. GMS parses
// such text by trying its layouts one by one, twice per value (the strict
// check and the conversion): ~9% of a multi-row INSERT's CPU.
func canonicalDatetime(t sql.Type, s string) (time.Time, bool) {
	dt, ok := t.(sql.DatetimeType)
	if !ok {
		return time.Time{}, false
	}
	switch dt.Type() {
	case sqltypes.Date:
		if len(s) != 10 {
			return time.Time{}, false
		}
	case sqltypes.Datetime:
		if len(s) < 19 || len(s) > 19 && len(s)-20 > dt.Precision() {
			return time.Time{}, false
		}
	default:
		return time.Time{}, false
	}
	tm, ok := ParseCanonicalTime(s, dt.Type() == sqltypes.Date)
	if !ok || tm.Year() < 1000 {
		return time.Time{}, false
	}
	return tm, true
}

// checkStrict reports MySQL's strict-mode error for storing v in col, or nil.
func checkStrict(ctx *sql.Context, col *sql.Column, v any, row int64) error {
	t := col.Type
	if strictFastOK(t, v) {
		return nil
	}
	return checkStrictFull(ctx, col, v, row)
}

// checkStrictFull is checkStrict without the fast path.
func checkStrictFull(ctx *sql.Context, col *sql.Column, v any, row int64) error {
	t := col.Type
	switch {
	case types.IsInteger(t):
		if _, ok := v.(bool); ok {
			return nil
		}
		d, ok, err := numericValue(v)
		if err != nil || !ok {
			return errNotNumber("integer", v, col.Name, row)
		}
		lo, hi := integerRange(t)
		if r := d.Round(0); r.LessThan(lo) || r.GreaterThan(hi) {
			return errOutOfRange(col.Name, row)
		}
	case types.IsDecimal(t):
		d, ok, err := numericValue(v)
		if err != nil || !ok {
			return errNotNumber("decimal", v, col.Name, row)
		}
		dt, isDec := t.(sql.DecimalType)
		if !isDec {
			return nil
		}
		p, s := int32(dt.Precision()), int32(dt.Scale())
		limit := decimal.New(1, p-s) // |value| < 10^(p-s) after rounding to s digits
		if d.Round(s).Abs().GreaterThanOrEqual(limit) {
			return errOutOfRange(col.Name, row)
		}
	case types.IsFloat(t):
		_, ok, err := numericValue(v)
		if err != nil || !ok {
			return errTruncated(col.Name, row)
		}
		if f, isF := v.(float64); isF && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return errOutOfRange(col.Name, row)
		}
		if f, isF := v.(float64); isF && t.Type() == sqltypes.Float32 && math.Abs(f) > math.MaxFloat32 {
			return errOutOfRange(col.Name, row)
		}
	case types.IsText(t), types.IsBinaryType(t):
		st, ok := t.(sql.StringType)
		if !ok {
			return nil
		}
		var n int64
		switch x := v.(type) {
		case string:
			if types.IsBinaryType(t) {
				n = int64(len(x))
			} else {
				n = int64(utf8.RuneCountInString(x))
			}
		case []byte:
			if types.IsBinaryType(t) {
				n = int64(len(x))
			} else {
				n = int64(utf8.RuneCount(x))
			}
		default:
			return nil
		}
		if n > st.MaxCharacterLength() {
			return mysql.NewSQLError(mysql.ERDataTooLong, mysql.SSDataTooLong, "Data too long for column '%s' at row %d", col.Name, row)
		}
	case types.IsTime(t), types.IsTimespan(t):
		switch v.(type) {
		case string, []byte:
		default:
			return nil
		}
		if _, _, err := t.Convert(ctx, v); err != nil {
			kind := "datetime"
			switch {
			case types.IsTimespan(t):
				kind = "time"
			case types.IsDateType(t):
				kind = "date"
			}
			return mysql.NewSQLError(mysql.ERTruncatedWrongValue, "22007", "Incorrect %s value: %s for column '%s' at row %d", kind, quoteValue(v), col.Name, row)
		}
	}
	return nil
}

// strictFastOK reports, without decimal arithmetic, that col can hold v
// exactly, for the common cases of LOAD DATA and INSERT: an integer value
// or plain integer text in range of an integer column, plain decimal text
// ([-+]digits[.digits]) that needs no rounding and fits a DECIMAL column.
// false means "check fully", not an error.
func strictFastOK(t sql.Type, v any) bool {
	switch {
	case types.IsInteger(t):
		lo, hi, ok := integerBounds(t)
		if !ok {
			return false
		}
		var i int64
		switch x := v.(type) {
		case int64:
			i = x
		case int32:
			i = int64(x)
		case int16:
			i = int64(x)
		case int8:
			i = int64(x)
		case string:
			neg, ip, fp, ok := plainNumber(x)
			if !ok || len(fp) > 0 || len(ip) > 18 {
				return false
			}
			for _, c := range ip {
				i = i*10 + int64(c-'0')
			}
			if neg {
				i = -i
			}
		default:
			return false
		}
		return i >= lo && i <= hi
	case types.IsDecimal(t):
		dt, ok := t.(sql.DecimalType)
		x, isStr := v.(string)
		if !ok || !isStr {
			return false
		}
		_, ip, fp, ok := plainNumber(x)
		for len(ip) > 0 && ip[0] == '0' {
			ip = ip[1:]
		}
		return ok && len(fp) <= int(dt.Scale()) && len(ip) <= int(dt.Precision())-int(dt.Scale())
	}
	return false
}

// plainNumber splits text of the form [-+]digits[.digits] (at least one
// digit before the point, none of MySQL's spaces or exponents); ok is
// false for any other text.
func plainNumber(s string) (neg bool, intPart, fracPart string, ok bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return false, "", "", false
	}
	intPart, s = s[:i], s[i:]
	if s == "" {
		return neg, intPart, "", true
	}
	if s[0] != '.' {
		return false, "", "", false
	}
	s = s[1:]
	if s == "" {
		return false, "", "", false
	}
	for j := 0; j < len(s); j++ {
		if s[j] < '0' || s[j] > '9' {
			return false, "", "", false
		}
	}
	return neg, intPart, s, true
}

// integerBounds is integerRange as int64s; ok is false for BIGINT
// UNSIGNED, whose upper half int64 cannot hold (it takes the full check).
func integerBounds(t sql.Type) (lo, hi int64, ok bool) {
	switch t.Type() {
	case types.Int8.Type():
		return math.MinInt8, math.MaxInt8, true
	case types.Int16.Type():
		return math.MinInt16, math.MaxInt16, true
	case types.Int24.Type():
		return -1 << 23, 1<<23 - 1, true
	case types.Int32.Type():
		return math.MinInt32, math.MaxInt32, true
	case types.Int64.Type():
		return math.MinInt64, math.MaxInt64, true
	case types.Uint8.Type():
		return 0, math.MaxUint8, true
	case types.Uint16.Type():
		return 0, math.MaxUint16, true
	case types.Uint24.Type():
		return 0, 1<<24 - 1, true
	case types.Uint32.Type():
		return 0, math.MaxUint32, true
	}
	return 0, 0, false
}

func errOutOfRange(col string, row int64) error {
	return mysql.NewSQLError(mysql.ERWarnDataOutOfRange, mysql.SSDataOutOfRange, "Out of range value for column '%s' at row %d", col, row)
}

// errNotNumber is MySQL's answer to text that is not a number in an
// integer or decimal column: 1265 when it starts with one ('12abc', data
// truncated), else 1366 (the empty string, 'abc').
func errNotNumber(kind string, v any, col string, row int64) error {
	if hasNumericPrefix(v) {
		return errTruncated(col, row)
	}
	return errIncorrectValue(kind, v, col, row)
}

func errTruncated(col string, row int64) error {
	return mysql.NewSQLError(1265, "01000", "Data truncated for column '%s' at row %d", col, row)
}

func hasNumericPrefix(v any) bool {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x[:min(len(x), 64)])
	default:
		return false
	}
	s = strings.TrimLeft(s, " \t\n\r")
	s = strings.TrimLeft(s, "+-")
	if strings.HasPrefix(s, ".") {
		s = s[1:]
	}
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

func errIncorrectValue(kind string, v any, col string, row int64) error {
	return mysql.NewSQLError(mysql.ERTruncatedWrongValueForField, mysql.SSUnknownSQLState, "Incorrect %s value: %s for column '%s' at row %d", kind, quoteValue(v), col, row)
}

// quoteValue quotes at most maxQuoted bytes of v, as MySQL quotes a value
// in an error message.
func quoteValue(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		s = fmt.Sprint(x)
	}
	if len(s) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return "'" + s[:cut] + "...'"
	}
	return "'" + s + "'"
}

// numericValue reads v as a number, as MySQL reads a string in a numeric
// context in strict mode: surrounding spaces are allowed, anything else
// that is not a number is an error. ok is false for a value that is not a
// number or text.
func numericValue(v any) (decimal.Decimal, bool, error) {
	switch x := v.(type) {
	case int8:
		return decimal.NewFromInt(int64(x)), true, nil
	case int16:
		return decimal.NewFromInt(int64(x)), true, nil
	case int32:
		return decimal.NewFromInt(int64(x)), true, nil
	case int64:
		return decimal.NewFromInt(x), true, nil
	case int:
		return decimal.NewFromInt(int64(x)), true, nil
	case uint8:
		return decimal.NewFromInt(int64(x)), true, nil
	case uint16:
		return decimal.NewFromInt(int64(x)), true, nil
	case uint32:
		return decimal.NewFromInt(int64(x)), true, nil
	case uint64:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(x), 0), true, nil
	case float32:
		return floatDecimal(float64(x))
	case float64:
		return floatDecimal(x)
	case decimal.Decimal:
		return x, true, nil
	case decimal.NullDecimal:
		return x.Decimal, x.Valid, nil
	case bool:
		if x {
			return decimal.NewFromInt(1), true, nil
		}
		return decimal.Zero, true, nil
	case string:
		return parseNumber(x)
	case []byte:
		return parseNumber(string(x))
	}
	return decimal.Zero, true, nil // other types: GMS's conversion decides
}

func floatDecimal(f float64) (decimal.Decimal, bool, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return decimal.Zero, false, fmt.Errorf("not a finite number")
	}
	return decimal.NewFromFloat(f), true, nil
}

func parseNumber(s string) (decimal.Decimal, bool, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return decimal.Zero, false, fmt.Errorf("empty string")
	}
	if len(t) > 400 {
		return decimal.Zero, false, fmt.Errorf("not a number")
	}
	for _, c := range t {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return decimal.Zero, false, fmt.Errorf("not a number")
		}
	}
	d, err := decimal.NewFromString(t)
	if err != nil {
		return decimal.Zero, false, err
	}
	return d, true, nil
}

var (
	decMinInt64  = decimal.NewFromInt(math.MinInt64)
	decMaxInt64  = decimal.NewFromInt(math.MaxInt64)
	decMaxUint64 = decimal.NewFromBigInt(new(big.Int).SetUint64(math.MaxUint64), 0)
)

func integerRange(t sql.Type) (lo, hi decimal.Decimal) {
	switch t.Type() {
	case types.Int8.Type():
		return decimal.NewFromInt(math.MinInt8), decimal.NewFromInt(math.MaxInt8)
	case types.Int16.Type():
		return decimal.NewFromInt(math.MinInt16), decimal.NewFromInt(math.MaxInt16)
	case types.Int24.Type():
		return decimal.NewFromInt(-1 << 23), decimal.NewFromInt(1<<23 - 1)
	case types.Int32.Type():
		return decimal.NewFromInt(math.MinInt32), decimal.NewFromInt(math.MaxInt32)
	case types.Uint8.Type():
		return decimal.Zero, decimal.NewFromInt(math.MaxUint8)
	case types.Uint16.Type():
		return decimal.Zero, decimal.NewFromInt(math.MaxUint16)
	case types.Uint24.Type():
		return decimal.Zero, decimal.NewFromInt(1<<24 - 1)
	case types.Uint32.Type():
		return decimal.Zero, decimal.NewFromInt(math.MaxUint32)
	case types.Uint64.Type():
		return decimal.Zero, decMaxUint64
	}
	return decMinInt64, decMaxInt64
}

// checkIntArithmetic fails with 1690 when e is integer +, - or * whose exact
// result does not fit BIGINT (GMS v0.20.0 wraps it).
func checkIntArithmetic(ctx *sql.Context, e sql.Expression, row sql.Row) error {
	a, ok := e.(*expression.Arithmetic)
	if !ok {
		return nil
	}
	v, ok, err := exactIntArith(ctx, a, row)
	if err != nil || !ok {
		return nil // not integer arithmetic, or an error GMS reports itself
	}
	unsigned := types.IsUnsigned(a.LeftChild.Type()) || types.IsUnsigned(a.RightChild.Type())
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	name := "BIGINT"
	if unsigned {
		lo, hi, name = big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64), "BIGINT UNSIGNED"
	}
	if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
		return mysql.NewSQLError(mysql.ERDataOutOfRange, mysql.SSDataOutOfRange, "%s value is out of range in '%s'", name, truncate(a.String(), 200))
	}
	return nil
}

func exactIntArith(ctx *sql.Context, e sql.Expression, row sql.Row) (*big.Int, bool, error) {
	if a, ok := e.(*expression.Arithmetic); ok {
		switch a.Op {
		case "+", "-", "*":
		default:
			return nil, false, nil
		}
		l, ok, err := exactIntArith(ctx, a.LeftChild, row)
		if err != nil || !ok {
			return nil, false, err
		}
		r, ok, err := exactIntArith(ctx, a.RightChild, row)
		if err != nil || !ok {
			return nil, false, err
		}
		switch a.Op {
		case "+":
			return new(big.Int).Add(l, r), true, nil
		case "-":
			return new(big.Int).Sub(l, r), true, nil
		}
		return new(big.Int).Mul(l, r), true, nil
	}
	if !types.IsInteger(e.Type()) {
		return nil, false, nil
	}
	v, err := e.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, false, err
	}
	switch x := v.(type) {
	case int8:
		return big.NewInt(int64(x)), true, nil
	case int16:
		return big.NewInt(int64(x)), true, nil
	case int32:
		return big.NewInt(int64(x)), true, nil
	case int64:
		return big.NewInt(x), true, nil
	case int:
		return big.NewInt(int64(x)), true, nil
	case uint8:
		return big.NewInt(int64(x)), true, nil
	case uint16:
		return big.NewInt(int64(x)), true, nil
	case uint32:
		return big.NewInt(int64(x)), true, nil
	case uint64:
		return new(big.Int).SetUint64(x), true, nil
	}
	return nil, false, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

var numericPrefix = regexp.MustCompile(`^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?`)

// clampValue is the value INSERT/UPDATE IGNORE stores for v in col: an
// integer or decimal clamped to the column's range (text read up to its
// numeric prefix, else 0), text cut to the column's length. ok is false
// where GMS's own conversion decides (dates, times).
func clampValue(col *sql.Column, v any) (any, bool) {
	t := col.Type
	number := func() decimal.Decimal {
		d, ok, err := numericValue(v)
		if err == nil && ok {
			return d
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x[:min(len(x), 400)])
		}
		if m := numericPrefix.FindString(s[:min(len(s), 400)]); m != "" {
			if d, err := decimal.NewFromString(strings.TrimSpace(m)); err == nil {
				return d
			}
		}
		return decimal.Zero
	}
	switch {
	case types.IsInteger(t):
		lo, hi := integerRange(t)
		d := number().Round(0)
		if d.LessThan(lo) {
			d = lo
		}
		if d.GreaterThan(hi) {
			d = hi
		}
		if d.GreaterThan(decMaxInt64) {
			return uint64(math.MaxUint64), true
		}
		return d.IntPart(), true
	case types.IsDecimal(t):
		dt, ok := t.(sql.DecimalType)
		if !ok {
			return nil, false
		}
		p, s := int32(dt.Precision()), int32(dt.Scale())
		limit := decimal.New(1, p-s).Sub(decimal.New(1, -s))
		d := number().Round(s)
		if d.GreaterThan(limit) {
			d = limit
		}
		if d.LessThan(limit.Neg()) {
			d = limit.Neg()
		}
		return d, true
	case types.IsFloat(t):
		f, _ := number().Float64()
		return f, true
	case types.IsText(t), types.IsBinaryType(t):
		st, ok := t.(sql.StringType)
		if !ok {
			return nil, false
		}
		n := int(st.MaxCharacterLength())
		switch x := v.(type) {
		case string:
			if types.IsBinaryType(t) {
				return x[:min(len(x), n)], true
			}
			return truncateChars(x, n), true
		case []byte:
			if types.IsBinaryType(t) {
				return x[:min(len(x), n)], true
			}
			return truncateChars(string(x), n), true
		}
	}
	return nil, false
}

func truncateChars(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
