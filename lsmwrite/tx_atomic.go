package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// Multi-table transactions. Paimon commits one table at a time; lakesql
// makes a transaction over several tables atomic with a record in the
// warehouse (snapshot.TxRecord):
//
//  1. Prepare, table by table without locks: check the conflict predicate
//     on the latest snapshot and write the files there.
//  2. Take the commit locks of all the tables (in one order) and check
//     again on the latest snapshots, writing a table's files again when
//     records were committed to it meanwhile. A conflict here, or in 1,
//     deletes every file written and fails the transaction with
//     ErrReadConflict: nothing was committed.
//  3. Write the record, listing each table's prepared commit. From here
//     the transaction commits.
//  4. Commit each table (commit user: the transaction id), still under the
//     locks, so no writer of this process comes in between; a writer of
//     another process may, and then the table's files are written again
//     on its snapshot (the transaction's records then follow that
//     writer's).
//  5. Delete the record.
//
// A crash between 3 and 5 leaves the record; RollForward (run by any
// lakesql server on start-up and when it finds a record older than
// RollForwardAge) commits every table that has no snapshot of the
// transaction's commit user since its base, from the record's files (read
// back and written again on the newer snapshot when needed), and deletes
// the record. Committing a table twice is impossible: before every attempt
// the committer looks for the transaction's snapshot, and the attempt
// publishes the next snapshot id atomically.

// ErrInDoubt wraps the error of a multi-table transaction whose record was
// written but whose tables did not all commit: the transaction will commit
// (RollForward completes it), but the statement could not wait for it.
var ErrInDoubt = errors.New("lsmwrite: the transaction is recorded and will be completed, but not all of its tables committed yet")

// ErrOutcomeUnknown wraps the error of a multi-table transaction whose
// record could not be written and not be found out to be absent (the
// store failed with an unsure outcome and then could not be asked): the
// transaction committed every table (recovery completes it) or none.
var ErrOutcomeUnknown = errors.New("lsmwrite: writing the transaction record failed with an unknown outcome: the transaction commits on every table or on none")

// AtomicTable is one table of a multi-table transaction.
type AtomicTable struct {
	// Path is the table folder relative to the warehouse ("db.db/t").
	Path string
	// Storage is rooted at the table folder.
	Storage storage.Storage
	Tx      TxCommit
}

// atomicPart is one table's state during CommitAtomic or RollForward.
type atomicPart struct {
	path    string
	st      storage.Storage
	tx      TxCommit
	handle  *snapshot.Table
	checked snapshot.SnapshotID // read keys checked up to

	// The prepared commit: the files written on base, and their changes.
	w       *TableWrite // nil for a record read back (RollForward)
	changes *snapshot.CommitChanges
	base    *snapshot.Snapshot
	co      snapshot.CommitOptions
	// redo writes the records again on a newer snapshot: from tx.Records
	// while committing, from the record's files when rolling forward.
	redo func(ctx context.Context, latest *snapshot.Snapshot) (*TableWrite, *snapshot.CommitChanges, error)
}

func (p *atomicPart) key() string { return snapshot.CommitLockKey(p.st, p.tx.Options.Branch) }

func (p *atomicPart) abort(ctx context.Context) {
	if p.w != nil {
		_ = p.w.Abort(ctx)
		p.w = nil
	}
}

// latest is the table's latest snapshot, nil when it has none.
func (p *atomicPart) latest(ctx context.Context) (*snapshot.Snapshot, error) {
	s, err := p.handle.Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		return nil, nil
	}
	return s, err
}

