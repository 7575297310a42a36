package kv

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

// ErrSpilled marks a read of a transaction's pending records that moved to
// its spill file (more than write-buffer-size in one transaction): the
// spill file is streamed to the commit, not indexed by key.
var ErrSpilled = errors.New("kv: the transaction's writes exceed write-buffer-size and went to a spill file")

// pendingSpill is the local temporary file a PendingWrites moves its records
// to past its limit, in write order: each record is a uvarint length and
// the record's BinaryRow (its RowKind in the header), like Java's spillable
// write buffer (write-buffer-spillable) but before the sort: the commit
// streams the records into lsmwrite's write buffer, which flushes sorted
// level-0 files at write-buffer-size. The file is unlinked at creation: only
// the open descriptor holds it, so a crash leaves nothing behind.
type pendingSpill struct {
	f     *os.File
	w     *bufio.Writer
	codec *binaryrow.Codec
	n     int   // records in the file
	size  int64 // bytes in the file (written through w)
	// stmtOff is the offset of the running statement's first record when
	// it is in the file (-1: it is not).
	stmtOff int64
	buf     []byte
	// index finds records by key (primary-key tables; nil for append
	// tables, whose buffers answer no key reads).
	index *spillIndex
}

func newPendingSpill(p *PendingWrites) (*pendingSpill, error) {
	types := make([]schema.DataType, len(p.sch.Fields))
	for i := range p.sch.Fields {
		types[i] = p.sch.Fields[i].Type
	}
	codec, err := binaryrow.NewCodec(types)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "lakesql-pending-*")
	if err != nil {
		return nil, fmt.Errorf("kv: spill file: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("kv: spill file: %w", err)
	}
	sp := &pendingSpill{f: f, w: bufio.NewWriterSize(f, 1<<20), codec: codec, stmtOff: -1}
	if p.pk {
		if sp.index, err = newSpillIndex(); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return sp, nil
}

// spillOut moves the in-memory records to the spill file.
func (p *PendingWrites) spillOut() error {
	if p.spill == nil {
		sp, err := newPendingSpill(p)
		if err != nil {
			return err
		}
		p.spill = sp
	}
	sp := p.spill
	var entries []spillEntry
	if sp.index != nil {
		entries = make([]spillEntry, 0, len(p.recs))
	}
	first := sp.n
	for i := range p.recs {
		if sp.n == p.stmt {
			sp.stmtOff = sp.size
		}
		if sp.index != nil {
			entries = append(entries, spillEntry{hash: sp.index.hash(p.key(p.recs[i].Value)), rec: int64(sp.n), off: sp.size})
		}
		if err := sp.write(&p.recs[i]); err != nil {
			return err
		}
	}
	if sp.index != nil {
		if err := sp.index.addRun(first, entries); err != nil {
			return err
		}
	}
	// The key index of the in-memory records starts again with the next.
	if p.byKey != nil {
		clear(p.byKey)
	}
	p.indexed = 0
	clear(p.recs)
	p.recs = p.recs[:0]
	p.bytes = 0
	return nil
}

func (sp *pendingSpill) write(r *KeyValue) error {
	var err error
	if sp.buf, err = sp.codec.Append(sp.buf[:0], int8(r.Kind), r.Value); err != nil {
		return fmt.Errorf("kv: spill a record: %w", err)
	}
	var pre [binary.MaxVarintLen64]byte
	np := binary.PutUvarint(pre[:], uint64(len(sp.buf)))
	if _, err := sp.w.Write(pre[:np]); err != nil {
		return fmt.Errorf("kv: spill file: %w", err)
	}
	if _, err := sp.w.Write(sp.buf); err != nil {
		return fmt.Errorf("kv: spill file: %w", err)
	}
	sp.size += int64(np + len(sp.buf))
	sp.n++
	return nil
}

// truncate drops the records from n on; n is the running statement's first
// record, whose offset the file recorded.
func (sp *pendingSpill) truncate(n int) error {
	if sp.stmtOff < 0 || n > sp.n {
		return fmt.Errorf("kv: spill file: no offset of record %d", n)
	}
	if err := sp.w.Flush(); err != nil {
		return fmt.Errorf("kv: spill file: %w", err)
	}
	if err := sp.f.Truncate(sp.stmtOff); err != nil {
		return fmt.Errorf("kv: spill file: %w", err)
	}
	if _, err := sp.f.Seek(sp.stmtOff, io.SeekStart); err != nil {
		return fmt.Errorf("kv: spill file: %w", err)
	}
	sp.w.Reset(sp.f)
	sp.size = sp.stmtOff
	sp.n = n
	if sp.index != nil {
		return sp.index.truncate(n)
	}
	return nil
}

func (sp *pendingSpill) close() error {
	err := sp.f.Close()
	if sp.index != nil {
		if e := sp.index.close(); err == nil {
			err = e
		}
	}
	return err
}

// decode parses record number rec (a BinaryRow with its RowKind).
func (sp *pendingSpill) decode(buf []byte, rec int) (KeyValue, error) {
	kind, err := binaryrow.RowKindOf(buf)
	if err != nil {
		return KeyValue{}, fmt.Errorf("%w: spill file record %d: %w", ErrCorrupt, rec, err)
	}
	row, err := sp.codec.Decode(buf)
	if err != nil {
		return KeyValue{}, fmt.Errorf("%w: spill file record %d: %w", ErrCorrupt, rec, err)
	}
	return KeyValue{Kind: RowKind(kind), Value: row, Seq: SeqNum(rec), Level: -1}, nil
}

// Each calls fn with every buffered record in write order, the spilled ones
// decoded from the spill file (a new Value each), then the ones in memory
// (which fn must not modify). It stops at fn's first error.
func (p *PendingWrites) Each(fn func(KeyValue) error) error {
	if sp := p.spill; sp != nil {
		if err := sp.w.Flush(); err != nil {
			return fmt.Errorf("kv: spill file: %w", err)
		}
		r := bufio.NewReaderSize(io.NewSectionReader(sp.f, 0, sp.size), 1<<20)
		var buf []byte
		for i := 0; i < sp.n; i++ {
			n, err := binary.ReadUvarint(r)
			if err != nil {
				return fmt.Errorf("%w: spill file record %d: %w", ErrCorrupt, i, err)
			}
			if n > uint64(sp.size) {
				return fmt.Errorf("%w: spill file record %d of %d bytes", ErrCorrupt, i, n)
			}
			if uint64(cap(buf)) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, err := io.ReadFull(r, buf); err != nil {
				return fmt.Errorf("%w: spill file record %d: %w", ErrCorrupt, i, err)
			}
			rec, err := sp.decode(buf, i)
			if err != nil {
				return err
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
	for _, r := range p.recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
