package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	// Source, when set, streams the records instead of Records (a
	// transaction's records that spilled to a local file: more than
	// write-buffer-size, kv.PendingWrites.Each); it may be called once per
	// commit attempt.
	Source func(fn func(kv.KeyValue) error) error
	// Written, when set, holds the transaction's rows already written as
	// level-0 files by a TableWrite of its own (WriteStatement); the
	// commit takes it over (publishes or deletes its files). Records,
	// Source and Overwrite are then empty, and the transaction commits in
	// a batch of its own.
	Written *TableWrite
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
	// After, when set, runs once the commit is published and compacted as
	// above (the table's maintenance). A group commit runs the first
	// transaction's once for the batch.
	After func(ctx context.Context, s *snapshot.Snapshot)
}

// eachRecord calls fn with every record of tx in write order.
func (tx *TxCommit) eachRecord(fn func(kv.KeyValue) error) error {
	if tx.Source != nil {
		return tx.Source(fn)
	}
	for _, r := range tx.Records {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
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
//
// CommitGrouped commits concurrent transactions of one table together.
func CommitTransaction(ctx context.Context, st storage.Storage, tx TxCommit) (*snapshot.Snapshot, error) {
	s, errs, err := commitBatch(ctx, st, []*TxCommit{&tx}, tx.Options.CommitUser)
	if err != nil {
		return nil, err
	}
	if errs[0] != nil {
		return nil, errs[0]
	}
	return s, nil
}

// errNothingLeft: every transaction of a batch failed its conflict check.
var errNothingLeft = errors.New("lsmwrite: every transaction of the batch conflicts")

// commitBatch commits the records of txs (transactions on one table and
// branch, with one schema; an overwrite only alone) as one snapshot, in
// their order: a later transaction's records follow an earlier one's, as
// if each had committed in turn. A transaction whose conflict predicate
// fails (a snapshot after its ReadBase, or an earlier transaction of the
// batch, wrote a key it read) is left out and gets ErrReadConflict in
// errs; the others commit. err is an error of the whole batch (nothing of
// it committed, unless the error says the outcome is unknown).
func commitBatch(ctx context.Context, st storage.Storage, txs []*TxCommit, user string) (_ *snapshot.Snapshot, errs []error, _ error) {
	if user == "" {
		user = uuid.NewString()
	}
	first := txs[0]
	handle := snapshot.OpenTable(st, first.Options.Branch)
	errs = make([]error, len(txs))
	checked := make([]snapshot.SnapshotID, len(txs)) // read keys checked up to
	for i, tx := range txs {
		checked[i] = tx.ReadBase
	}
	var (
		w        *TableWrite
		changes  *snapshot.CommitChanges
		written  *snapshot.Snapshot // the base w's files were written for
		accepted []int              // the transactions w holds
		early    *writtenTx         // first.Written, prepared
	)
	if first.Written != nil {
		user = first.Written.CommitUser() // the files' changes carry it
		if len(txs) != 1 {
			for _, tx := range txs {
				if tx.Written != nil {
					_ = tx.Written.Abort(ctx)
				}
			}
			return nil, errs, fmt.Errorf("%w: written files in a batch of transactions", ErrUnsupported)
		}
		var err error
		if early, err = prepareWritten(ctx, first); err != nil {
			return nil, errs, err
		}
	}
	// abort deletes w's files, unless they are the written ones, which
	// dropEarly deletes once no commit can publish them.
	abort := func() {
		if w != nil {
			if early == nil || w != early.w {
				_ = w.Abort(ctx)
			}
			w = nil
		}
	}
	dropEarly := func() {
		if early != nil && (w == nil || w != early.w) {
			_ = early.w.Abort(ctx)
			early = nil
		}
	}
	prepare := func(ctx context.Context, latest *snapshot.Snapshot) (*snapshot.CommitChanges, error) {
		acc, err := acceptBatch(ctx, handle, txs, errs, checked, latest)
		if err != nil {
			return nil, err
		}
		if len(acc) == 0 {
			return nil, errNothingLeft
		}
		if w != nil && slices.Equal(acc, accepted) {
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
		}
		abort()
		var (
			nw *TableWrite
			ch *snapshot.CommitChanges
		)
		switch {
		case early == nil:
			nw, ch, err = writeRecords(ctx, st, batchTx(txs, acc, user), latest)
		case sameSnapshot(early.w.base, latest):
			nw, ch = early.w, early.ch
		default:
			ok, err := stillApplies(ctx, handle, early.w.base, latest)
			if err != nil {
				return nil, err
			}
			if ok {
				nw, ch = early.w, early.ch
				break
			}
			if nw, ch, err = early.rewrite(ctx, st, batchTx(txs, acc, user), latest); err != nil {
				return nil, err
			}
		}
		if err != nil {
			return nil, err
		}
		w, changes, written, accepted = nw, ch, latest, acc
		return ch, nil
	}
	// The first attempt's writer also gives the committer's options.
	latest, err := handle.Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		latest, err = nil, nil
	}
	if err != nil {
		dropEarly()
		return nil, errs, err
	}
	firstChanges, err := prepare(ctx, latest)
	if err != nil {
		abort()
		dropEarly()
		if errors.Is(err, errNothingLeft) {
			return nil, errs, nil
		}
		return nil, errs, err
	}
	var keyTypes []schema.DataType
	if w.spec.pk {
		keyTypes = w.spec.keyTypes
	}
	co, err := commitOptions(w.core, first.Options.Branch, w.partTypes, keyTypes, w.opts.Now, w.mode == bucketUnaware)
	if err != nil {
		abort()
		dropEarly()
		return nil, errs, err
	}
	co.SchemaTimeMillis = first.Schema.TimeMillis
	attempt := 0
	s, err := snapshot.NewCommitter(st, co).CommitEach(ctx, first.Schema.ID, func(ctx context.Context, latest *snapshot.Snapshot) (*snapshot.CommitChanges, error) {
		attempt++
		if attempt == 1 && sameSnapshot(latest, written) {
			return firstChanges, nil
		}
		return prepare(ctx, latest)
	})
	if err != nil {
		// Files are deleted only when no snapshot can reference them; on
		// other errors the publish may have happened, so they stay.
		if errors.Is(err, errNothingLeft) {
			abort()
			dropEarly()
		} else if abandonFailed(ctx, st, first.Options.Branch, first.Schema.ID, err, func() { abort(); dropEarly() }) == false {
			dropEarly() // unless w holds them, nothing can publish them
		}
		if errors.Is(err, errNothingLeft) {
			return nil, errs, nil
		}
		return nil, errs, err
	}
	for i := range txs {
		if errs[i] == nil && !slices.Contains(accepted, i) {
			errs[i] = errors.New("lsmwrite: transaction left out of its batch") // not reached: every one is accepted or failed
		}
	}
	dropEarly() // written again on a later snapshot
	return afterCommit(ctx, handle, w, s, first), errs, nil
}

// afterCommit runs what follows a published commit: the level-0 files of
// tables that need lookup are compacted up before the statement returns
// (their reads skip level 0), then automatic compaction looks at the
// buckets written, then tx.After. The commit stands whatever they do
// (their failures are logged by them).
func afterCommit(ctx context.Context, handle *snapshot.Table, w *TableWrite, s *snapshot.Snapshot, tx *TxCommit) *snapshot.Snapshot {
	if s == nil {
		return nil
	}
	buckets := w.Buckets()
	if w.needsLevel0Compaction() {
		if s2, err := w.compactLevel0After(ctx, s, buckets); err == nil {
			s = s2
		}
	}
	if tx.Compactor != nil {
		_ = tx.Compactor.AfterCommit(ctx, handle, tx.Schema, buckets)
	}
	if tx.After != nil {
		tx.After(ctx, s)
	}
	return s
}

// acceptBatch checks the conflict predicate of every transaction of txs
// not failed yet on latest: against the snapshots committed after what it
// was checked against (checked, advanced to latest) and against the
// writes of the transactions accepted before it in the batch. It records
// conflicts in errs and returns the accepted transactions' indexes.
func acceptBatch(ctx context.Context, handle *snapshot.Table, txs []*TxCommit, errs []error, checked []snapshot.SnapshotID, latest *snapshot.Snapshot) ([]int, error) {
	lastReader := -1
	for i, tx := range txs {
		if errs[i] == nil && tx.ReadKey != nil {
			lastReader = i
		}
	}
	var (
		acc     []int
		written map[string]struct{} // keys written by acc, while a later transaction reads
		key     []byte
	)
	for i, tx := range txs {
		if errs[i] != nil {
			continue
		}
		if tx.ReadKey != nil {
			if latest != nil && latest.ID > checked[i] {
				c := *tx
				c.ReadBase = checked[i]
				if err := checkReadKeys(ctx, handle, c, latest); errors.Is(err, ErrReadConflict) {
					errs[i] = err
					continue
				} else if err != nil {
					return nil, err
				}
				checked[i] = latest.ID
			}
			if conflict := anyKey(written, tx.ReadKey); conflict {
				errs[i] = fmt.Errorf("%w by a transaction committed just before it", ErrReadConflict)
				continue
			}
		}
		acc = append(acc, i)
		if i < lastReader {
			if written == nil {
				written = map[string]struct{}{}
			}
			idx := kv.KeyIndexes(tx.Schema)
			err := tx.eachRecord(func(r kv.KeyValue) error {
				key = kv.AppendKey(key[:0], r.Value, idx)
				written[string(key)] = struct{}{}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return acc, nil
}

func anyKey(keys map[string]struct{}, accept func([]byte) bool) bool {
	for k := range keys {
		if accept([]byte(k)) {
			return true
		}
	}
	return false
}

// batchTx is the one transaction the accepted transactions of a batch
// make: their records in order, under the batch's commit user.
func batchTx(txs []*TxCommit, acc []int, user string) TxCommit {
	out := *txs[acc[0]]
	out.Options.CommitUser = user
	if len(acc) > 1 {
		out.Records = nil
		out.Source = func(fn func(kv.KeyValue) error) error {
			for _, i := range acc {
				if err := txs[i].eachRecord(fn); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return out
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
		err := tx.eachRecord(func(r kv.KeyValue) error {
			key = kv.AppendKey(key[:0], r.Value, idx)
			retract := r.Kind == kv.UpdateBefore || r.Kind == kv.Delete
			if seen[string(key)] && (retract || retracted[string(key)]) {
				if err := w.Flush(ctx); err != nil {
					return err
				}
				clear(seen)
				clear(retracted)
			}
			seen[string(key)] = true
			if retract {
				retracted[string(key)] = true
			}
			return w.Write(ctx, r.Kind, r.Value)
		})
		if err != nil {
			return fail(err)
		}
	} else if err := tx.eachRecord(func(r kv.KeyValue) error { return w.Write(ctx, r.Kind, r.Value) }); err != nil {
		return fail(err)
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