// prepare checks the conflict predicate up to latest and, unless the
// files already written still apply to it, writes them on latest.
func (p *atomicPart) prepare(ctx context.Context) error {
	// The table must still be the one the transaction wrote: dropped, or
	// dropped and created again by another server, nothing commits.
	if err := snapshot.CheckTableIdentity(ctx, p.st, p.tx.Options.Branch, p.tx.Schema.ID, p.tx.Schema.TimeMillis); err != nil {
		return err
	}
	latest, err := p.latest(ctx)
	if err != nil {
		return err
	}
	if p.tx.ReadKey != nil && latest != nil && latest.ID > p.checked {
		c := p.tx
		c.ReadBase = p.checked
		if err := checkReadKeys(ctx, p.handle, c, latest); err != nil {
			return err
		}
		p.checked = latest.ID
	}
	if p.w != nil {
		ok, err := stillApplies(ctx, p.handle, p.base, latest)
		if err != nil || ok {
			return err
		}
		p.abort(ctx)
	}
	w, ch, err := writeRecords(ctx, p.st, p.tx, latest)
	if err != nil {
		return err
	}
	var keyTypes []schema.DataType
	if w.spec.pk {
		keyTypes = w.spec.keyTypes
	}
	co, err := commitOptions(w.core, p.tx.Options.Branch, w.partTypes, keyTypes, w.opts.Now, w.mode == bucketUnaware)
	if err != nil {
		_ = w.Abort(ctx)
		return err
	}
	co.SchemaTimeMillis = p.tx.Schema.TimeMillis
	p.w, p.changes, p.base, p.co = w, ch, latest, co
	return nil
}

// CommitAtomic commits the transactions of tables (one per table) all or
// none, as described above. A conflict is an error wrapping
// ErrReadConflict (or snapshot.ErrConflict) with nothing committed; an
// error wrapping ErrInDoubt means the record is written and the
// transaction will commit. Other errors leave nothing committed.
func CommitAtomic(ctx context.Context, wh storage.Storage, tables []AtomicTable) error {
	for _, t := range tables {
		if t.Tx.Written != nil {
			for _, t := range tables {
				if t.Tx.Written != nil {
					_ = t.Tx.Written.Abort(ctx)
				}
			}
			return fmt.Errorf("%w: written files in a multi-table transaction", ErrUnsupported)
		}
	}
	id := uuid.NewString()
	parts := make([]*atomicPart, len(tables))
	for i, t := range tables {
		tx := t.Tx
		tx.Options.CommitUser = id
		p := &atomicPart{path: t.Path, st: t.Storage, tx: tx, handle: snapshot.OpenTable(t.Storage, tx.Options.Branch), checked: tx.ReadBase}
		p.redo = func(ctx context.Context, latest *snapshot.Snapshot) (*TableWrite, *snapshot.CommitChanges, error) {
			return writeRecords(ctx, p.st, p.tx, latest)
		}
		parts[i] = p
	}
	slices.SortFunc(parts, func(a, b *atomicPart) int { return strings.Compare(a.key(), b.key()) })
	abortAll := func() {
		for _, p := range parts {
			p.abort(ctx)
		}
	}
	// 1. Prepare without locks.
	for _, p := range parts {
		if err := p.prepare(ctx); err != nil {
			abortAll()
			return fmt.Errorf("table %s: %w", p.path, err)
		}
	}
	// 2. Check again under every table's commit lock.
	keys := make([]string, len(parts))
	for i, p := range parts {
		keys[i] = p.key()
	}
	lctx, unlock := snapshot.LockCommits(ctx, keys)
	defer unlock()
	for _, p := range parts {
		if err := p.prepare(lctx); err != nil {
			abortAll()
			return fmt.Errorf("table %s: %w", p.path, err)
		}
	}
	// 3. The record, once every file it lists is durable (a roll-forward
	// publishes them).
	for _, p := range parts {
		if p.changes.Durable == nil {
			continue
		}
		if err := p.changes.Durable(lctx); err != nil {
			abortAll()
			return fmt.Errorf("table %s: %w", p.path, err)
		}
	}
	rec := &snapshot.TxRecord{ID: id, TimeMillis: time.Now().UnixMilli()}
	for _, p := range parts {
		t := snapshot.TxRecordTable{Path: p.path, Branch: p.tx.Options.Branch, SchemaID: p.tx.Schema.ID, SchemaTime: p.tx.Schema.TimeMillis, Changes: *p.changes}
		if p.base != nil {
			t.Base = p.base.ID
		}
		rec.Tables = append(rec.Tables, t)
	}
	if err := snapshot.WriteTxRecord(ctx, wh, rec); err != nil {
		// The record may exist after all (an unsure write): only when it
		// surely does not are the files deleted.
		if derr := snapshot.DeleteTxRecord(context.WithoutCancel(ctx), wh, id); derr != nil {
			return fmt.Errorf("%w: %w (and removing it failed: %v)", ErrOutcomeUnknown, err, derr)
		}
		abortAll()
		return err
	}
	// 4. Commit every table; nothing stops that now but a failing store.
	pctx := context.WithoutCancel(lctx)
	var failed error
	committed := make([]*snapshot.Snapshot, len(parts))
	for i, p := range parts {
		s, err := p.commit(pctx)
		if errors.Is(err, snapshot.ErrTableDropped) {
			// Dropped (or created again) by another server since the
			// check: the transaction is decided, and its writes to the
			// table went with the table, as a roll-forward finds too.
			p.abort(pctx)
			continue
		}
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("table %s: %w", p.path, err))
			continue
		}
		committed[i] = s
	}
	unlock()
	if failed != nil {
		return fmt.Errorf("%w: %w", ErrInDoubt, failed)
	}
	// 5. Done: the record goes, then what follows each commit.
	_ = snapshot.DeleteTxRecord(pctx, wh, id)
	for i, p := range parts {
		if p.w != nil && committed[i] != nil {
			afterCommit(pctx, p.handle, p.w, committed[i], &p.tx)
		}
	}
	return nil
}

