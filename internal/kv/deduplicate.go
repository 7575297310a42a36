package kv

// DeduplicateMergeFunction mirrors DeduplicateMergeFunction: the record with
// the highest sequence wins, including a retract (then the key disappears
// from batch reads). With ignore-delete, retract records are skipped; a key
// whose records are all skipped has no result.
type DeduplicateMergeFunction struct {
	ignoreDelete bool
	latest       KeyValue
	has          bool
}

var _ MergeFunction = (*DeduplicateMergeFunction)(nil)

// NewDeduplicateMergeFunction returns a deduplicate merge function.
func NewDeduplicateMergeFunction(ignoreDelete bool) *DeduplicateMergeFunction {
	return &DeduplicateMergeFunction{ignoreDelete: ignoreDelete}
}

// Reset implements MergeFunction.
func (m *DeduplicateMergeFunction) Reset() { m.latest, m.has = KeyValue{}, false }

// Add implements MergeFunction.
func (m *DeduplicateMergeFunction) Add(kv KeyValue) error {
	// Paimon 0.7 and older could write deletes despite ignore-delete, so the
	// check is needed on read as well.
	if m.ignoreDelete && !kv.Kind.IsAdd() {
		return nil
	}
	m.latest, m.has = kv, true
	return nil
}

// Result implements MergeFunction.
func (m *DeduplicateMergeFunction) Result() (KeyValue, bool, error) { return m.latest, m.has, nil }
