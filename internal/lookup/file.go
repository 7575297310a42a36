package lookup

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// ErrCorrupt is wrapped by errors about a lookup file that does not decode.
var ErrCorrupt = errors.New("lookup: corrupt lookup file")

// Layout is what a lookup file holds: the trimmed primary key types and the
// value (read schema) types.
type Layout struct {
	KeyTypes   []schema.DataType
	ValueTypes []schema.DataType
}

// codecs are a layout's encoders and comparator.
type codecs struct {
	key, value *binaryrow.Codec
	cmp        kv.Comparator
	keyTypes   []schema.DataType
}

func (l *Layout) codecs() (*codecs, error) {
	key, err := binaryrow.NewCodec(l.KeyTypes)
	if err != nil {
		return nil, fmt.Errorf("lookup: key types: %w", err)
	}
	value, err := binaryrow.NewCodec(l.ValueTypes)
	if err != nil {
		return nil, fmt.Errorf("lookup: value types: %w", err)
	}
	return &codecs{key: key, value: value, cmp: kv.NewKeyComparator(l.KeyTypes), keyTypes: l.KeyTypes}, nil
}

// block locates one block of a lookup file.
type block struct {
	first []any // the block's first key
	off   int64
	n     int32 // bytes
}

// File is the lookup file of one data file.
type File struct {
	c      *codecs
	f      *os.File
	size   int64
	level  int
	rows   int64
	blocks []block
	// firstInts are the blocks' first keys of a BIGINT key (indexInts),
	// else nil.
	firstInts []int64
	refs      atomic.Int32 // Get/Release pairs, plus one held by the cache
	bufs      sync.Pool
	// mapped is the whole file mapped read-only (mapFile), or nil: Find
	// then reads its block without a system call or a copy.
	mapped []byte
}

// Rows is the number of records in the file.
func (f *File) Rows() int64 { return f.rows }

// Size is the file's size on disk.
func (f *File) Size() int64 { return f.size }

// release drops one reference; the last one closes the file.
func (f *File) release() {
	if f.refs.Add(-1) == 0 {
		f.close()
	}
}

// close unmaps and closes the file (its last reference is gone).
func (f *File) close() {
	unmapFile(f.mapped)
	f.mapped = nil
	f.f.Close()
}

// Record is one KeyValue found by Find, with its row position in the data
// file (deletion vectors are by position).
type Record struct {
	kv.KeyValue
	Pos int64
}

