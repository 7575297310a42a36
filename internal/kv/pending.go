package kv

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// PendingWrites are the records one transaction buffered for one table
// until its commit, in write order, with an index by primary key and the
// keys whose new values the transaction computed from what it read (the
// conflict predicate of its commit). The running statement's records can
// be dropped (a failed statement) without touching the completed ones.
//
// Keys are AppendKey encodings of the primary key fields (of every field
// for append tables, which have no key index). Records hold whole rows of
// the table schema in the schema value model; their Seq is their position.
//
// A PendingWrites is not safe for concurrent use: the owner (a session's
// transaction) serializes access. Records is a snapshot: records appended
// later do not change the slice it returned.
type PendingWrites struct {
	sch    *schema.TableSchema
	keyIdx []int
	pk     bool
	recs   []KeyValue // the records after the spilled ones
	// byKey indexes recs[:indexed] by key; the index is built when a key
	// is first looked up (OfKey), so a statement that only writes (LOAD
	// DATA, INSERT) never pays for it.
	byKey   map[string][]int32
	indexed int
	stmt    int // first record of the running statement (counting spilled ones)
	read    map[string]struct{}
	buf     []byte
	// deletes: a record is a retraction (append tables spill only
	// without: AppendNet matches deletes with earlier inserts).
	deletes bool

	// limit is the estimated heap bytes of recs (RowSize) above which they
	// move to spill, a local temporary file (0: never); bytes the current
	// estimate. Once records spilled, Records answers nil (Each streams
	// them) and OfKey reads the spill file through its key index.
	limit int64
	bytes int64
	spill *pendingSpill

	factory *MergeFunctionFactory
	reducer *ReducerMergeFunction
}

// NewPendingWrites returns an empty buffer for a table of schema sch.
func NewPendingWrites(sch *schema.TableSchema) *PendingWrites {
	p := &PendingWrites{sch: sch, keyIdx: KeyIndexes(sch), pk: len(sch.PrimaryKeys) > 0, read: map[string]struct{}{}}
	if p.pk {
		p.byKey = map[string][]int32{}
	}
	return p
}

// KeyIndexes are the field indexes of the primary key (partition keys
// included), or of every field for append tables.
func KeyIndexes(sch *schema.TableSchema) []int {
	if len(sch.PrimaryKeys) == 0 {
		out := make([]int, len(sch.Fields))
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, len(sch.PrimaryKeys))
	for i, k := range sch.PrimaryKeys {
		out[i] = sch.FieldIndex(k)
	}
	return out
}

// Schema is the table schema the records follow.
func (p *PendingWrites) Schema() *schema.TableSchema { return p.sch }

// KeyIndexes are the field indexes the keys are built from.
func (p *PendingWrites) KeyIndexes() []int { return p.keyIdx }

// Len is the number of buffered records (completed statements and the
// running one), spilled ones included.
func (p *PendingWrites) Len() int { return p.spilled() + len(p.recs) }

// Records returns the buffered records in write order. The caller must not
// modify them. Once records spilled (Spilled) it returns nil: Each streams
// them.
func (p *PendingWrites) Records() []KeyValue {
	if p.spill != nil {
		return nil
	}
	return p.recs[:len(p.recs):len(p.recs)]
}

// SetLimit makes the buffer move its records to a local temporary file once
// their estimated heap size (KVOverhead + RowSize per record) exceeds limit
// bytes (the table's write-buffer-size); 0 keeps them in memory.
func (p *PendingWrites) SetLimit(limit int64) { p.limit = limit }

// Limit is the limit set by SetLimit (0: none).
func (p *PendingWrites) Limit() int64 { return p.limit }

// Bytes is the estimated heap size of the records held in memory.
func (p *PendingWrites) Bytes() int64 { return p.bytes }

// Spilled reports whether records moved to the spill file: Records and
// AppendNet then answer nil (Each streams the records; OfKey still finds a
// key's).
func (p *PendingWrites) Spilled() bool { return p.spill != nil }

func (p *PendingWrites) spilled() int {
	if p.spill == nil {
		return 0
	}
	return p.spill.n
}

