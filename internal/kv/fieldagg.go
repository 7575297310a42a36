package kv

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// fieldAggregator mirrors org.apache.paimon.mergetree.compact.aggregate.FieldAggregator:
// one per column and merge function instance (some keep per-key state).
type fieldAggregator interface {
	// agg folds a newer input into the accumulator.
	agg(acc, in any) (any, error)
	// retract removes a retracted input (-U/-D) from the accumulator.
	retract(acc, in any) (any, error)
	// reset clears per-key state.
	reset()
}

// reverser is implemented by aggregators that override Java's default
// aggReversed (which is agg with the arguments swapped).
type reverser interface {
	aggReversed(acc, in any) (any, error)
}

// aggReversed folds an input older than the accumulator (partial-update
// sequence groups), mirroring FieldAggregator.aggReversed.
func aggReversed(f fieldAggregator, acc, in any) (any, error) {
	if r, ok := f.(reverser); ok {
		return r.aggReversed(acc, in)
	}
	return f.agg(in, acc)
}

// Aggregate function names (the identifiers of Java's FieldAggregatorFactory
// implementations in Paimon 1.3).
const (
	AggSum                    = "sum"
	AggProduct                = "product"
	AggMax                    = "max"
	AggMin                    = "min"
	AggLastValue              = "last_value"
	AggLastNonNullValue       = "last_non_null_value"
	AggFirstValue             = "first_value"
	AggFirstNonNullValue      = "first_non_null_value"
	AggFirstNotNullValue      = "first_not_null_value" // legacy name of first_non_null_value
	AggListAgg                = "listagg"
	AggBoolAnd                = "bool_and"
	AggBoolOr                 = "bool_or"
	AggCollect                = "collect"
	AggMergeMap               = "merge_map"
	AggPrimaryKey             = "primary-key"
	aggNestedUpdate           = "nested_update"
	aggRoaringBitmap32        = "rbm32"
	aggRoaringBitmap64        = "rbm64"
	aggHllSketch              = "hll_sketch"
	aggThetaSketch            = "theta_sketch"
	errMsgAggregationSpelling = "use unsupported aggregation: %s or spell aggregate function incorrectly"
)

// aggBase carries the function and field names for error messages and the
// default behaviours (no retraction, no state).
type aggBase struct {
	fn, field string
}

func (b aggBase) retract(any, any) (any, error) {
	return nil, fmt.Errorf("%w: aggregate function '%s' of field %s does not support retraction; "+
		"to ignore retraction messages configure '%s'='true'",
		ErrRetract, b.fn, b.field, FieldAggOption(b.field, schema.OptSuffixIgnoreRetract))
}

func (aggBase) reset() {}

// newFieldAggregator mirrors FieldAggregatorFactory.create.
func newFieldAggregator(fn string, field *schema.DataField, o opts) (fieldAggregator, error) {
	switch fn {
	case AggSum, AggProduct, AggMax, AggMin, AggLastValue, AggLastNonNullValue, AggFirstValue,
		AggFirstNonNullValue, AggFirstNotNullValue, AggListAgg, AggBoolAnd, AggBoolOr, AggCollect,
		AggMergeMap, AggPrimaryKey, aggNestedUpdate, aggRoaringBitmap32, aggRoaringBitmap64,
		aggHllSketch, aggThetaSketch:
	default:
		return nil, fmt.Errorf("%w: field %s: "+errMsgAggregationSpelling, ErrUnsupported, field.Name, fn)
	}
	removeOnDelete, err := o.boolean(schema.OptAggregationRemoveRecordOnDelete)
	if err != nil {
		return nil, err
	}
	ignoreRetractKey := FieldAggOption(field.Name, schema.OptSuffixIgnoreRetract)
	ignoreRetract, err := o.boolean(ignoreRetractKey)
	if err != nil {
		return nil, err
	}
	if removeOnDelete && ignoreRetract {
		return nil, fmt.Errorf("%w: %s and %s have conflicting behavior so should not be enabled at the same time",
			ErrInvalidOption, schema.OptAggregationRemoveRecordOnDelete, ignoreRetractKey)
	}
	f, err := createFieldAggregator(fn, field, o)
	if err != nil {
		return nil, err
	}
	if ignoreRetract {
		return ignoreRetractAgg{f}, nil
	}
	return f, nil
}

