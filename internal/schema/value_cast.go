package schema

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Type families of DataTypeRoot, as DataTypeCasts uses them.
func isCharString(r TypeRoot) bool   { return r == TypeChar || r == TypeVarChar }
func isBinaryString(r TypeRoot) bool { return r == TypeBinary || r == TypeVarBinary }
func isIntegerNumeric(r TypeRoot) bool {
	return r == TypeTinyInt || r == TypeSmallInt || r == TypeInt || r == TypeBigInt
}
func isNumeric(r TypeRoot) bool {
	return isIntegerNumeric(r) || r == TypeFloat || r == TypeDouble || r == TypeDecimal
}
func isTimestamp(r TypeRoot) bool { return r == TypeTimestamp || r == TypeLocalZonedTimestamp }
func isDatetime(r TypeRoot) bool  { return r == TypeDate || r == TypeTime || isTimestamp(r) }
func isConstructed(r TypeRoot) bool {
	return r == TypeArray || r == TypeMap || r == TypeMultiset || r == TypeRow
}
func isPredefined(r TypeRoot) bool {
	return isCharString(r) || isBinaryString(r) || isNumeric(r) || isDatetime(r) || r == TypeBoolean
}

// SupportsCast mirrors DataTypeCasts.supportsCast: whether from can be cast
// to to, implicitly (widening, lossless) or, with allowExplicit, as SQL
// CAST does. Paimon's ALTER TABLE ... MODIFY column type accepts explicit
// casts unless disable-explicit-type-casting is set.
func SupportsCast(from, to *DataType, allowExplicit bool) bool {
	if from.Nullable && !to.Nullable && !allowExplicit {
		return false
	}
	if from.EqualIgnoreNullability(*to) {
		return true
	}
	s, t := from.Root, to.Root // same root is always an implicit cast, as in Java
	implicit, explicit := castRules(s, t)
	return implicit || (allowExplicit && explicit)
}

// castRules returns whether s → t is an implicit and an explicit cast in
// DataTypeCasts' tables.
func castRules(s, t TypeRoot) (implicit, explicit bool) {
	if s == t {
		implicit = true
	}
	switch t {
	case TypeChar:
		explicit = isPredefined(s) || isConstructed(s)
	case TypeVarChar:
		implicit = implicit || isCharString(s)
		explicit = isPredefined(s) || isConstructed(s)
	case TypeBoolean:
		explicit = isCharString(s) || isIntegerNumeric(s)
	case TypeBinary:
		explicit = isCharString(s) || s == TypeVarBinary
	case TypeVarBinary:
		implicit = implicit || isBinaryString(s)
		explicit = isCharString(s) || s == TypeBinary
	case TypeDecimal:
		implicit = implicit || isNumeric(s)
		explicit = isCharString(s) || s == TypeBoolean || isTimestamp(s)
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat:
		order := map[TypeRoot]int{TypeTinyInt: 1, TypeSmallInt: 2, TypeInt: 3, TypeBigInt: 4, TypeFloat: 5}
		if t == TypeFloat {
			implicit = implicit || isIntegerNumeric(s) || s == TypeDecimal
		} else {
			implicit = implicit || (isIntegerNumeric(s) && order[s] <= order[t])
		}
		explicit = isNumeric(s) || isCharString(s) || s == TypeBoolean || isTimestamp(s)
	case TypeDouble:
		implicit = implicit || isNumeric(s)
		explicit = isCharString(s) || s == TypeBoolean || isTimestamp(s)
	case TypeDate:
		implicit = implicit || s == TypeTimestamp
		explicit = isTimestamp(s) || isCharString(s)
	case TypeTime:
		implicit = implicit || s == TypeTimestamp
		explicit = s == TypeTime || isTimestamp(s) || isCharString(s)
	case TypeTimestamp, TypeLocalZonedTimestamp:
		implicit = implicit || isTimestamp(s)
		explicit = isDatetime(s) || isCharString(s) || isNumeric(s)
	}
	return implicit, implicit || explicit
}

