package kv

// MergeFunction mirrors org.apache.paimon.mergetree.compact.MergeFunction:
// it folds all records of one key, oldest first, into one result.
//
// The sort-merge calls Reset, then Add for every record of the key in
// (user sequence fields, sequence number) order, then Result.
//
// Ownership: the Key and Value slices of an added KeyValue are immutable
// (see RecordReader), so a MergeFunction may keep them. The KeyValue returned
// by Result may share a buffer owned by the MergeFunction: it stays valid only
// until the next Reset; callers that keep it longer must copy Value.
type MergeFunction interface {
	// Reset prepares for the records of a new key.
	Reset()
	// Add folds one record. It fails on input the engine rejects (a retract
	// the options do not allow, a NULL in a NOT NULL field, an arithmetic
	// error), with an error naming the option that changes the behaviour.
	Add(kv KeyValue) error
	// Result returns the merged record; ok is false when there is none (no
	// input, or every input was ignored). Only merge functions that defer
	// work to Result (LookupMergeFunction) return errors from it.
	Result() (kv KeyValue, ok bool, err error)
}

// ReducerMergeFunction mirrors ReducerMergeFunctionWrapper, which Java uses
// for batch reads, compaction rewrites and the write buffer: a key with a
// single record yields that record untouched (the wrapped function never
// sees it), so for example a lone -D or a lone retract of a first-row table
// passes through without error. Keys with two or more records are merged by
// the wrapped function.
type ReducerMergeFunction struct {
	mf          MergeFunction
	initial     KeyValue
	hasInitial  bool
	initialized bool
}

var _ MergeFunction = (*ReducerMergeFunction)(nil)

// NewReducer wraps mf in a ReducerMergeFunction.
func NewReducer(mf MergeFunction) *ReducerMergeFunction { return &ReducerMergeFunction{mf: mf} }

// Reset implements MergeFunction.
func (r *ReducerMergeFunction) Reset() {
	r.initial = KeyValue{}
	r.hasInitial = false
	r.initialized = false
	r.mf.Reset()
}

// Add implements MergeFunction.
func (r *ReducerMergeFunction) Add(kv KeyValue) error {
	if !r.hasInitial {
		r.initial = kv
		r.hasInitial = true
		return nil
	}
	if !r.initialized {
		r.initialized = true
		if err := r.mf.Add(r.initial); err != nil {
			return err
		}
	}
	return r.mf.Add(kv)
}

// Result implements MergeFunction.
func (r *ReducerMergeFunction) Result() (KeyValue, bool, error) {
	if r.initialized {
		return r.mf.Result()
	}
	return r.initial, r.hasInitial, nil
}
