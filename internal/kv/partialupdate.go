package kv

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// errPartialUpdateRetract is Java's message for a retract record that no
// option allows, naming the three options that do.
const errPartialUpdateRetract = "by default, partial update can not accept delete records, " +
	"you can choose one of the following solutions: " +
	"1. Configure 'ignore-delete' to ignore delete records. " +
	"2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records. " +
	"3. Configure 'sequence-group's to retract partial columns. Also configure " +
	"'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving deleted records of `specified sequence group`."

// seqGroup is one fields.<seq[,seq2]>.sequence-group definition: its
// sequence fields and their comparator (ascending, nulls first).
type seqGroup struct {
	fields []int
	cmp    Comparator
}

func (g *seqGroup) isSeqField(i int) bool { return slices.Contains(g.fields, i) }

// partialUpdateConfig is the parsed, validated configuration shared by every
// PartialUpdateMergeFunction of a table.
type partialUpdateConfig struct {
	fields               []schema.DataField
	nullables            []bool
	ignoreDelete         bool
	removeRecordOnDelete bool
	groups               []*seqGroup // per field, nil when not in a group
	aggFuncs             []string    // per field, "" when no aggregator
	partialDelete        []bool      // per field: a sequence field named by remove-record-on-sequence-group
	opts                 opts
}