// Close removes the spill file, if any; the buffer is empty afterwards and
// holds no memory of its records (a buffer that spilled keeps an array of
// write-buffer-size worth of records: whatever still refers to the closed
// buffer must not keep that alive).
func (p *PendingWrites) Close() error {
	p.recs = nil
	p.bytes = 0
	p.stmt = 0
	if p.byKey != nil {
		p.byKey = map[string][]int32{}
	}
	p.read = map[string]struct{}{}
	p.buf = nil
	p.indexed = 0
	if p.spill == nil {
		return nil
	}
	err := p.spill.close()
	p.spill = nil
	return err
}

// key encodes row's key into the scratch buffer.
func (p *PendingWrites) key(row []any) []byte {
	p.buf = AppendKey(p.buf[:0], row, p.keyIdx)
	return p.buf
}

// Add buffers one record of the running statement; readKey marks its key
// as read by the transaction (UPDATE, DELETE, the lookup of INSERT IGNORE
// and ON DUPLICATE KEY UPDATE).
//
// Past the limit (SetLimit) the records move to the spill file; an error is
// the spill file's, or ErrSpilled for a delete of an append table whose
// inserts spilled (AppendNet needs them).
func (p *PendingWrites) Add(kind RowKind, row []any, readKey bool) error {
	if p.spill != nil && !p.pk && !kind.IsAdd() {
		return fmt.Errorf("%w: a delete of an append table after more than write-buffer-size of inserts in one transaction", ErrSpilled)
	}
	i := int32(len(p.recs))
	p.recs = append(p.recs, KeyValue{Kind: kind, Value: row, Seq: SeqNum(p.spilled() + int(i)), Level: -1})
	p.bytes += KVOverhead + RowSize(row)
	if !kind.IsAdd() {
		p.deletes = true
	}
	if readKey {
		if k := p.key(row); !p.hasRead(k) {
			p.read[string(k)] = struct{}{}
		}
	}
	if p.limit > 0 && p.bytes > p.limit && (p.pk || !p.deletes) {
		return p.spillOut()
	}
	return nil
}

func (p *PendingWrites) hasRead(k []byte) bool {
	_, ok := p.read[string(k)]
	return ok
}

// indexAll brings the key index up to every in-memory record.
func (p *PendingWrites) indexAll() {
	for i := p.indexed; i < len(p.recs); i++ {
		k := p.key(p.recs[i].Value)
		if ix, ok := p.byKey[string(k)]; ok {
			p.byKey[string(k)] = append(ix, int32(i))
		} else {
			p.byKey[string(k)] = []int32{int32(i)}
		}
	}
	p.indexed = len(p.recs)
}

// StatementDone makes the running statement's records part of the
// transaction.
func (p *PendingWrites) StatementDone() {
	p.stmt = p.Len()
	if p.spill != nil {
		p.spill.stmtOff = -1
	}
}

// DiscardStatement drops the running statement's records (its read keys
// stay: the conflict check stays conservative).
func (p *PendingWrites) DiscardStatement() error {
	if p.stmt == p.Len() {
		return nil
	}
	if sp := p.spilled(); p.stmt < sp {
		// The statement's first records spilled: the file goes back to
		// where the statement began, and the records after it go.
		if err := p.spill.truncate(p.stmt); err != nil {
			return err
		}
		clear(p.recs)
		p.recs = p.recs[:0]
		p.bytes = 0
		if p.byKey != nil {
			clear(p.byKey)
		}
		p.indexed = 0
		return nil
	}
	from := p.stmt - p.spilled()
	if p.pk && p.indexed > from {
		for _, r := range p.recs[from:p.indexed] {
			k := p.key(r.Value)
			ix := p.byKey[string(k)]
			for len(ix) > 0 && int(ix[len(ix)-1]) >= from {
				ix = ix[:len(ix)-1]
			}
			if len(ix) == 0 {
				delete(p.byKey, string(k))
			} else {
				p.byKey[string(k)] = ix
			}
		}
	}
	for _, r := range p.recs[from:] {
		p.bytes -= KVOverhead + RowSize(r.Value)
	}
	clear(p.recs[from:])
	p.recs = p.recs[:from]
	p.indexed = min(p.indexed, from)
	return nil
}

// ReadKeys reports whether the transaction read any key; ReadKey whether it
// read the key encoded as key (AppendKey over KeyIndexes).
func (p *PendingWrites) ReadKeys() bool { return len(p.read) > 0 }

// ReadKey reports whether the transaction read the encoded key.
func (p *PendingWrites) ReadKey(key []byte) bool {
	_, ok := p.read[string(key)]
	return ok
}