// CastValue converts v of type from to type to, as Paimon's CastExecutors
// do when a column's type was changed by ALTER TABLE (reading old files
// through the new schema). It allows every cast SupportsCast(from, to,
// true) allows among atomic types, and nested types only when unchanged
// (ignoring nullability). nil stays nil. Semantics follow Java: integer
// narrowing wraps like Java's primitive casts; float → integer saturates
// (NaN → 0); decimal → integer truncates toward zero; numeric → DECIMAL
// rounds HALF_UP and yields nil when the value does not fit (Java yields
// null); string → number/boolean/date/time/timestamp parses (an error when
// the text is not valid); anything → CHAR(n)/VARCHAR(n) formats like Java
// and truncates to n characters, CHAR(n) pads with spaces; BINARY(n) pads
// with zero bytes; TIMESTAMP ↔ TIMESTAMP_LTZ keep the epoch value (the
// session zone is UTC); numbers → timestamps count epoch seconds.
// Unsupported casts return an error wrapping ErrUnsupportedCast.
func CastValue(v any, from, to *DataType) (any, error) {
	if !SupportsCast(from, to, true) || (isConstructed(from.Root) && !from.EqualIgnoreNullability(*to)) {
		return nil, fmt.Errorf("%w: %s to %s", ErrUnsupportedCast, from, to)
	}
	if v == nil {
		return nil, nil
	}
	if isConstructed(to.Root) || to.Root == TypeVariant || to.Root == TypeBlob {
		return v, nil
	}
	out, err := castAtomic(v, from, to)
	if err != nil {
		return nil, fmt.Errorf("cast %s to %s: %w", from, to, err)
	}
	return out, nil
}

func wrongGoType(v any, t *DataType) error {
	return fmt.Errorf("%w: Go value of type %T is not a %s", ErrInvalidValue, v, t)
}

// numeric views of a value: exactly one of i (integers, booleans), f
// (floats) or d (decimals) applies.
type numView struct {
	kind byte // 'i', 'f', 'd'
	i    int64
	f    float64
	d    Decimal
}

func numericOf(v any, from *DataType) (numView, error) {
	switch x := v.(type) {
	case int8:
		return numView{kind: 'i', i: int64(x)}, nil
	case int16:
		return numView{kind: 'i', i: int64(x)}, nil
	case int32:
		return numView{kind: 'i', i: int64(x)}, nil
	case int64:
		return numView{kind: 'i', i: x}, nil
	case bool:
		if x {
			return numView{kind: 'i', i: 1}, nil
		}
		return numView{kind: 'i'}, nil
	case float32:
		return numView{kind: 'f', f: float64(x)}, nil
	case float64:
		return numView{kind: 'f', f: x}, nil
	case Decimal:
		return numView{kind: 'd', d: x}, nil
	case Timestamp:
		return numView{kind: 'i', i: x.Millis / 1000}, nil // DateTimeUtils.unixTimestamp
	case string:
		s := strings.TrimSpace(x)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return numView{kind: 'i', i: i}, nil
		}
		if d, err := parseDecimalLoose(s); err == nil {
			return numView{kind: 'd', d: d}, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return numView{kind: 'f', f: f}, nil
		}
		return numView{}, fmt.Errorf("%w: %q is not a number", ErrInvalidValue, x)
	}
	return numView{}, wrongGoType(v, from)
}

func parseDecimalLoose(s string) (Decimal, error) {
	u, sc, err := parseDecimalText(s)
	if err != nil {
		return Decimal{}, err
	}
	return DecimalFromUnscaled(u, sc), nil
}