// newPartialUpdateConfig mirrors PartialUpdateMergeFunction.Factory's
// constructor, including its validation and error order.
func newPartialUpdateConfig(o opts, fields []schema.DataField, primaryKeys []string) (*partialUpdateConfig, error) {
	n := len(fields)
	c := &partialUpdateConfig{
		fields:        fields,
		nullables:     fieldNullables(fields),
		groups:        make([]*seqGroup, n),
		aggFuncs:      make([]string, n),
		partialDelete: make([]bool, n),
		opts:          o,
	}
	var err error
	if c.ignoreDelete, err = o.ignoreDelete(); err != nil {
		return nil, err
	}
	if c.removeRecordOnDelete, err = o.boolean(schema.OptPartialUpdateRemoveRecordOnDelete); err != nil {
		return nil, err
	}
	removeOnSeqGroup, hasRemoveOnSeqGroup := o[schema.OptPartialUpdateRemoveRecordOnSeqGroup]

	requireField := func(name string) (int, error) {
		i := fieldIndex(fields, name)
		if i < 0 {
			return 0, fmt.Errorf("%w: field %s can not be found in table schema", ErrInvalidOption, name)
		}
		return i, nil
	}
	types := fieldTypes(fields)
	seqFieldIndex := map[string]int{}
	var allSeqFields []string
	protected := map[string]bool{}
	keys := make([]string, 0, len(o))
	for k := range o {
		if strings.HasPrefix(k, fieldsPrefix) && strings.HasSuffix(k, schema.OptSuffixSequenceGroup) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	anyGroup := false
	for _, k := range keys {
		lo, hi := len(fieldsPrefix)+1, len(k)-len(schema.OptSuffixSequenceGroup)-1
		if lo > hi {
			return nil, fmt.Errorf("%w: malformed sequence group option %q", ErrInvalidOption, k)
		}
		g := &seqGroup{}
		for _, name := range javaSplit(k[lo:hi], fieldsSeparator) {
			i, err := requireField(name)
			if err != nil {
				return nil, err
			}
			g.fields = append(g.fields, i)
		}
		if len(g.fields) == 0 {
			return nil, fmt.Errorf("%w: sequence group option %q names no sequence field", ErrInvalidOption, k)
		}
		if g.cmp, err = NewFieldsComparator(g.fields, types, true); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		for _, name := range javaSplit(o[k], fieldsSeparator) {
			i, err := requireField(name)
			if err != nil {
				return nil, err
			}
			if c.groups[i] != nil {
				return nil, fmt.Errorf("%w: field %s is defined repeatedly by multiple groups: %s", ErrInvalidOption, name, k)
			}
			c.groups[i] = g
			protected[name] = true
		}
		for _, i := range g.fields {
			allSeqFields = append(allSeqFields, fields[i].Name)
			c.groups[i] = g
			seqFieldIndex[fields[i].Name] = i
		}
		anyGroup = true
	}

	for i := range fields {
		fn, err := partialUpdateAggFuncName(o, fields[i].Name, primaryKeys, allSeqFields, protected)
		if err != nil {
			return nil, err
		}
		if fn == "" {
			continue
		}
		if _, err := newFieldAggregator(fn, &fields[i], o); err != nil {
			return nil, err
		}
		c.aggFuncs[i] = fn
	}

	conflict := func(a, b string) error {
		return fmt.Errorf("%w: %s and %s have conflicting behavior so should not be enabled at the same time", ErrInvalidOption, a, b)
	}
	if c.removeRecordOnDelete && c.ignoreDelete {
		return nil, conflict(schema.OptIgnoreDelete, schema.OptPartialUpdateRemoveRecordOnDelete)
	}
	if hasRemoveOnSeqGroup && c.ignoreDelete {
		return nil, conflict(schema.OptIgnoreDelete, schema.OptPartialUpdateRemoveRecordOnSeqGroup)
	}
	if c.removeRecordOnDelete && anyGroup {
		return nil, conflict(schema.OptSuffixSequenceGroup, schema.OptPartialUpdateRemoveRecordOnDelete)
	}
	if hasRemoveOnSeqGroup {
		names := javaSplit(removeOnSeqGroup, fieldsSeparator)
		for _, name := range names {
			if _, ok := seqFieldIndex[name]; !ok {
				return nil, fmt.Errorf("%w: field '%s' defined in '%s' option must be part of sequence groups",
					ErrInvalidOption, removeOnSeqGroup, schema.OptPartialUpdateRemoveRecordOnSeqGroup)
			}
		}
		for _, name := range names {
			c.partialDelete[seqFieldIndex[name]] = true
		}
	}
	return c, nil
}

// partialUpdateAggFuncName mirrors PartialUpdateMergeFunction.getAggFuncName.
func partialUpdateAggFuncName(o opts, field string, primaryKeys, seqFields []string, protected map[string]bool) (string, error) {
	if slices.Contains(seqFields, field) {
		return "", nil
	}
	if slices.Contains(primaryKeys, field) {
		return AggPrimaryKey, nil
	}
	fn, ok := o[FieldAggOption(field, schema.OptSuffixAggregateFunction)]
	if !ok {
		fn, ok = o[schema.OptFieldsDefaultAggregateFunction]
	}
	if !ok {
		return "", nil
	}
	if fn != AggLastNonNullValue && !protected[field] {
		return "", fmt.Errorf("%w: must use sequence group for aggregation functions but not found for field %s", ErrInvalidOption, field)
	}
	return fn, nil
}

func (c *partialUpdateConfig) newMergeFunction() (*PartialUpdateMergeFunction, error) {
	n := len(c.fields)
	m := &PartialUpdateMergeFunction{
		cfg:          c,
		aggs:         make([]fieldAggregator, n),
		row:          make([]any, n),
		emptyGroup:   make([]bool, n),
		updatedSeq:   make([]bool, n),
		groupEnabled: slices.ContainsFunc(c.groups, func(g *seqGroup) bool { return g != nil }),
	}
	for i, fn := range c.aggFuncs {
		if fn == "" {
			continue
		}
		a, err := newFieldAggregator(fn, &c.fields[i], c.opts)
		if err != nil {
			return nil, err
		}
		m.aggs[i] = a
	}
	return m, nil
}

// PartialUpdateMergeFunction mirrors PartialUpdateMergeFunction: each newer
// record overwrites the fields it has non-null; with sequence groups each
// group is updated (or retracted) only by records whose group sequence is not
// older, and group fields may carry aggregate functions. The result kind is
// -D when the key saw no insert, or when a delete removed the row.
//
// The result row is a buffer owned by the merge function (see MergeFunction).
type PartialUpdateMergeFunction struct {
	cfg          *partialUpdateConfig
	aggs         []fieldAggregator
	groupEnabled bool

	has                 bool
	currentKey          []any
	latestSeq           SeqNum
	row                 []any
	currentDeleteRow    bool
	notNullColumnFilled bool
	meetInsert          bool

	emptyGroup []bool // scratch: sequence fields of groups that are all NULL in the record
	updatedSeq []bool // scratch: sequence fields already retracted
}

var _ MergeFunction = (*PartialUpdateMergeFunction)(nil)

// Reset implements MergeFunction.
func (m *PartialUpdateMergeFunction) Reset() {
	m.has = false
	m.currentKey = nil
	m.meetInsert = false
	m.notNullColumnFilled = false
	m.currentDeleteRow = false
	clear(m.row)
	m.latestSeq = 0
	for _, a := range m.aggs {
		if a != nil {
			a.reset()
		}
	}
}

// Add implements MergeFunction.
func (m *PartialUpdateMergeFunction) Add(kv KeyValue) error {
	if len(kv.Value) != len(m.row) {
		return fmt.Errorf("%w: value row has %d fields, want %d", ErrCorrupt, len(kv.Value), len(m.row))
	}
	m.has = true
	m.currentKey = kv.Key
	m.currentDeleteRow = false
	if !kv.Kind.IsAdd() {
		if !m.notNullColumnFilled {
			if err := m.initRow(kv.Value); err != nil {
				return err
			}
			m.notNullColumnFilled = true
		}
		// Paimon 0.7 and older could write deletes despite ignore-delete.
		if m.cfg.ignoreDelete {
			return nil
		}
		m.latestSeq = kv.Seq
		if m.groupEnabled {
			return m.retractWithSequenceGroup(kv)
		}
		if m.cfg.removeRecordOnDelete {
			if kv.Kind == Delete {
				m.currentDeleteRow = true
				clear(m.row)
				return m.initRow(kv.Value)
			}
			return nil
		}
		return fmt.Errorf("%w: %s", ErrRetract, errPartialUpdateRetract)
	}
	m.latestSeq = kv.Seq
	var err error
	if m.groupEnabled {
		err = m.updateWithSequenceGroup(kv)
	} else {
		err = m.updateNonNullFields(kv)
	}
	if err != nil {
		return err
	}
	m.meetInsert = true
	m.notNullColumnFilled = true
	return nil
}

func (m *PartialUpdateMergeFunction) updateNonNullFields(kv KeyValue) error {
	for i, v := range kv.Value {
		if v != nil {
			m.row[i] = v
		} else if !m.cfg.nullables[i] {
			return fmt.Errorf("%w: field %d can not be null", ErrNullField, i)
		}
	}
	return nil
}

// isEmptySequenceGroup reports whether all sequence fields of g are NULL in
// the record, remembering the answer for the other fields of the group.
func (m *PartialUpdateMergeFunction) isEmptySequenceGroup(value []any, g *seqGroup) bool {
	if m.emptyGroup[g.fields[0]] {
		return true
	}
	for _, f := range g.fields {
		if value[f] != nil {
			return false
		}
	}
	for _, f := range g.fields {
		m.emptyGroup[f] = true
	}
	return true
}

func (m *PartialUpdateMergeFunction) updateWithSequenceGroup(kv KeyValue) error {
	clear(m.emptyGroup)
	v := kv.Value
	for i := range m.row {
		g, agg := m.cfg.groups[i], m.aggs[i]
		acc := m.row[i]
		if g == nil {
			if agg != nil {
				r, err := agg.agg(acc, v[i])
				if err != nil {
					return err
				}
				m.row[i] = r
			} else if v[i] != nil {
				m.row[i] = v[i]
			}
			continue
		}
		if m.isEmptySequenceGroup(v, g) {
			continue
		}
		if g.cmp(v, m.row) >= 0 {
			if g.isSeqField(i) {
				// The sequence fields of a group are updated together.
				for _, f := range g.fields {
					m.row[f] = v[f]
				}
				continue
			}
			if agg == nil {
				m.row[i] = v[i]
			} else {
				r, err := agg.agg(acc, v[i])
				if err != nil {
					return err
				}
				m.row[i] = r
			}
		} else if agg != nil {
			r, err := aggReversed(agg, acc, v[i])
			if err != nil {
				return err
			}
			m.row[i] = r
		}
	}
	return nil
}

func (m *PartialUpdateMergeFunction) retractWithSequenceGroup(kv KeyValue) error {
	clear(m.emptyGroup)
	clear(m.updatedSeq)
	v := kv.Value
	for i := range m.row {
		g, agg := m.cfg.groups[i], m.aggs[i]
		if g == nil {
			continue
		}
		if m.isEmptySequenceGroup(v, g) {
			continue
		}
		if g.cmp(v, m.row) >= 0 {
			if g.isSeqField(i) {
				for _, f := range g.fields {
					if m.updatedSeq[f] {
						continue
					}
					if kv.Kind == Delete && m.cfg.partialDelete[f] {
						m.currentDeleteRow = true
						clear(m.row)
						return m.initRow(v)
					}
					m.row[f] = v[f]
					m.updatedSeq[f] = true
				}
			} else if agg == nil {
				m.row[i] = nil
			} else {
				r, err := agg.retract(m.row[i], v[i])
				if err != nil {
					return err
				}
				m.row[i] = r
			}
		} else if agg != nil {
			r, err := agg.retract(m.row[i], v[i])
			if err != nil {
				return err
			}
			m.row[i] = r
		}
	}
	return nil
}

// initRow copies the NOT NULL fields of value into the row, failing on NULL.
func (m *PartialUpdateMergeFunction) initRow(value []any) error {
	for i, v := range value {
		if !m.cfg.nullables[i] {
			if v == nil {
				return fmt.Errorf("%w: field %d can not be null", ErrNullField, i)
			}
			m.row[i] = v
		}
	}
	return nil
}

// Result implements MergeFunction. It always has a result once a record was
// added (like Java); the kind is -D when no insert was seen or a delete
// removed the row.
func (m *PartialUpdateMergeFunction) Result() (KeyValue, bool, error) {
	if !m.has {
		return KeyValue{}, false, nil
	}
	kind := Insert
	if m.currentDeleteRow || !m.meetInsert {
		kind = Delete
	}
	return KeyValue{Key: m.currentKey, Seq: m.latestSeq, Kind: kind, Value: m.row, Level: -1}, true, nil
}