// errCommitted: the commit is found published (by an earlier attempt, or
// by another server rolling the transaction forward).
type errCommitted struct{ s *snapshot.Snapshot }

func (e *errCommitted) Error() string {
	return fmt.Sprintf("lsmwrite: already committed as snapshot %d", e.s.ID)
}

// commit publishes the prepared commit: as prepared while it applies to
// the latest snapshot, else written again there (p.redo). It returns the
// transaction's snapshot, whoever published it.
func (p *atomicPart) commit(ctx context.Context) (*snapshot.Snapshot, error) {
	var (
		baseID  snapshot.SnapshotID
		changes = p.changes
		written = p.base
		redo    *TableWrite // files written again, not in the record
	)
	if p.base != nil {
		baseID = p.base.ID
	}
	user, ident := p.changes.CommitUser, p.changes.CommitIdentifier
	s, err := snapshot.NewCommitter(p.st, p.co).CommitEach(ctx, p.tx.Schema.ID, func(ctx context.Context, latest *snapshot.Snapshot) (*snapshot.CommitChanges, error) {
		if s, err := committedBy(ctx, p.handle, baseID, latest, user, ident); err != nil {
			return nil, err
		} else if s != nil {
			return nil, &errCommitted{s}
		}
		ok, err := stillApplies(ctx, p.handle, written, latest)
		if err != nil {
			return nil, err
		}
		if ok {
			return changes, nil
		}
		w, ch, err := p.redo(ctx, latest)
		if err != nil {
			return nil, err
		}
		ch.CommitUser, ch.CommitIdentifier = user, ident
		if redo != nil {
			_ = redo.Abort(ctx)
		}
		redo, changes, written = w, ch, latest
		return ch, nil
	})
	var done *errCommitted
	if errors.As(err, &done) {
		if redo != nil {
			_ = redo.Abort(ctx)
		}
		return done.s, nil
	}
	if err != nil {
		return nil, err
	}
	if redo != nil {
		// The record's files were replaced by the ones written again.
		p.abort(ctx)
		p.w = redo
	}
	return s, nil
}

// committedBy finds the snapshot in (base, latest] that user committed
// with identifier ident (not a compaction), newest first; snapshots
// expired meanwhile are skipped.
func committedBy(ctx context.Context, h *snapshot.Table, base snapshot.SnapshotID, latest *snapshot.Snapshot, user string, ident int64) (*snapshot.Snapshot, error) {
	if latest == nil {
		return nil, nil
	}
	for id := latest.ID; id > base; id-- {
		s := latest
		if id != latest.ID {
			var err error
			if s, err = h.Snapshots().Snapshot(ctx, id); errors.Is(err, snapshot.ErrSnapshotNotFound) {
				break // expired: so are the older ones
			} else if err != nil {
				return nil, err
			}
		}
		if s.CommitUser == user && s.CommitIdentifier == ident && s.CommitKind != snapshot.CommitKindCompact {
			return s, nil
		}
	}
	return nil, nil
}
