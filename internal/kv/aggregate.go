package kv

import (
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/internal/schema"
)

// aggregateConfig is the parsed configuration of the aggregation engine.
type aggregateConfig struct {
	fields               []schema.DataField
	nullables            []bool
	aggFuncs             []string
	removeRecordOnDelete bool
	opts                 opts
}

// aggregateAggFuncName mirrors AggregateMergeFunction.getAggFuncName.
func aggregateAggFuncName(o opts, field string, primaryKeys, seqFields []string) string {
	if slices.Contains(seqFields, field) {
		return AggLastValue
	}
	if slices.Contains(primaryKeys, field) {
		return AggPrimaryKey
	}
	if fn, ok := o[FieldAggOption(field, schema.OptSuffixAggregateFunction)]; ok {
		return fn
	}
	if fn, ok := o[schema.OptFieldsDefaultAggregateFunction]; ok {
		return fn
	}
	return AggLastNonNullValue
}

func newAggregateConfig(o opts, fields []schema.DataField, primaryKeys []string, seqFields []int) (*aggregateConfig, error) {
	c := &aggregateConfig{fields: fields, nullables: fieldNullables(fields), aggFuncs: make([]string, len(fields)), opts: o}
	var err error
	if c.removeRecordOnDelete, err = o.boolean(schema.OptAggregationRemoveRecordOnDelete); err != nil {
		return nil, err
	}
	seqNames := make([]string, len(seqFields))
	for i, f := range seqFields {
		seqNames[i] = fields[f].Name
	}
	for i := range fields {
		fn := aggregateAggFuncName(o, fields[i].Name, primaryKeys, seqNames)
		if _, err := newFieldAggregator(fn, &fields[i], o); err != nil {
			return nil, err
		}
		c.aggFuncs[i] = fn
	}
	return c, nil
}

func (c *aggregateConfig) newMergeFunction() (*AggregateMergeFunction, error) {
	m := &AggregateMergeFunction{cfg: c, aggs: make([]fieldAggregator, len(c.fields)), row: make([]any, len(c.fields))}
	for i, fn := range c.aggFuncs {
		a, err := newFieldAggregator(fn, &c.fields[i], c.opts)
		if err != nil {
			return nil, err
		}
		m.aggs[i] = a
	}
	return m, nil
}

// AggregateMergeFunction mirrors aggregate.AggregateMergeFunction: every
// field is folded by its aggregate function; retract records call the
// functions' retract (an error for functions that do not support it, unless
// fields.<f>.ignore-retract). With aggregation.remove-record-on-delete a -D
// resets the row and makes the result -D (until a later insert).
//
// The result row is a buffer owned by the merge function (see MergeFunction).
type AggregateMergeFunction struct {
	cfg              *aggregateConfig
	aggs             []fieldAggregator
	latest           KeyValue
	has              bool
	row              []any
	currentDeleteRow bool
}

var _ MergeFunction = (*AggregateMergeFunction)(nil)

// Reset implements MergeFunction.
func (m *AggregateMergeFunction) Reset() {
	m.latest, m.has = KeyValue{}, false
	clear(m.row)
	for _, a := range m.aggs {
		a.reset()
	}
	m.currentDeleteRow = false
}

// Add implements MergeFunction.
func (m *AggregateMergeFunction) Add(kv KeyValue) error {
	if len(kv.Value) != len(m.row) {
		return fmt.Errorf("%w: value row has %d fields, want %d", ErrCorrupt, len(kv.Value), len(m.row))
	}
	m.latest, m.has = kv, true
	m.currentDeleteRow = m.cfg.removeRecordOnDelete && kv.Kind == Delete
	if m.currentDeleteRow {
		clear(m.row)
		for i, v := range kv.Value {
			if !m.cfg.nullables[i] {
				if v == nil {
					return fmt.Errorf("%w: field %d can not be null", ErrNullField, i)
				}
				m.row[i] = v
			}
		}
		return nil
	}
	retract := !kv.Kind.IsAdd()
	for i, a := range m.aggs {
		var r any
		var err error
		if retract {
			r, err = a.retract(m.row[i], kv.Value[i])
		} else {
			r, err = a.agg(m.row[i], kv.Value[i])
		}
		if err != nil {
			return err
		}
		m.row[i] = r
	}
	return nil
}

// Result implements MergeFunction.
func (m *AggregateMergeFunction) Result() (KeyValue, bool, error) {
	if !m.has {
		return KeyValue{}, false, nil
	}
	kind := Insert
	if m.currentDeleteRow {
		kind = Delete
	}
	return KeyValue{Key: m.latest.Key, Seq: m.latest.Seq, Kind: kind, Value: m.row, Level: -1}, true, nil
}
