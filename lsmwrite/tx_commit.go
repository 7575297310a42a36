package lsmwrite

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// ErrReadConflict is returned (wrapping snapshot.ErrConflict) when a
// snapshot committed after a transaction read a key changed that key: the
// transaction must be retried (MySQL 1213).
var ErrReadConflict = fmt.Errorf("%w: a row the transaction read was changed", snapshot.ErrConflict)

// TxCommit is one transaction's writes to one table.
type TxCommit struct {
	// Schema is the schema the records follow.
	Schema *schema.TableSchema
	// Records are the transaction's records, in write order (Kind and a
	// whole row in Value).
	Records []kv.KeyValue
	// Overwrite, when set, makes the commit an INSERT OVERWRITE
	// (TableWrite.SetOverwrite).
	Overwrite *TxOverwrite
	// ReadBase and ReadKey are the conflict predicate: a snapshot committed
	// after ReadBase that writes a key ReadKey accepts (kv.AppendKey over
	// kv.KeyIndexes(Schema)) fails the commit with ErrReadConflict. nil
	// ReadKey: the transaction's writes do not depend on what it read.
	ReadBase snapshot.SnapshotID
	ReadKey  func(key []byte) bool
	// Options are the writer's (CommitUser, Branch, Now).
	Options Options
	// Compactor, when set, runs the automatic compaction of the buckets
	// the commit wrote (AutoCompactor.AfterCommit) once it is published.
	Compactor *AutoCompactor
}

// TxOverwrite are the arguments of TableWrite.SetOverwrite.
type TxOverwrite struct {
	Static  [][]any
	Dynamic bool
}

// CommitTransaction writes a transaction's records and commits them as one
// snapshot, in snapshot.Committer's one retry loop. Before every attempt,
// on the snapshot the attempt builds on, it checks the conflict predicate
// and, when that snapshot added records since the files were written (a
// concurrent commit that is not a compaction), writes the files again on
// it, so the transaction's sequence numbers follow every record already
// committed (the later commit wins, as a single writer's would). A
// conflict deletes the files written and returns an error wrapping
// snapshot.ErrConflict (ErrReadConflict for the predicate).
//
// Records of one key that a retraction separates (-U or -D after a record
// of the key, or any record after such a retraction) go to separate
// level-0 files: the write buffer's merge would otherwise fold them
// without the committed row (a retracted aggregate, a partial update's
// NULL); the read merges the files in order. Deduplicate tables without
// sequence.field need no such split (foldsRetractions).
func CommitTransaction(ctx context.Context, st storage.Storage, tx TxCommit) (*snapshot.Snapshot, error) {
	if tx.Options.CommitUser == "" {
		tx.Options.CommitUser = uuid.NewString()
	}
	handle := snapshot.OpenTable(st, tx.Options.Branch)
	var (
		w       *TableWrite
		changes *snapshot.CommitChanges
		written *snapshot.Snapshot // the base w's files were written for
		co      snapshot.CommitOptions
	)
	abort := func() {
		if w != nil {
			_ = w.Abort(ctx)
			w = nil
		}
	}
	prepare := func(ctx context.Context, latest *snapshot.Snapshot) (*snapshot.CommitChanges, error) {
		if tx.ReadKey != nil && latest != nil && latest.ID > tx.ReadBase {
			if err := checkReadKeys(ctx, handle, tx, latest); err != nil {
				return nil, err
			}
		}
		if w != nil {
			ok, err := stillApplies(ctx, handle, written, latest)
			if err != nil {
				return nil, err
			}
			// Deletes from an append table name row positions in the
			// files of the snapshot written on, which a compaction
			// rewrites: they are looked up again on any newer snapshot.
			ok = ok && (!w.deletesRows() || sameSnapshot(written, latest))
			if ok {
				return changes, nil
			}
			abort()
		}
		nw, ch, err := writeRecords(ctx, st, tx, latest)
		if err != nil {
			return nil, err
		}
		w, changes, written = nw, ch, latest
		return ch, nil
	}
	// The first attempt's writer also gives the committer's options.
	latest, err := handle.Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		latest, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	first, err := prepare(ctx, latest)
	if err != nil {
		abort()
		return nil, err
	}
	var keyTypes []schema.DataType
	if w.spec.pk {
		keyTypes = w.spec.keyTypes
	}
	if co, err = commitOptions(w.core, tx.Options.Branch, w.partTypes, keyTypes, w.opts.Now, w.mode == bucketUnaware); err != nil {
		abort()
		return nil, err
	}
	attempt := 0
	s, err := snapshot.NewCommitter(st, co).CommitEach(ctx, tx.Schema.ID, func(ctx context.Context, latest *snapshot.Snapshot) (*snapshot.CommitChanges, error) {
		attempt++
		if attempt == 1 && sameSnapshot(latest, written) {
			return first, nil
		}
		return prepare(ctx, latest)
	})
	if err != nil {
		// Files are deleted only when no snapshot can reference them; on
		// other errors the publish may have happened, so they stay.
		if errors.Is(err, snapshot.ErrConflict) {
			abort()
		}
		return nil, err
	}
	// After the commit: the level-0 files of tables that need lookup are
	// compacted up before the statement returns (their reads skip level
	// 0), then automatic compaction looks at the buckets written. The
	// commit stands whatever they do (their failures are logged).
	buckets := w.Buckets()
	if s != nil && w.needsLevel0Compaction() {
		if s2, err := w.compactLevel0After(ctx, s, buckets); err == nil {
			s = s2
		}
	}
	if tx.Compactor != nil && s != nil {
		_ = tx.Compactor.AfterCommit(ctx, handle, tx.Schema, buckets)
	}
	return s, nil
}

