package kv

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// MergeFunctionFactory builds the merge functions of one table, mirroring
// Java's MergeFunctionFactory created by PrimaryKeyTableUtils. It parses and
// validates the options once (errors come from NewMergeFunctionFactory, the
// way Java fails when the table is opened) and then creates one fresh,
// independent MergeFunction per reader or compaction.
//
// A factory is immutable and safe for concurrent use; the merge functions it
// creates are not.
type MergeFunctionFactory struct {
	options MergeOptions
	seqCmp  Comparator
	pu      *partialUpdateConfig
	agg     *aggregateConfig
}

// NewMergeFunctionFactory parses the merge options of a primary-key table.
// options is the table's option map, fields its value fields (all columns, in
// schema order; the Value of every KeyValue follows them) and primaryKeys the
// full primary key names (including partition columns, as Java passes
// TableSchema.primaryKeys()).
//
// Options read: merge-engine, ignore-delete (and fallback keys
// first-row.ignore-delete, deduplicate.ignore-delete,
// partial-update.ignore-delete), sequence.field, sequence.field.sort-order,
// partial-update.remove-record-on-delete,
// partial-update.remove-record-on-sequence-group,
// fields.<f[,f2]>.sequence-group, fields.<f>.aggregate-function,
// fields.default-aggregate-function, fields.<f>.ignore-retract,
// fields.<f>.list-agg-delimiter, fields.<f>.distinct and
// aggregation.remove-record-on-delete.
func NewMergeFunctionFactory(options map[string]string, fields []schema.DataField, primaryKeys []string) (*MergeFunctionFactory, error) {
	o := opts(options)
	mo, err := ParseMergeOptions(options, fields)
	if err != nil {
		return nil, err
	}
	f := &MergeFunctionFactory{options: mo}
	if len(mo.SequenceFields) > 0 {
		if f.seqCmp, err = NewFieldsComparator(mo.SequenceFields, fieldTypes(fields), mo.SequenceAscending); err != nil {
			return nil, fmt.Errorf("%s: %w", schema.OptSequenceField, err)
		}
	}
	for _, pk := range primaryKeys {
		if fieldIndex(fields, pk) < 0 {
			return nil, fmt.Errorf("%w: primary key %s can not be found in table schema", ErrInvalidOption, pk)
		}
	}
	switch mo.Engine {
	case schema.MergeEnginePartialUpdate:
		if f.pu, err = newPartialUpdateConfig(o, fields, primaryKeys); err != nil {
			return nil, err
		}
	case schema.MergeEngineAggregation:
		if f.agg, err = newAggregateConfig(o, fields, primaryKeys, mo.SequenceFields); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Options returns the parsed general merge options.
func (f *MergeFunctionFactory) Options() MergeOptions { return f.options }

// Engine returns the table's merge engine.
func (f *MergeFunctionFactory) Engine() schema.MergeEngine { return f.options.Engine }

// SequenceComparator returns the comparator of value rows by sequence.field
// (honouring sequence.field.sort-order) to pass to NewSortMergeReader, or nil
// when sequence.field is not set.
func (f *MergeFunctionFactory) SequenceComparator() Comparator { return f.seqCmp }

// New returns a fresh merge function of the table's engine. Wrap it with
// NewReducer for batch reads, compaction and write-buffer flushes, as Java
// does.
func (f *MergeFunctionFactory) New() MergeFunction {
	switch f.options.Engine {
	case schema.MergeEnginePartialUpdate:
		m, err := f.pu.newMergeFunction()
		if err != nil {
			// Every aggregator was built once by NewMergeFunctionFactory.
			return errMergeFunction{err}
		}
		return m
	case schema.MergeEngineAggregation:
		m, err := f.agg.newMergeFunction()
		if err != nil {
			return errMergeFunction{err}
		}
		return m
	case schema.MergeEngineFirstRow:
		return NewFirstRowMergeFunction(f.options.IgnoreDelete)
	}
	return NewDeduplicateMergeFunction(f.options.IgnoreDelete)
}

// NewLookup returns the merge function of lookup compaction: New wrapped in a
// LookupMergeFunction, except for first-row, which Java leaves unwrapped.
func (f *MergeFunctionFactory) NewLookup() MergeFunction {
	if f.options.Engine == schema.MergeEngineFirstRow {
		return f.New()
	}
	return NewLookupMergeFunction(f.New())
}

// NewReader returns the Java read path for one section: the runs merged by
// key with the table's sequence comparator and a reducer-wrapped merge
// function. keyCmp orders the trimmed primary keys (see NewKeyComparator).
func (f *MergeFunctionFactory) NewReader(runs []RecordReader, keyCmp Comparator) *SortMergeReader {
	return NewSortMergeReader(runs, keyCmp, f.seqCmp, NewReducer(f.New()))
}

// NewLookupReader is NewReader with the merge function of NewLookup: Java
// wraps the table's merge function factory in LookupMergeFunction when the
// table needs lookup (CoreOptions.needLookup: changelog-producer=lookup,
// force-lookup, deletion vectors, first-row), for reads as well as for
// compaction. A lookup compaction into a middle level writes the key's
// merged state (its level-0 records merged with the deeper record it looked
// up), so reading must take only the lowest level above 0 and level 0, or an
// aggregation counts the deeper levels twice.
func (f *MergeFunctionFactory) NewLookupReader(runs []RecordReader, keyCmp Comparator) *SortMergeReader {
	return NewSortMergeReader(runs, keyCmp, f.seqCmp, NewReducer(f.NewLookup()))
}

// errMergeFunction reports a construction error on first use; it cannot
// occur for a factory built by NewMergeFunctionFactory.
type errMergeFunction struct{ err error }

func (e errMergeFunction) Reset()                          {}
func (e errMergeFunction) Add(KeyValue) error              { return e.err }
func (e errMergeFunction) Result() (KeyValue, bool, error) { return KeyValue{}, false, e.err }