// OfKey returns the buffered records of row's primary key, oldest first
// (nil for append tables): the spilled ones read from the spill file
// through its key index, then the ones in memory. An error is the spill
// file's.
func (p *PendingWrites) OfKey(row []any) ([]KeyValue, error) {
	if !p.pk {
		return nil, nil
	}
	var out []KeyValue
	if p.spill != nil {
		var err error
		if out, err = p.spilledOfKey(p.key(row)); err != nil {
			return nil, err
		}
	}
	p.indexAll()
	ix := p.byKey[string(p.key(row))]
	for _, i := range ix {
		out = append(out, p.recs[i])
	}
	return out, nil
}

// Merge folds a committed row (or nil) and records of its key, oldest
// first, through the table's merge function (reducer semantics, as the
// write buffer merges): the row the key has after them, or ok false when
// it has none (deleted).
func (p *PendingWrites) Merge(base []any, recs []KeyValue) (row []any, ok bool, err error) {
	if p.reducer == nil {
		if p.factory, err = NewMergeFunctionFactory(p.sch.Options, p.sch.Fields, p.sch.PrimaryKeys); err != nil {
			return nil, false, err
		}
		p.reducer = NewReducer(p.factory.New())
	}
	return mergePending(p.reducer, base, recs)
}

// NewMerger returns a merge of committed rows with pending records that is
// independent of p (for a reader running beside the transaction).
func (p *PendingWrites) NewMerger() (func(base []any, recs []KeyValue) ([]any, bool, error), error) {
	f, err := NewMergeFunctionFactory(p.sch.Options, p.sch.Fields, p.sch.PrimaryKeys)
	if err != nil {
		return nil, err
	}
	r := NewReducer(f.New())
	return func(base []any, recs []KeyValue) ([]any, bool, error) { return mergePending(r, base, recs) }, nil
}

func mergePending(mf *ReducerMergeFunction, base []any, recs []KeyValue) ([]any, bool, error) {
	mf.Reset()
	seq := SeqNum(0)
	if base != nil {
		if err := mf.Add(KeyValue{Kind: Insert, Value: base, Seq: seq, Level: 1}); err != nil {
			return nil, false, err
		}
	}
	for _, r := range recs {
		seq++
		if err := mf.Add(KeyValue{Kind: r.Kind, Value: r.Value, Seq: seq, Level: -1}); err != nil {
			return nil, false, err
		}
	}
	res, ok, err := mf.Result()
	if err != nil || !ok || !res.Kind.IsAdd() {
		return nil, false, err
	}
	return append([]any(nil), res.Value...), true, nil
}

// AppendNet returns the records of an append table (with deletion vectors)
// with each delete (-D, -U) taking back the latest earlier insert of an
// equal row, if any: the inserts still pending, in order, as +I, and the
// deletes of committed rows as -D, which a write looks up in the table's
// files and a read-your-writes read removes from the committed rows.
func (p *PendingWrites) AppendNet() []KeyValue {
	recs := p.Records()
	hasDelete := false
	for i := range recs {
		if !recs[i].Kind.IsAdd() {
			hasDelete = true
			break
		}
	}
	if !hasDelete {
		return recs
	}
	out := make([]KeyValue, 0, len(recs))
	live := make([]bool, 0, len(recs))
	inserts := map[string][]int{} // row key → positions in out of live inserts
	var key []byte
	for _, rec := range recs {
		key = AppendKey(key[:0], rec.Value, p.keyIdx)
		if rec.Kind.IsAdd() {
			inserts[string(key)] = append(inserts[string(key)], len(out))
			out = append(out, KeyValue{Key: rec.Key, Seq: rec.Seq, Kind: Insert, Value: rec.Value, Level: rec.Level})
			live = append(live, true)
			continue
		}
		if ps := inserts[string(key)]; len(ps) > 0 {
			live[ps[len(ps)-1]] = false
			inserts[string(key)] = ps[:len(ps)-1]
			continue
		}
		out = append(out, KeyValue{Key: rec.Key, Seq: rec.Seq, Kind: Delete, Value: rec.Value, Level: rec.Level})
		live = append(live, true)
	}
	n := 0
	for i := range out {
		if live[i] {
			out[n] = out[i]
			n++
		}
	}
	return out[:n]
}
