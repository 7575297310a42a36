package kv

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// FirstRowMergeFunction mirrors FirstRowMergeFunction: the record with the
// lowest sequence wins. Retract input is an error unless ignore-delete is set,
// in which case it is skipped.
type FirstRowMergeFunction struct {
	ignoreDelete bool
	first        KeyValue
	has          bool
	// ContainsHighLevel reports whether a record of the current key came
	// from a level > 0 (Java's containsHighLevel, used by first-row
	// compaction to decide which results are new).
	ContainsHighLevel bool
}

var _ MergeFunction = (*FirstRowMergeFunction)(nil)

// NewFirstRowMergeFunction returns a first-row merge function.
func NewFirstRowMergeFunction(ignoreDelete bool) *FirstRowMergeFunction {
	return &FirstRowMergeFunction{ignoreDelete: ignoreDelete}
}

// Reset implements MergeFunction.
func (m *FirstRowMergeFunction) Reset() {
	m.first, m.has, m.ContainsHighLevel = KeyValue{}, false, false
}

// Add implements MergeFunction.
func (m *FirstRowMergeFunction) Add(kv KeyValue) error {
	if !kv.Kind.IsAdd() {
		if m.ignoreDelete {
			return nil
		}
		return fmt.Errorf("%w: by default, the first-row merge engine can not accept DELETE/UPDATE_BEFORE records; "+
			"configure 'first-row.ignore-delete' (or '%s') to ignore them", ErrRetract, schema.OptIgnoreDelete)
	}
	if !m.has {
		m.first, m.has = kv, true
	}
	if kv.Level > 0 {
		m.ContainsHighLevel = true
	}
	return nil
}

// Result implements MergeFunction.
func (m *FirstRowMergeFunction) Result() (KeyValue, bool, error) { return m.first, m.has, nil }
