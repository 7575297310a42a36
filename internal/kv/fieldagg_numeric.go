package kv

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// numericAgg holds what sum and product need to do arithmetic on one column.
// Integer arithmetic wraps on overflow exactly like Java's (byte), (short),
// int and long arithmetic; FLOAT is single-precision IEEE; DECIMAL follows
// decimal.go (NULL on precision overflow, like Java).
type numericAgg struct {
	aggBase
	root      schema.TypeRoot
	precision int
	scale     int32
}

func (a *numericAgg) typeErr(vals ...any) error {
	return fmt.Errorf("field %s: %s: %w", a.field, a.fn, wrongType(a.root, vals...))
}

type arithOp uint8

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv
)

func intOp[T int8 | int16 | int32 | int64](op arithOp, x, y T) (T, error) {
	switch op {
	case opAdd:
		return x + y, nil
	case opSub:
		return x - y, nil
	case opMul:
		return x * y, nil
	}
	if y == 0 {
		return 0, fmt.Errorf("%w: / by zero", ErrArithmetic)
	}
	return x / y, nil // MIN / -1 == MIN in Go, as in Java after the narrowing cast
}

func floatOp[T float32 | float64](op arithOp, x, y T) T {
	switch op {
	case opAdd:
		return x + y
	case opSub:
		return x - y
	case opMul:
		return x * y
	}
	return x / y
}

// arith applies op to two non-null values of the column's type.
func (a *numericAgg) arith(op arithOp, acc, in any) (any, error) {
	switch a.root {
	case schema.TypeTinyInt:
		x, ok1 := acc.(int8)
		y, ok2 := in.(int8)
		if !ok1 || !ok2 {
			return nil, a.typeErr(acc, in)
		}
		return intOp(op, x, y)
	case schema.TypeSmallInt:
		x, ok1 := acc.(int16)
		y, ok2 := in.(int16)
		if !ok1 || !ok2 {
			return nil, a.typeErr(acc, in)
		}
		return intOp(op, x, y)
	case schema.TypeInt:
		x, ok1 := acc.(int32)
		y, ok2 := in.(int32)
		if !ok1 || !ok2 {
			return nil, a.typeErr(acc, in)
		}
		return intOp(op, x, y)
	case schema.TypeBigInt:
		x, ok1 := acc.(int64)
		y, ok2 := in.(int64)
		if !ok1 || !ok2 {
			return nil, a.typeErr(acc, in)
		}
		return intOp(op, x, y)
	case schema.TypeFloat:
		x, ok1 := acc.(float32)
		y, ok2 := in.(float32)
		if !ok1 || !ok2 {
			return nil, a.typeErr(acc, in)
		}
		return floatOp(op, x, y), nil
	case schema.TypeDouble:
		x, ok1 := acc.(float64)
		y, ok2 := in.(float64)
		if !ok1 || !ok2 {
			return nil, a.typeErr(acc, in)
		}
		return floatOp(op, x, y), nil
	case schema.TypeDecimal:
		x, err1 := asDecimal(acc)
		y, err2 := asDecimal(in)
		if err1 != nil || err2 != nil {
			return nil, a.typeErr(acc, in)
		}
		switch op {
		case opAdd:
			return decAddSub(x, y, a.precision, a.scale, false), nil
		case opSub:
			return decAddSub(x, y, a.precision, a.scale, true), nil
		case opMul:
			return decMul(x, y, a.precision, a.scale), nil
		}
		return decDiv(x, y, a.precision, a.scale)
	}
	return nil, fmt.Errorf("%w: field %s: type %s not supported by %s", ErrInvalidOption, a.field, typeRootName(a.root), a.fn)
}

// negate mirrors FieldSumAgg.negative.
func (a *numericAgg) negate(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int8:
		return -x, nil
	case int16:
		return -x, nil
	case int32:
		return -x, nil
	case int64:
		return -x, nil
	case float32:
		return -x, nil
	case float64:
		return -x, nil
	case schema.Decimal:
		return decNeg(x, a.precision, a.scale), nil
	}
	return nil, a.typeErr(v)
}

// sumAgg mirrors FieldSumAgg.
type sumAgg struct{ numericAgg }

func (a *sumAgg) agg(acc, in any) (any, error) {
	if acc == nil {
		return in, nil
	}
	if in == nil {
		return acc, nil
	}
	return a.arith(opAdd, acc, in)
}

func (a *sumAgg) retract(acc, in any) (any, error) {
	if acc == nil {
		return a.negate(in)
	}
	if in == nil {
		return acc, nil
	}
	return a.arith(opSub, acc, in)
}

// productAgg mirrors FieldProductAgg; retraction divides.
type productAgg struct{ numericAgg }

func (a *productAgg) agg(acc, in any) (any, error) {
	if acc == nil {
		return in, nil
	}
	if in == nil {
		return acc, nil
	}
	return a.arith(opMul, acc, in)
}

func (a *productAgg) retract(acc, in any) (any, error) {
	if acc == nil || in == nil {
		return acc, nil
	}
	return a.arith(opDiv, acc, in)
}