func (n numView) int64() int64 {
	switch n.kind {
	case 'f':
		switch {
		case n.f != n.f:
			return 0
		case n.f >= math.MaxInt64:
			return math.MaxInt64
		case n.f <= math.MinInt64:
			return math.MinInt64
		}
		return int64(n.f)
	case 'd':
		u := n.d.Unscaled()
		if n.d.Scale > 0 {
			u.Quo(u, BigPow10(int(n.d.Scale)))
		} else if n.d.Scale < 0 {
			u.Mul(u, BigPow10(int(-n.d.Scale)))
		}
		// BigDecimal.longValue keeps the low 64 bits.
		if u.IsInt64() {
			return u.Int64()
		}
		lo := new(big.Int).And(u, new(big.Int).SetUint64(math.MaxUint64))
		return int64(lo.Uint64())
	}
	return n.i
}

// int32Of mirrors Java's (int) cast of a float (saturating at int range).
func (n numView) int32() int32 {
	if n.kind == 'f' {
		switch {
		case n.f != n.f:
			return 0
		case n.f >= math.MaxInt32:
			return math.MaxInt32
		case n.f <= math.MinInt32:
			return math.MinInt32
		}
		return int32(n.f)
	}
	return int32(n.int64())
}

func (n numView) float64() float64 {
	switch n.kind {
	case 'f':
		return n.f
	case 'd':
		return n.d.Float64()
	}
	return float64(n.i)
}

func (n numView) decimal(p, s int) (any, error) {
	var d Decimal
	var err error
	switch n.kind {
	case 'i':
		d, err = DecimalFromInt64(n.i, 0).Rescale(p, s)
	case 'f':
		d, err = DecimalFromFloat64(n.f, p, s)
	default:
		d, err = n.d.Rescale(p, s)
	}
	if err != nil {
		return nil, nil // Java: a decimal that does not fit becomes null
	}
	return d, nil
}

func castAtomic(v any, from, to *DataType) (any, error) {
	switch to.Root {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeDecimal:
		if from.Root == TypeDate || from.Root == TypeTime {
			return nil, fmt.Errorf("%w: %s to %s", ErrUnsupportedCast, from, to)
		}
		n, err := numericOf(v, from)
		if err != nil {
			return nil, err
		}
		switch to.Root {
		case TypeTinyInt:
			if n.kind == 'f' {
				return int8(n.int32()), nil
			}
			return int8(n.int64()), nil
		case TypeSmallInt:
			if n.kind == 'f' {
				return int16(n.int32()), nil
			}
			return int16(n.int64()), nil
		case TypeInt:
			if n.kind == 'f' {
				return n.int32(), nil
			}
			return int32(n.int64()), nil
		case TypeBigInt:
			return n.int64(), nil
		case TypeFloat:
			return float32(n.float64()), nil
		case TypeDouble:
			return n.float64(), nil
		default:
			return n.decimal(to.Precision, to.Scale)
		}
	case TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "t", "true", "y", "yes", "1":
				return true, nil
			case "f", "false", "n", "no", "0":
				return false, nil
			}
			return nil, fmt.Errorf("%w: %q is not a boolean", ErrInvalidValue, x)
		}
		n, err := numericOf(v, from)
		if err != nil {
			return nil, err
		}
		return n.int64() != 0, nil
	case TypeChar, TypeVarChar:
		s, err := valueToString(v, from)
		if err != nil {
			return nil, err
		}
		return fitString(s, to), nil
	case TypeBinary, TypeVarBinary:
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		case string:
			b = []byte(x)
		default:
			return nil, wrongGoType(v, from)
		}
		if len(b) > to.Length {
			b = b[:to.Length]
		}
		if to.Root == TypeBinary && len(b) < to.Length {
			p := make([]byte, to.Length)
			copy(p, b)
			b = p
		}
		return b, nil
	case TypeDate:
		switch x := v.(type) {
		case Date:
			return x, nil
		case Timestamp:
			return Date(FloorDiv(x.Millis, millisPerDay)), nil
		case string:
			if d, err := ParseDate(x); err == nil {
				return d, nil
			}
			ts, err := ParseTimestamp(x)
			if err != nil {
				return nil, err
			}
			return Date(FloorDiv(ts.Millis, millisPerDay)), nil
		case int32:
			return Date(x), nil
		}
		return nil, wrongGoType(v, from)
	case TypeTime:
		switch x := v.(type) {
		case Time:
			return x, nil
		case Timestamp:
			return Time(FloorMod(x.Millis, millisPerDay)), nil
		case string:
			if t, err := ParseTime(x); err == nil {
				return t, nil
			}
			ts, err := ParseTimestamp(x)
			if err != nil {
				return nil, err
			}
			return Time(FloorMod(ts.Millis, millisPerDay)), nil
		case int32:
			return Time(x), nil
		}
		return nil, wrongGoType(v, from)
	case TypeTimestamp, TypeLocalZonedTimestamp:
		switch x := v.(type) {
		case Timestamp:
			return x.Truncate(to.Precision), nil
		case Date:
			return Timestamp{Millis: int64(x) * millisPerDay}, nil
		case Time:
			return Timestamp{Millis: int64(x)}, nil
		case string:
			ts, err := ParseTimestamp(x)
			if err != nil {
				return nil, err
			}
			return ts.Truncate(to.Precision), nil
		}
		n, err := numericOf(v, from)
		if err != nil {
			return nil, err
		}
		switch n.kind {
		case 'i':
			return Timestamp{Millis: n.i * 1000}, nil
		case 'f':
			return TimestampFromEpochNanos(int64(n.f * 1e9)).Truncate(to.Precision), nil
		default:
			d := n.d.setScale(3)
			return Timestamp{Millis: d.Unscaled().Int64()}, nil
		}
	}
	return nil, fmt.Errorf("%w: %s to %s", ErrUnsupportedCast, from, to)
}

