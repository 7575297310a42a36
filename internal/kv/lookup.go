package kv

// LookupMergeFunction mirrors LookupMergeFunction, used by lookup compaction
// (changelog-producer=lookup, deletion vectors): of the records of a key it
// merges only those not yet on disk or in level 0 (level <= 0) plus the one
// from the lowest level above 0, which already holds the merged state of all
// deeper levels. First-row tables do not need it (see
// MergeFunctionFactory.NewLookup).
type LookupMergeFunction struct {
	mf            MergeFunction
	candidates    []KeyValue
	containLevel0 bool
}

var _ MergeFunction = (*LookupMergeFunction)(nil)

// NewLookupMergeFunction wraps mf.
func NewLookupMergeFunction(mf MergeFunction) *LookupMergeFunction {
	return &LookupMergeFunction{mf: mf}
}

// Reset implements MergeFunction.
func (m *LookupMergeFunction) Reset() {
	clear(m.candidates)
	m.candidates = m.candidates[:0]
	m.containLevel0 = false
}

// Add implements MergeFunction.
func (m *LookupMergeFunction) Add(kv KeyValue) error {
	if kv.Level == 0 {
		m.containLevel0 = true
	}
	m.candidates = append(m.candidates, kv)
	return nil
}

// ContainLevel0 reports whether a record of the current key came from level 0.
func (m *LookupMergeFunction) ContainLevel0() bool { return m.containLevel0 }

// PickHighLevel returns the index in the candidates of the record from the
// lowest level above 0, or -1.
func (m *LookupMergeFunction) pickHighLevel() int {
	best := -1
	for i := range m.candidates {
		l := m.candidates[i].Level
		if l <= 0 {
			continue
		}
		if best < 0 || l < m.candidates[best].Level {
			best = i
		}
	}
	return best
}

// PickHighLevel returns the record of the current key from the lowest level
// above 0, if any.
func (m *LookupMergeFunction) PickHighLevel() (KeyValue, bool) {
	if i := m.pickHighLevel(); i >= 0 {
		return m.candidates[i], true
	}
	return KeyValue{}, false
}

// Result implements MergeFunction: it merges the picked records with the
// wrapped function.
func (m *LookupMergeFunction) Result() (KeyValue, bool, error) {
	m.mf.Reset()
	high := m.pickHighLevel()
	for i := range m.candidates {
		if m.candidates[i].Level <= 0 || i == high {
			if err := m.mf.Add(m.candidates[i]); err != nil {
				return KeyValue{}, false, err
			}
		}
	}
	return m.mf.Result()
}

// Key returns the key of the current records (nil before the first Add).
func (m *LookupMergeFunction) Key() []any {
	if len(m.candidates) == 0 {
		return nil
	}
	return m.candidates[len(m.candidates)-1].Key
}

// InsertInto adds a record looked up in a deeper level to the candidates,
// before the first candidate that orders after it by cmp (Java
// KeyValueBuffer.insertInto): lookup compaction merges the level-0 records
// of a key with the state it found on disk, in sequence order.
func (m *LookupMergeFunction) InsertInto(high KeyValue, cmp func(a, b *KeyValue) int) {
	i := 0
	for i < len(m.candidates) && cmp(&m.candidates[i], &high) <= 0 {
		i++
	}
	m.candidates = append(m.candidates, KeyValue{})
	copy(m.candidates[i+1:], m.candidates[i:])
	m.candidates[i] = high
}
