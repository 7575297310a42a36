package builtins

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// numKind is how MySQL treats a value in a numeric context.
type numKind uint8

const (
	kNone  numKind = iota // not a number (NULL, or a value left to GMS)
	kInt                  // signed integer
	kUint                 // unsigned integer
	kDec                  // exact DECIMAL
	kFloat                // DOUBLE (also strings and temporals in arithmetic)
)

type num struct {
	kind numKind
	i    int64
	u    uint64
	d    decimal.Decimal
	f    float64
}

// toNum classifies v. Strings become DOUBLE from their longest numeric
// prefix (MySQL's conversion: '12abc' is 12, 'abc' is 0); DATE values become
// YYYYMMDD and DATETIME YYYYMMDDhhmmss[.ffffff], as MySQL compares them to
// numbers. typ is the expression's type (to tell a DATE from a DATETIME).
func toNum(v any, typ sql.Type) num {
	switch x := v.(type) {
	case nil:
		return num{}
	case int8:
		return num{kind: kInt, i: int64(x)}
	case int16:
		return num{kind: kInt, i: int64(x)}
	case int32:
		return num{kind: kInt, i: int64(x)}
	case int64:
		return num{kind: kInt, i: x}
	case int:
		return num{kind: kInt, i: int64(x)}
	case uint8:
		return num{kind: kInt, i: int64(x)}
	case uint16:
		return num{kind: kInt, i: int64(x)}
	case uint32:
		return num{kind: kInt, i: int64(x)}
	case uint64:
		if x <= math.MaxInt64 {
			return num{kind: kInt, i: int64(x)}
		}
		return num{kind: kUint, u: x}
	case bool:
		if x {
			return num{kind: kInt, i: 1}
		}
		return num{kind: kInt, i: 0}
	case decimal.Decimal:
		return num{kind: kDec, d: x}
	case decimal.NullDecimal:
		if !x.Valid {
			return num{}
		}
		return num{kind: kDec, d: x.Decimal}
	case float64:
		return num{kind: kFloat, f: x}
	case float32:
		return num{kind: kFloat, f: float64(x)}
	case string:
		return num{kind: kFloat, f: stringPrefixFloat(x)}
	case []byte:
		return num{kind: kFloat, f: stringPrefixFloat(string(x))}
	case time.Time:
		if typ != nil && types.IsDateType(typ) {
			return num{kind: kFloat, f: float64(x.Year()*10000 + int(x.Month())*100 + x.Day())}
		}
		f := float64(x.Year()*10000+int(x.Month())*100+x.Day())*1e6 + float64(x.Hour()*10000+x.Minute()*100+x.Second())
		return num{kind: kFloat, f: f + float64(x.Nanosecond()/1000)/1e6}
	}
	return num{}
}

// dec returns n as a decimal (kInt, kUint, kDec only).
func (n num) dec() decimal.Decimal {
	switch n.kind {
	case kInt:
		return decimal.NewFromInt(n.i)
	case kUint:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(n.u), 0)
	case kFloat:
		return decimal.NewFromFloat(n.f)
	}
	return n.d
}

// float returns n as a DOUBLE.
func (n num) float() float64 {
	switch n.kind {
	case kInt:
		return float64(n.i)
	case kUint:
		return float64(n.u)
	case kDec:
		f, _ := n.d.Float64()
		return f
	}
	return n.f
}

// stringPrefixFloat is MySQL's string-to-DOUBLE conversion: leading spaces,
// then the longest prefix that is a number; 0 when there is none.
func stringPrefixFloat(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r")
	end, seenDigit, seenDot, seenExp := 0, false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
			end = i + 1
		case (c == '+' || c == '-') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E'):
		case c == '.' && !seenDot && !seenExp:
			seenDot = true
		case (c == 'e' || c == 'E') && seenDigit && !seenExp:
			seenExp = true
		default:
			i = len(s)
		}
	}
	if !seenDigit {
		return 0
	}
	for end > 0 {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f
		}
		end--
	}
	return 0
}

// errOutOfRange is MySQL's error 1690 for an arithmetic result beyond
// BIGINT (or BIGINT UNSIGNED).
func errOutOfRange(typ string, expr fmt.Stringer) error {
	return mysql.NewSQLError(mysql.ERDataOutOfRange, mysql.SSDataOutOfRange, "%s value is out of range in '%s'", typ, expr)
}

// isInt reports whether t is an integer type (signed or unsigned).
func isInt(t sql.Type) bool { return types.IsInteger(t) }

// decimalType returns t as a DECIMAL type, or nil.
func decimalType(t sql.Type) sql.DecimalType {
	if dt, ok := t.(sql.DecimalType); ok {
		return dt
	}
	return nil
}

// warn adds a warning to the session, as MySQL does for a clamped value.
func warn(ctx *sql.Context, code int, format string, args ...any) {
	if ctx == nil || ctx.Session == nil {
		return
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: code, Message: fmt.Sprintf(format, args...)})
}