// fitString truncates to the type's length in characters; CHAR pads with spaces.
func fitString(s string, to *DataType) string {
	n := utf8.RuneCountInString(s)
	if n > to.Length {
		i := 0
		for k := 0; k < to.Length; k++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		return s[:i]
	}
	if to.Root == TypeChar && n < to.Length {
		return s + strings.Repeat(" ", to.Length-n)
	}
	return s
}

// valueToString formats an atomic value like Paimon's casts to STRING.
func valueToString(v any, from *DataType) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int8:
		return strconv.FormatInt(int64(x), 10), nil
	case int16:
		return strconv.FormatInt(int64(x), 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float32:
		return JavaFloatString(x), nil
	case float64:
		return JavaDoubleString(x), nil
	case Decimal:
		return x.String(), nil
	case []byte:
		return string(x), nil
	case Date:
		return x.String(), nil
	case Time:
		return formatTimeForCast(x, from.Precision), nil
	case Timestamp:
		return FormatTimestamp(x, from.Precision), nil
	}
	return "", wrongGoType(v, from)
}

func formatTimeForCast(t Time, precision int) string {
	ms := FloorMod(int64(t), millisPerDay)
	b := appendPad(nil, ms/3_600_000, 2)
	b = append(b, ':')
	b = appendPad(b, ms/60_000%60, 2)
	b = append(b, ':')
	b = appendPad(b, ms/1000%60, 2)
	if precision > 0 {
		frac := appendPad(nil, ms%1000, 3)
		if precision < 3 {
			frac = frac[:precision]
		}
		b = append(b, '.')
		b = append(b, frac...)
	}
	return string(b)
}

// JavaDoubleString formats like java.lang.Double.toString (shortest
// round-trip digits): "1.0", "0.001", "1.0E7", "1.234E-5", "NaN", "Infinity".
func JavaDoubleString(f float64) string { return javaFloatingString(f, 64) }

// JavaFloatString formats like java.lang.Float.toString.
func JavaFloatString(f float32) string { return javaFloatingString(float64(f), 32) }

func javaFloatingString(f float64, bits int) string {
	switch {
	case f != f:
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