// writeRecords writes tx's records on base and prepares their changes.
func writeRecords(ctx context.Context, st storage.Storage, tx TxCommit, base *snapshot.Snapshot) (*TableWrite, *snapshot.CommitChanges, error) {
	w, err := NewTableWrite(ctx, st, tx.Schema, base, tx.Options)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*TableWrite, *snapshot.CommitChanges, error) {
		_ = w.Abort(ctx)
		return nil, nil, err
	}
	if tx.Overwrite != nil {
		if err := w.SetOverwrite(tx.Overwrite.Static, tx.Overwrite.Dynamic); err != nil {
			return fail(err)
		}
	}
	if len(tx.Schema.PrimaryKeys) > 0 && !foldsRetractions(tx.Schema) {
		idx := kv.KeyIndexes(tx.Schema)
		seen := map[string]bool{}
		retracted := map[string]bool{}
		var key []byte
		for _, r := range tx.Records {
			key = kv.AppendKey(key[:0], r.Value, idx)
			retract := r.Kind == kv.UpdateBefore || r.Kind == kv.Delete
			if seen[string(key)] && (retract || retracted[string(key)]) {
				if err := w.Flush(ctx); err != nil {
					return fail(err)
				}
				clear(seen)
				clear(retracted)
			}
			seen[string(key)] = true
			if retract {
				retracted[string(key)] = true
			}
			if err := w.Write(ctx, r.Kind, r.Value); err != nil {
				return fail(err)
			}
		}
	} else {
		for _, r := range tx.Records {
			if err := w.Write(ctx, r.Kind, r.Value); err != nil {
				return fail(err)
			}
		}
	}
	ch, err := w.Prepare(ctx)
	if err != nil {
		return fail(err)
	}
	w.applyOverwrite(ch)
	return w, ch, nil
}

func sameSnapshot(a, b *snapshot.Snapshot) bool {
	return (a == nil) == (b == nil) && (a == nil || a.ID == b.ID)
}

// stillApplies reports whether files written on base may be committed on
// latest: the same snapshot, or only COMPACT snapshots in between (a
// compaction assigns no sequence numbers, so the files' numbers still
// follow every record).
func stillApplies(ctx context.Context, h *snapshot.Table, base, latest *snapshot.Snapshot) (bool, error) {
	if sameSnapshot(base, latest) {
		return true, nil
	}
	if base == nil || latest == nil || latest.ID < base.ID {
		return false, nil
	}
	for id := base.ID + 1; id <= latest.ID; id++ {
		s := latest
		if id != latest.ID {
			var err error
			if s, err = h.Snapshots().Snapshot(ctx, id); errors.Is(err, snapshot.ErrSnapshotNotFound) {
				return false, nil // expired: write again to be safe
			} else if err != nil {
				return false, err
			}
		}
		if s.CommitKind != snapshot.CommitKindCompact {
			return false, nil
		}
	}
	return true, nil
}

// foldsRetractions reports whether the table's merge function may meet a
// retraction and a later record of the same key in one write buffer: a
// deduplicate table without sequence.field keeps the last record whatever
// came before, so the -U/+U and -D/+I pairs of one transaction share a
// level-0 file (and, with changelog-producer=input, one changelog file, in
// order, as Flink writes them).
func foldsRetractions(sch *schema.TableSchema) bool {
	core, err := sch.Options.Core()
	if err != nil {
		return false
	}
	return core.MergeEngine == schema.MergeEngineDeduplicate && len(core.SequenceField) == 0
}
