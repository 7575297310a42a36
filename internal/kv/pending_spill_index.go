package kv

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
)

// spillIndex finds a key's records in a pending spill file without holding
// them in memory, so INSERT IGNORE and ON DUPLICATE KEY UPDATE keep working
// after a transaction's writes passed write-buffer-size. Each spillOut of a
// primary-key buffer writes one run: the run's records' (key hash, record
// number, file offset) entries sorted by hash, appended to a second unlinked
// temporary file; memory keeps one hash per spillIndexBlock entries of each
// run (8 bytes per 64 records). A lookup reads, in each run, the blocks
// whose hashes can hold the key's, then the records they point at, and
// keeps those whose key is the key (hashes collide).
type spillIndex struct {
	f    *os.File
	size int64 // bytes in f
	seed maphash.Seed
	runs []spillRun
	buf  []byte
}

// spillRun is the index of the records one spillOut wrote.
type spillRun struct {
	off   int64    // first entry's offset in the index file
	n     int      // entries
	first int      // record number of the run's first record
	heads []uint64 // hash of every spillIndexBlock-th entry
	// end: entries of records numbered end or more are gone (a discarded
	// statement truncated the spill file; later records reuse the offsets).
	end int
}

const (
	spillIndexBlock = 64
	spillEntrySize  = 24 // hash, record number, record offset: 3 × uint64
)

// spillEntry is one record's index entry.
type spillEntry struct {
	hash uint64
	rec  int64 // record number (its Seq)
	off  int64 // offset of the record's length prefix in the spill file
}

func newSpillIndex() (*spillIndex, error) {
	f, err := os.CreateTemp("", "lakesql-pending-index-*")
	if err != nil {
		return nil, fmt.Errorf("kv: spill index: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("kv: spill index: %w", err)
	}
	return &spillIndex{f: f, seed: maphash.MakeSeed()}, nil
}

func (ix *spillIndex) hash(key []byte) uint64 { return maphash.Bytes(ix.seed, key) }

// addRun writes the entries of one run (the records first, first+1, …),
// sorting them by hash (record number within one hash).
func (ix *spillIndex) addRun(first int, entries []spillEntry) error {
	slices.SortFunc(entries, func(a, b spillEntry) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return cmp.Compare(a.rec, b.rec)
	})
	run := spillRun{off: ix.size, n: len(entries), first: first, end: first + len(entries)}
	w := bufio.NewWriterSize(io.NewOffsetWriter(ix.f, ix.size), 256<<10)
	var b [spillEntrySize]byte
	for i, e := range entries {
		if i%spillIndexBlock == 0 {
			run.heads = append(run.heads, e.hash)
		}
		binary.LittleEndian.PutUint64(b[0:], e.hash)
		binary.LittleEndian.PutUint64(b[8:], uint64(e.rec))
		binary.LittleEndian.PutUint64(b[16:], uint64(e.off))
		if _, err := w.Write(b[:]); err != nil {
			return fmt.Errorf("kv: spill index: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("kv: spill index: %w", err)
	}
	ix.size += int64(len(entries)) * spillEntrySize
	ix.runs = append(ix.runs, run)
	return nil
}

// truncate forgets the records numbered n or more.
func (ix *spillIndex) truncate(n int) error {
	keep := len(ix.runs)
	for keep > 0 && ix.runs[keep-1].first >= n {
		keep--
	}
	if keep < len(ix.runs) {
		ix.size = ix.runs[keep].off
		ix.runs = ix.runs[:keep]
		if err := ix.f.Truncate(ix.size); err != nil {
			return fmt.Errorf("kv: spill index: %w", err)
		}
	}
	for i := range ix.runs {
		ix.runs[i].end = min(ix.runs[i].end, n)
	}
	return nil
}

// lookup returns the entries whose hash is h, by record number.
func (ix *spillIndex) lookup(h uint64) ([]spillEntry, error) {
	var out []spillEntry
	for ri := range ix.runs {
		r := &ix.runs[ri]
		// The first block that can hold h: the one before the first head
		// ≥ h (an equal head may be preceded by equal hashes).
		b, _ := slices.BinarySearch(r.heads, h)
		b = max(b-1, 0)
	blocks:
		for ; b < len(r.heads) && r.heads[b] <= h; b++ {
			lo := b * spillIndexBlock
			hi := min(lo+spillIndexBlock, r.n)
			n := (hi - lo) * spillEntrySize
			if cap(ix.buf) < n {
				ix.buf = make([]byte, n)
			}
			buf := ix.buf[:n]
			if _, err := ix.f.ReadAt(buf, r.off+int64(lo)*spillEntrySize); err != nil {
				return nil, fmt.Errorf("%w: spill index: %w", ErrCorrupt, err)
			}
			for e := 0; e < len(buf); e += spillEntrySize {
				eh := binary.LittleEndian.Uint64(buf[e:])
				if eh > h {
					break blocks
				}
				rec := int64(binary.LittleEndian.Uint64(buf[e+8:]))
				if eh == h && rec < int64(r.end) {
					out = append(out, spillEntry{hash: eh, rec: rec, off: int64(binary.LittleEndian.Uint64(buf[e+16:]))})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b spillEntry) int { return cmp.Compare(a.rec, b.rec) })
	return out, nil
}

func (ix *spillIndex) close() error { return ix.f.Close() }

// spilledOfKey returns the spilled records whose key is key, oldest first.
func (p *PendingWrites) spilledOfKey(key []byte) ([]KeyValue, error) {
	sp := p.spill
	if sp == nil || sp.index == nil {
		return nil, nil
	}
	entries, err := sp.index.lookup(sp.index.hash(key))
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	if err := sp.w.Flush(); err != nil {
		return nil, fmt.Errorf("kv: spill file: %w", err)
	}
	var out []KeyValue
	var k []byte
	for _, e := range entries {
		r, err := sp.readAt(e.off, int(e.rec))
		if err != nil {
			return nil, err
		}
		if k = AppendKey(k[:0], r.Value, p.keyIdx); string(k) == string(key) {
			out = append(out, r)
		}
	}
	return out, nil
}

// readAt decodes record number rec at offset off of the spill file.
func (sp *pendingSpill) readAt(off int64, rec int) (KeyValue, error) {
	if off < 0 || off >= sp.size {
		return KeyValue{}, fmt.Errorf("%w: spill file record %d at offset %d of %d", ErrCorrupt, rec, off, sp.size)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(sp.f, off, sp.size-off), 4096)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return KeyValue{}, fmt.Errorf("%w: spill file record %d: %w", ErrCorrupt, rec, err)
	}
	if n > uint64(sp.size-off) {
		return KeyValue{}, fmt.Errorf("%w: spill file record %d of %d bytes", ErrCorrupt, rec, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return KeyValue{}, fmt.Errorf("%w: spill file record %d: %w", ErrCorrupt, rec, err)
	}
	return sp.decode(buf, rec)
}
