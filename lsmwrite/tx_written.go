package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Written files. A statement with many rows (LOAD DATA in autocommit mode)
// writes them through a TableWrite of its own as they come: a full write
// buffer becomes sorted level-0 files per bucket during the statement, as
// Java's writer does, instead of being buffered, spilled to a local file
// and read back at commit. The TableWrite is handed to the commit
// (TxCommit.Written), which publishes its files as they are when no commit
// but compactions came after the snapshot they were written on (their
// sequence numbers follow every record), and otherwise writes their
// records again on the latest snapshot (as for buffered records) and
// deletes them. A statement that fails, a rollback and a conflict delete
// them (TableWrite.Abort).

// WriteStatement starts the TableWrite of a statement whose rows go to
// files as they come (TxCommit.Written) on the latest snapshot of the
// table rooted at st.
func WriteStatement(ctx context.Context, st storage.Storage, sch *schema.TableSchema, opts Options) (*TableWrite, error) {
	if !sch.IsPrimaryKeyTable() {
		return nil, fmt.Errorf("%w: a statement's files ahead of commit need a primary-key table", ErrUnsupported)
	}
	base, err := snapshot.OpenTable(st, opts.Branch).Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		base, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	w, err := NewTableWrite(ctx, st, sch, base, opts)
	if err != nil {
		return nil, err
	}
	w.background = true // flush_background.go
	return w, nil
}

// FilesWritten is the number of data files w has written so far (after
// the flush in flight).
func (w *TableWrite) FilesWritten() int {
	_ = w.waitFlush() // its error comes back from Prepare
	n := 0
	for _, p := range w.partOrder {
		for _, bs := range p.buckets {
			n += len(bs.data.files)
		}
	}
	return n
}

// writtenTx is the written files of a transaction being committed.
type writtenTx struct {
	w  *TableWrite
	ch *snapshot.CommitChanges // w's prepared changes
}

// prepareWritten closes tx.Written (its last buffered rows become files)
// and returns its changes; tx may hold no other records.
func prepareWritten(ctx context.Context, tx *TxCommit) (*writtenTx, error) {
	w := tx.Written
	if len(tx.Records) > 0 || tx.Source != nil || tx.Overwrite != nil {
		_ = w.Abort(ctx)
		return nil, fmt.Errorf("%w: a transaction's written files with buffered records or an overwrite", ErrUnsupported)
	}
	// The table may have been dropped (and created again) since the
	// statement began: its last rows must not become files in the folder
	// a drop has swept, as writeRecords' files never do there.
	if err := snapshot.CheckTableIdentity(ctx, w.st, tx.Options.Branch, tx.Schema.ID, tx.Schema.TimeMillis); err != nil {
		_ = w.Abort(ctx)
		return nil, err
	}
	ch, err := w.Prepare(ctx)
	if err != nil {
		_ = w.Abort(ctx)
		return nil, err
	}
	return &writtenTx{w: w, ch: ch}, nil
}

// rewrite writes the records of the written files again on latest, as a
// transaction's records (writeRecords): each bucket's files in the order
// they were written, so their records keep their order.
func (wt *writtenTx) rewrite(ctx context.Context, st storage.Storage, tx TxCommit, latest *snapshot.Snapshot) (*TableWrite, *snapshot.CommitChanges, error) {
	tx.Written, tx.Records = nil, nil
	tx.Source = func(fn func(kv.KeyValue) error) error {
		return eachFileRecord(ctx, st, tx.Options.Branch, tx.Schema, wt.ch.Entries, fn)
	}
	return writeRecords(ctx, st, tx, latest)
}

// eachFileRecord calls fn with the records of the ADD entries' data files
// of a primary-key table, file by file in entry order.
func eachFileRecord(ctx context.Context, st storage.Storage, branch string, sch *schema.TableSchema, entries []manifest.ManifestEntry, fn func(kv.KeyValue) error) error {
	core, err := sch.Options.Core()
	if err != nil {
		return err
	}
	partFields := sch.PartitionFields()
	partTypes := make([]schema.DataType, len(partFields))
	for i := range partFields {
		partTypes[i] = partFields[i].Type
	}
	keyIdx := sch.Projection(sch.TrimmedPrimaryKeys())
	reader := sortedrun.NewReader(sortedrun.Source{Store: st, Schemas: snapshot.NewSchemaManager(st, branch)}, sch.Fields, nil, keyIdx, time.UTC)
	for i := range entries {
		e := &entries[i]
		if e.Kind != manifest.FileKindAdd {
			continue
		}
		vals, err := binaryrow.DecodeSerialized(partTypes, e.Partition)
		if err != nil {
			return fmt.Errorf("lsmwrite: partition of %s: %w", e.File.FileName, err)
		}
		dir, err := schema.PartitionPath(partFields, vals, core.PartitionDefaultName, core.PartitionLegacyName)
		if err != nil {
			return err
		}
		f := &sortedrun.File{Name: e.File.FileName, Dir: dir + BucketDir(e.Bucket) + "/", SchemaID: e.File.SchemaID, Level: int(e.File.Level)}
		if e.File.ExternalPath != nil {
			f.ExternalPath = *e.File.ExternalPath
		}
		rd, err := reader.OpenKeyValues(ctx, f)
		if err != nil {
			return fmt.Errorf("lsmwrite: read back %s: %w", e.File.FileName, err)
		}
		for {
			r, ok, err := rd.Next()
			if err == nil && !ok {
				err = io.EOF
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err == nil {
				err = fn(kv.KeyValue{Kind: r.Kind, Seq: r.Seq, Value: r.Value, Level: -1})
			}
			if err != nil {
				_ = rd.Close()
				return fmt.Errorf("lsmwrite: read back %s: %w", e.File.FileName, err)
			}
		}
		if err := rd.Close(); err != nil {
			return err
		}
	}
	return nil
}
