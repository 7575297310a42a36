package kv

// RecordReader iterates one sorted run of KeyValues (a data file, a level, or
// a sorted write buffer), the Go counterpart of Java's RecordReader<KeyValue>.
//
// Records come in ascending order of (key, user sequence fields if any,
// sequence number). A run may hold several records of one key (a sorted write
// buffer does); data files and levels written by Paimon never do.
//
// Ownership contract: the Key and Value slices of a returned KeyValue, and
// every value they hold, are never modified afterwards by the reader. A
// reader may decode a batch of rows into one backing slab and hand out
// sub-slices of it, but it must not reuse that slab for later rows. This lets
// the merge and the merge functions keep records without copying.
type RecordReader interface {
	// Next returns the next record, or ok=false at the end of the run.
	Next() (kv KeyValue, ok bool, err error)
	// Close releases the reader. It is safe to call more than once.
	Close() error
}

// SliceReader is a RecordReader over an in-memory sorted run.
type SliceReader struct {
	kvs []KeyValue
	pos int
}

var _ RecordReader = (*SliceReader)(nil)

// NewSliceReader returns a reader over kvs, which must already be sorted.
func NewSliceReader(kvs []KeyValue) *SliceReader { return &SliceReader{kvs: kvs} }

// Next implements RecordReader.
func (r *SliceReader) Next() (KeyValue, bool, error) {
	if r.pos >= len(r.kvs) {
		return KeyValue{}, false, nil
	}
	r.pos++
	return r.kvs[r.pos-1], true, nil
}

// Close implements RecordReader.
func (r *SliceReader) Close() error { return nil }
