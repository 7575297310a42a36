package kv

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// The option keys the merge engines read are package schema's (one key
// list: schema.OptMergeEngine, schema.OptSuffixAggregateFunction, ...);
// these are the pieces of the per-field keys and the sort-order values.
const (
	fieldsPrefix                        = "fields"
	fieldsSeparator                     = ","
	optSequenceFieldSortOrderAscending  = "ascending"
	optSequenceFieldSortOrderDescending = "descending"
)

// FieldAggOption returns the key fields.<field>.<suffix>, for example
// FieldAggOption("price", "aggregate-function").
func FieldAggOption(field, suffix string) string {
	return fieldsPrefix + "." + field + "." + suffix
}

// opts reads a raw option map with Java's conversion rules.
type opts map[string]string

func (o opts) boolean(key string) (bool, error) {
	v, ok := o[key]
	if !ok {
		return false, nil
	}
	return parseBool(key, v)
}

func parseBool(key, v string) (bool, error) {
	switch strings.ToUpper(v) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("%w: %s: unrecognized option for boolean: %s. Expected either true or false(case insensitive)", ErrInvalidOption, key, v)
}

// ignoreDelete reads ignore-delete and its fallback keys.
func (o opts) ignoreDelete() (bool, error) {
	if v, ok := o[schema.OptIgnoreDelete]; ok {
		return parseBool(schema.OptIgnoreDelete, v)
	}
	for _, k := range schema.IgnoreDeleteFallbackKeys {
		if v, ok := o[k]; ok {
			return parseBool(k, v)
		}
	}
	return false, nil
}

func (o opts) mergeEngine() (schema.MergeEngine, error) {
	v, ok := o[schema.OptMergeEngine]
	if !ok {
		return schema.MergeEngineDeduplicate, nil
	}
	for _, e := range schema.MergeEngines {
		if strings.EqualFold(v, string(e)) {
			return e, nil
		}
	}
	return "", fmt.Errorf("%w: %s: could not parse %q, expected one of deduplicate, partial-update, aggregation, first-row", ErrInvalidOption, schema.OptMergeEngine, v)
}

// javaSplit mirrors String.split with a literal separator: trailing empty
// strings are dropped, nothing is trimmed.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// MergeOptions are the merge-related options of a table, parsed once.
type MergeOptions struct {
	Engine schema.MergeEngine
	// IgnoreDelete is ignore-delete (or one of its fallback keys).
	IgnoreDelete bool
	// SequenceFields are the value field indexes named by sequence.field,
	// empty when it is not set.
	SequenceFields []int
	// SequenceAscending is sequence.field.sort-order == ascending.
	SequenceAscending bool
}

// ParseMergeOptions reads merge-engine, ignore-delete (with fallback keys),
// sequence.field and sequence.field.sort-order.
func ParseMergeOptions(options map[string]string, fields []schema.DataField) (MergeOptions, error) {
	o := opts(options)
	var m MergeOptions
	var err error
	if m.Engine, err = o.mergeEngine(); err != nil {
		return m, err
	}
	if m.IgnoreDelete, err = o.ignoreDelete(); err != nil {
		return m, err
	}
	if v, ok := o[schema.OptSequenceField]; ok {
		for _, name := range javaSplit(v, fieldsSeparator) {
			i := fieldIndex(fields, name)
			if i < 0 {
				return m, fmt.Errorf("%w: %s: field %s can not be found in table schema", ErrInvalidOption, schema.OptSequenceField, name)
			}
			m.SequenceFields = append(m.SequenceFields, i)
		}
	}
	m.SequenceAscending = true
	if v, ok := o[schema.OptSequenceFieldSortOrder]; ok {
		switch {
		case strings.EqualFold(v, optSequenceFieldSortOrderAscending):
		case strings.EqualFold(v, optSequenceFieldSortOrderDescending):
			m.SequenceAscending = false
		default:
			return m, fmt.Errorf("%w: %s: could not parse %q, expected ascending or descending", ErrInvalidOption, schema.OptSequenceFieldSortOrder, v)
		}
	}
	return m, nil
}

func fieldIndex(fields []schema.DataField, name string) int {
	return slices.IndexFunc(fields, func(f schema.DataField) bool { return f.Name == name })
}

func fieldTypes(fields []schema.DataField) []schema.DataType {
	ts := make([]schema.DataType, len(fields))
	for i := range fields {
		ts[i] = fields[i].Type
	}
	return ts
}

func fieldNullables(fields []schema.DataField) []bool {
	ns := make([]bool, len(fields))
	for i := range fields {
		ns[i] = fields[i].Type.Nullable
	}
	return ns
}