// Find returns the record of key, or ok=false when the file has none.
func (f *File) Find(key []any) (Record, bool, error) {
	i := f.blockOf(key)
	if i < 0 {
		return Record{}, false, nil
	}
	b := &f.blocks[i]
	var data []byte
	if f.mapped != nil && b.off >= 0 && b.off+int64(b.n) <= int64(len(f.mapped)) {
		data = f.mapped[b.off : b.off+int64(b.n) : b.off+int64(b.n)]
	} else {
		bp, _ := f.bufs.Get().(*[]byte)
		if bp == nil {
			bp = new([]byte)
		}
		defer f.bufs.Put(bp)
		if cap(*bp) < int(b.n) {
			*bp = make([]byte, b.n)
		}
		data = (*bp)[:b.n]
		if _, err := f.f.ReadAt(data, b.off); err != nil {
			return Record{}, false, fmt.Errorf("lookup: read block at %d: %w", b.off, err)
		}
	}
	if len(data) < 4 {
		return Record{}, false, fmt.Errorf("%w: short block", ErrCorrupt)
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-4:]))
	offsEnd := len(data) - 4
	if n <= 0 || n*4 > offsEnd {
		return Record{}, false, fmt.Errorf("%w: block of %d records in %d bytes", ErrCorrupt, n, len(data))
	}
	offs := data[offsEnd-4*n : offsEnd]
	recsEnd := offsEnd - 4*n
	bounds := func(j int) (int, int, error) {
		s := int(binary.LittleEndian.Uint32(offs[4*j:]))
		e := recsEnd
		if j+1 < n {
			e = int(binary.LittleEndian.Uint32(offs[4*j+4:]))
		}
		if s < 0 || s > e || e > recsEnd {
			return 0, 0, fmt.Errorf("%w: record %d bounds", ErrCorrupt, j)
		}
		return s, e, nil
	}
	var keyBuf [4]any
	var ferr error
	found := -1
	// A BIGINT key (indexInts) compares as an int64, decoded unboxed.
	x, intKey := key[0].(int64)
	intKey = intKey && f.firstInts != nil
	// Binary search over the block's records by decoded key.
	lo, hi := 0, n
	for lo < hi && ferr == nil {
		m := int(uint(lo+hi) >> 1)
		s, e, err := bounds(m)
		if err != nil {
			return Record{}, false, err
		}
		var c int
		if intKey {
			y, err := f.recordInt(data[s:e])
			if err != nil {
				return Record{}, false, err
			}
			c = cmp.Compare(y, x)
		} else {
			k, _, err := f.recordKey(data[s:e], keyBuf[:0])
			if err != nil {
				return Record{}, false, err
			}
			c = f.c.cmp(k, key)
		}
		switch {
		case c == 0:
			found, lo = m, hi
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	if found < 0 {
		return Record{}, false, nil
	}
	s, e, err := bounds(found)
	if err != nil {
		return Record{}, false, err
	}
	return f.decode(data[s:e])
}

// recordKey decodes a record's key (into dst) and returns the offset of the
// value's bytes.
func (f *File) recordKey(rec []byte, dst []any) ([]any, int, error) {
	p := 1
	if len(rec) < 1 {
		return nil, 0, fmt.Errorf("%w: empty record", ErrCorrupt)
	}
	_, n := binary.Varint(rec[p:])
	if n <= 0 {
		return nil, 0, fmt.Errorf("%w: sequence number", ErrCorrupt)
	}
	p += n
	_, n = binary.Uvarint(rec[p:])
	if n <= 0 {
		return nil, 0, fmt.Errorf("%w: position", ErrCorrupt)
	}
	p += n
	kl, n := binary.Uvarint(rec[p:])
	if n <= 0 || kl > uint64(len(rec)-p-n) {
		return nil, 0, fmt.Errorf("%w: key length", ErrCorrupt)
	}
	p += n
	k, err := f.c.key.DecodeInto(dst, rec[p:p+int(kl)])
	if err != nil {
		return nil, 0, fmt.Errorf("%w: key: %w", ErrCorrupt, err)
	}
	return k, p + int(kl), nil
}

// recordInt decodes a record's key of one non-null BIGINT (indexInts)
// without boxing it.
func (f *File) recordInt(rec []byte) (int64, error) {
	p := 1
	if len(rec) < 1 {
		return 0, fmt.Errorf("%w: empty record", ErrCorrupt)
	}
	_, n := binary.Varint(rec[p:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: sequence number", ErrCorrupt)
	}
	p += n
	_, n = binary.Uvarint(rec[p:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: position", ErrCorrupt)
	}
	p += n
	kl, n := binary.Uvarint(rec[p:])
	if n <= 0 || kl > uint64(len(rec)-p-n) {
		return 0, fmt.Errorf("%w: key length", ErrCorrupt)
	}
	p += n
	v, ok, err := binaryrow.Int64At(rec[p:p+int(kl)], 1, 0)
	if err != nil || !ok {
		return 0, fmt.Errorf("%w: key: %v (null %v)", ErrCorrupt, err, !ok)
	}
	return v, nil
}

// decode decodes a whole record into fresh slices.
func (f *File) decode(rec []byte) (Record, bool, error) {
	key, vs, err := f.recordKey(rec, nil)
	if err != nil {
		return Record{}, false, err
	}
	kind := kv.RowKind(rec[0])
	if kind < kv.Insert || kind > kv.Delete {
		return Record{}, false, fmt.Errorf("%w: row kind %d", ErrCorrupt, rec[0])
	}
	seq, n := binary.Varint(rec[1:])
	pos, _ := binary.Uvarint(rec[1+n:])
	val, err := f.c.value.Decode(rec[vs:])
	if err != nil {
		return Record{}, false, fmt.Errorf("%w: value: %w", ErrCorrupt, err)
	}
	return Record{KeyValue: kv.KeyValue{Key: key, Seq: kv.SeqNum(seq), Kind: kind, Value: val, Level: f.level}, Pos: int64(pos)}, true, nil
}

// build writes the lookup file of the records of run (in key order) to a
// new unlinked temporary file.
func build(c *codecs, run kv.RecordReader, level, blockBytes int, dir string) (*File, error) {
	tmp, err := os.CreateTemp(dir, "lakesql-lookup-*")
	if err != nil {
		return nil, fmt.Errorf("lookup: %w", err)
	}
	// Unlinked at once: the open descriptor keeps the data, and nothing is
	// left behind when the process ends.
	os.Remove(tmp.Name())
	f := &File{c: c, f: tmp, level: level}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
		}
	}()
	w := bufio.NewWriterSize(tmp, 256<<10)
	kw, vw := c.key.NewWriter(), c.value.NewWriter()
	var blk []byte
	var offs []uint32
	var first []any
	var prev []any
	var pos int64
	flush := func() error {
		if len(offs) == 0 {
			return nil
		}
		for _, o := range offs {
			blk = binary.LittleEndian.AppendUint32(blk, o)
		}
		blk = binary.LittleEndian.AppendUint32(blk, uint32(len(offs)))
		if _, err := w.Write(blk); err != nil {
			return fmt.Errorf("lookup: write: %w", err)
		}
		f.blocks = append(f.blocks, block{first: first, off: f.size, n: int32(len(blk))})
		f.size += int64(len(blk))
		blk, offs, first = blk[:0], offs[:0], nil
		return nil
	}
	for {
		r, more, err := run.Next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		if prev != nil && c.cmp(prev, r.Key) >= 0 {
			return nil, fmt.Errorf("lookup: data file records out of key order at row %d", pos)
		}
		prev = r.Key
		kb, err := kw.Encode(r.Key)
		if err != nil {
			return nil, fmt.Errorf("lookup: key at row %d: %w", pos, err)
		}
		vb, err := vw.Encode(r.Value)
		if err != nil {
			return nil, fmt.Errorf("lookup: value at row %d: %w", pos, err)
		}
		if len(offs) > 0 && len(blk)+len(kb)+len(vb)+24+4*len(offs) > blockBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if first == nil {
			first = append([]any(nil), r.Key...)
		}
		offs = append(offs, uint32(len(blk)))
		blk = append(blk, byte(r.Kind))
		blk = binary.AppendVarint(blk, int64(r.Seq))
		blk = binary.AppendUvarint(blk, uint64(pos))
		blk = binary.AppendUvarint(blk, uint64(len(kb)))
		blk = append(blk, kb...)
		blk = append(blk, vb...)
		pos++
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("lookup: write: %w", err)
	}
	f.rows = pos
	f.indexInts()
	f.mapped = mapFile(tmp, f.size)
	ok = true
	return f, nil
}

// indexInts keeps the blocks' first keys as one int64 array when the key
// is one BIGINT column: Find's search over blocks then reads one array
// instead of a boxed value per block.
func (f *File) indexInts() {
	if len(f.c.keyTypes) != 1 || f.c.keyTypes[0].Root != schema.TypeBigInt {
		return
	}
	firsts := make([]int64, len(f.blocks))
	for i := range f.blocks {
		x, ok := f.blocks[i].first[0].(int64)
		if !ok {
			return // NULL (no key column is NULL in Paimon, but a corrupt file may say so)
		}
		firsts[i] = x
	}
	f.firstInts = firsts
}

// blockOf returns the index of the last block whose first key is ≤ key,
// or -1.
func (f *File) blockOf(key []any) int {
	if f.firstInts != nil {
		if x, ok := key[0].(int64); ok {
			lo, hi := 0, len(f.firstInts)
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if f.firstInts[m] > x {
					hi = m
				} else {
					lo = m + 1
				}
			}
			return lo - 1
		}
	}
	return sort.Search(len(f.blocks), func(i int) bool { return f.c.cmp(f.blocks[i].first, key) > 0 }) - 1
}