func createFieldAggregator(fn string, field *schema.DataField, o opts) (fieldAggregator, error) {
	t := &field.Type
	base := aggBase{fn: fn, field: field.Name}
	typeErr := func(what string) error {
		return fmt.Errorf("%w: field %s: data type for %s column must be '%s' but was '%s'",
			ErrInvalidOption, field.Name, fn, what, typeRootName(t.Root))
	}
	switch fn {
	case AggSum, AggProduct:
		if !isNumeric(t.Root) {
			return nil, typeErr("NumericType")
		}
		n := numericAgg{aggBase: base, root: t.Root, precision: t.Precision, scale: int32(t.Scale)}
		if fn == AggSum {
			return &sumAgg{n}, nil
		}
		return &productAgg{n}, nil
	case AggMax:
		return &maxMinAgg{aggBase: base, root: t.Root, max: true}, nil
	case AggMin:
		return &maxMinAgg{aggBase: base, root: t.Root}, nil
	case AggLastValue:
		return lastValueAgg{base}, nil
	case AggLastNonNullValue:
		return lastNonNullValueAgg{base}, nil
	case AggFirstValue:
		return &firstValueAgg{aggBase: base}, nil
	case AggFirstNonNullValue, AggFirstNotNullValue:
		return &firstValueAgg{aggBase: base, nonNull: true}, nil
	case AggListAgg:
		if t.Root != schema.TypeVarChar {
			return nil, typeErr("VarCharType")
		}
		delim, ok := o[FieldAggOption(field.Name, schema.OptSuffixListAggDelimiter)]
		if !ok {
			delim = schema.DefaultListAggDelimiter
		}
		return listAggAgg{aggBase: base, delimiter: delim}, nil
	case AggBoolAnd, AggBoolOr:
		if t.Root != schema.TypeBoolean {
			return nil, typeErr("BooleanType")
		}
		return boolAgg{aggBase: base, and: fn == AggBoolAnd}, nil
	case AggCollect:
		if t.Root != schema.TypeArray || t.Elem == nil {
			return nil, typeErr("Array")
		}
		distinct, err := o.boolean(FieldAggOption(field.Name, schema.OptSuffixDistinct))
		if err != nil {
			return nil, err
		}
		return collectAgg{aggBase: base, distinct: distinct}, nil
	case AggMergeMap:
		if t.Root != schema.TypeMap {
			return nil, typeErr("MAP")
		}
		return mergeMapAgg{base}, nil
	case AggPrimaryKey:
		return primaryKeyAgg{base}, nil
	}
	return nil, fmt.Errorf("%w: field %s: aggregate function %s is not supported by lakesql", ErrUnsupported, field.Name, fn)
}

func isNumeric(r schema.TypeRoot) bool {
	switch r {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt,
		schema.TypeFloat, schema.TypeDouble, schema.TypeDecimal:
		return true
	}
	return false
}

// ignoreRetractAgg mirrors FieldIgnoreRetractAgg. Like Java it does not
// forward aggReversed, so the default (swapped agg) applies.
type ignoreRetractAgg struct{ inner fieldAggregator }

func (a ignoreRetractAgg) agg(acc, in any) (any, error)    { return a.inner.agg(acc, in) }
func (a ignoreRetractAgg) retract(acc, _ any) (any, error) { return acc, nil }
func (a ignoreRetractAgg) reset()                          { a.inner.reset() }

// primaryKeyAgg mirrors FieldPrimaryKeyAgg.
type primaryKeyAgg struct{ aggBase }

func (primaryKeyAgg) agg(_, in any) (any, error)     { return in, nil }
func (primaryKeyAgg) retract(_, in any) (any, error) { return in, nil }

// lastValueAgg mirrors FieldLastValueAgg.
type lastValueAgg struct{ aggBase }

func (lastValueAgg) agg(_, in any) (any, error)    { return in, nil }
func (lastValueAgg) retract(_, _ any) (any, error) { return nil, nil }

// lastNonNullValueAgg mirrors FieldLastNonNullValueAgg.
type lastNonNullValueAgg struct{ aggBase }

func (lastNonNullValueAgg) agg(acc, in any) (any, error) {
	if in == nil {
		return acc, nil
	}
	return in, nil
}

func (lastNonNullValueAgg) retract(acc, in any) (any, error) {
	if in != nil {
		return nil, nil
	}
	return acc, nil
}

// firstValueAgg mirrors FieldFirstValueAgg and, with nonNull,
// FieldFirstNonNullValueAgg. Neither supports retraction.
type firstValueAgg struct {
	aggBase
	nonNull     bool
	initialized bool
}

func (a *firstValueAgg) agg(acc, in any) (any, error) {
	if !a.initialized && (!a.nonNull || in != nil) {
		a.initialized = true
		return in, nil
	}
	return acc, nil
}

func (a *firstValueAgg) reset() { a.initialized = false }

// maxMinAgg mirrors FieldMaxAgg and FieldMinAgg (no retraction).
type maxMinAgg struct {
	aggBase
	root schema.TypeRoot
	max  bool
}

func (a *maxMinAgg) agg(acc, in any) (any, error) {
	if acc == nil {
		return in, nil
	}
	if in == nil {
		return acc, nil
	}
	c, err := compareForMinMax(a.root, acc, in)
	if err != nil {
		return nil, fmt.Errorf("field %s: %s: %w", a.field, a.fn, err)
	}
	if (c < 0) == a.max {
		return in, nil
	}
	return acc, nil
}

// boolAgg mirrors FieldBoolAndAgg and FieldBoolOrAgg (no retraction).
type boolAgg struct {
	aggBase
	and bool
}

func (a boolAgg) agg(acc, in any) (any, error) {
	if acc == nil {
		return in, nil
	}
	if in == nil {
		return acc, nil
	}
	x, ok1 := acc.(bool)
	y, ok2 := in.(bool)
	if !ok1 || !ok2 {
		return nil, wrongType(schema.TypeBoolean, acc, in)
	}
	if a.and {
		return x && y, nil
	}
	return x || y, nil
}

// listAggAgg mirrors FieldListaggAgg of Paimon 1.3: plain concatenation with
// the delimiter (the distinct option and blank skipping came in later
// releases), no retraction.
type listAggAgg struct {
	aggBase
	delimiter string
}

func (a listAggAgg) agg(acc, in any) (any, error) {
	if acc == nil {
		return in, nil
	}
	if in == nil {
		return acc, nil
	}
	x, ok1 := acc.(string)
	y, ok2 := in.(string)
	if !ok1 || !ok2 {
		return nil, wrongType(schema.TypeVarChar, acc, in)
	}
	return x + a.delimiter + y, nil
}
