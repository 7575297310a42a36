package kv

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// collectAgg mirrors FieldCollectAgg: it concatenates arrays, optionally
// keeping only distinct elements; retraction removes one matching element per
// retracted element.
//
// Difference from Java: with distinct on an array of atomic elements Java
// collects into a HashSet, so its element order is the hash order; lakesql
// keeps the first-seen order. The set of elements is the same.
type collectAgg struct {
	aggBase
	distinct bool
}

func (a collectAgg) aggReversed(acc, in any) (any, error) { return a.agg(acc, in) }

func (a collectAgg) agg(acc, in any) (any, error) {
	if acc == nil && in == nil {
		return nil, nil
	}
	if (acc == nil || in == nil) && !a.distinct {
		if acc == nil {
			return in, nil
		}
		return acc, nil
	}
	x, ok1 := acc.([]any)
	y, ok2 := in.([]any)
	if (acc != nil && !ok1) || (in != nil && !ok2) {
		return nil, fmt.Errorf("field %s: %s: %w", a.field, a.fn, wrongType(schema.TypeArray, acc, in))
	}
	out := make([]any, 0, len(x)+len(y))
	if !a.distinct {
		out = append(out, x...)
		return append(out, y...), nil
	}
	for _, list := range [2][]any{x, y} {
		for _, e := range list {
			if !containsValue(out, e) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func containsValue(list []any, v any) bool {
	for _, e := range list {
		if valuesEqual(e, v) {
			return true
		}
	}
	return false
}

func (a collectAgg) retract(acc, in any) (any, error) {
	if acc == nil {
		return nil, nil
	}
	if in == nil {
		return acc, nil
	}
	x, ok1 := acc.([]any)
	y, ok2 := in.([]any)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("field %s: %s: %w", a.field, a.fn, wrongType(schema.TypeArray, acc, in))
	}
	if len(y) == 0 {
		return acc, nil
	}
	pending := append([]any(nil), y...)
	out := make([]any, 0, len(x))
	for _, e := range x {
		matched := false
		for i, r := range pending {
			if valuesEqual(r, e) {
				pending = append(pending[:i], pending[i+1:]...)
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, e)
		}
	}
	return out, nil
}

// mergeMapAgg mirrors FieldMergeMapAgg: newer entries replace older ones of
// the same key; retraction removes the retracted keys.
//
// Difference from Java: Java builds a HashMap, so its entry order is the hash
// order; lakesql keeps first-seen key order. The entries are the same.
type mergeMapAgg struct{ aggBase }

func (a mergeMapAgg) asMaps(acc, in any) (schema.Map, schema.Map, error) {
	x, ok1 := acc.(schema.Map)
	y, ok2 := in.(schema.Map)
	if !ok1 || !ok2 || len(x.Keys) != len(x.Values) || len(y.Keys) != len(y.Values) {
		return x, y, fmt.Errorf("field %s: %s: %w", a.field, a.fn, wrongType(schema.TypeMap, acc, in))
	}
	return x, y, nil
}

func (a mergeMapAgg) agg(acc, in any) (any, error) {
	if acc == nil {
		return in, nil
	}
	if in == nil {
		return acc, nil
	}
	x, y, err := a.asMaps(acc, in)
	if err != nil {
		return nil, err
	}
	out := schema.Map{Keys: make([]any, 0, len(x.Keys)+len(y.Keys)), Values: make([]any, 0, len(x.Keys)+len(y.Keys))}
	for _, m := range [2]schema.Map{x, y} {
		for i, k := range m.Keys {
			if j := indexOfValue(out.Keys, k); j >= 0 {
				out.Values[j] = m.Values[i]
			} else {
				out.Keys = append(out.Keys, k)
				out.Values = append(out.Values, m.Values[i])
			}
		}
	}
	return out, nil
}

func indexOfValue(list []any, v any) int {
	for i, e := range list {
		if valuesEqual(e, v) {
			return i
		}
	}
	return -1
}

func (a mergeMapAgg) retract(acc, in any) (any, error) {
	if acc == nil {
		return nil, nil
	}
	if in == nil {
		return acc, nil
	}
	x, y, err := a.asMaps(acc, in)
	if err != nil {
		return nil, err
	}
	if len(y.Keys) == 0 {
		return acc, nil
	}
	out := schema.Map{Keys: []any{}, Values: []any{}}
	for i, k := range x.Keys {
		if indexOfValue(y.Keys, k) >= 0 {
			continue
		}
		if j := indexOfValue(out.Keys, k); j >= 0 {
			out.Values[j] = x.Values[i]
			continue
		}
		out.Keys = append(out.Keys, k)
		out.Values = append(out.Values, x.Values[i])
	}
	return out, nil
}
