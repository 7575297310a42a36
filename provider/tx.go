package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// ErrConflict is returned when a transaction's commit conflicts with a
// commit made after it read; the client may retry (MySQL error 1213).
var ErrConflict = errors.New("lakesql: transaction conflict, retry the transaction")

// Transaction buffers a session's writes until commit: each statement or
// explicit transaction commits one Paimon snapshot per table it wrote.
// Reads inside the transaction see its own writes.
type Transaction struct {
	mu       sync.Mutex
	readOnly bool
	tables   map[string]*txTable // by table folder URL
	order    []string
}

var _ sql.Transaction = (*Transaction)(nil)

// NewTransaction starts a transaction.
func NewTransaction(readOnly bool) *Transaction {
	return &Transaction{readOnly: readOnly, tables: map[string]*txTable{}}
}

func (tx *Transaction) String() string   { return fmt.Sprintf("lakesql tx (%d tables)", len(tx.tables)) }
func (tx *Transaction) IsReadOnly() bool { return tx.readOnly }

// txOverwrite is an INSERT OVERWRITE of a table in a transaction.
type txOverwrite struct {
	static  [][]any // partitions named by PARTITION (...)
	dynamic bool    // replace the partitions rows are written to
}

// BeginOverwrite marks table t so the transaction's writes to it replace
// data instead of adding to it (INSERT OVERWRITE): with static partition
// values (column → value text) only that partition, otherwise every
// partition the written rows fall in (Paimon's dynamic partition
// overwrite), or the whole table when it is unpartitioned.
func BeginOverwrite(ctx *sql.Context, table sql.Table, static map[string]string) error {
	t, ok := sql.GetUnderlyingTable(table).(*Table)
	if !ok {
		return fmt.Errorf("lakesql: INSERT OVERWRITE needs a Paimon table, not %T", table)
	}
	if t.tt != (lsmread.TimeTravel{}) || t.ro {
		return fmt.Errorf("lakesql: %s is read-only", t.name)
	}
	tx, err := txFromContext(ctx)
	if err != nil {
		return err
	}
	tt, err := tx.table(ctx, t)
	if err != nil {
		return err
	}
	ow := &txOverwrite{dynamic: len(static) == 0}
	if len(static) > 0 {
		parts := t.sch.PartitionFields()
		vals := make([]any, len(parts))
		core, err := t.sch.Options.Core()
		if err != nil {
			return err
		}
		for name, text := range static {
			j := -1
			for i, f := range parts {
				if equalFold(f.Name, name) {
					j = i
				}
			}
			if j < 0 {
				return fmt.Errorf("lakesql: %s is not a partition column of %s", name, t.name)
			}
			if vals[j], err = schema.ParsePartitionSpecValue(&parts[j].Type, text, core.PartitionDefaultName); err != nil {
				return fmt.Errorf("lakesql: partition value %q for %s: %w", text, name, err)
			}
		}
		if len(static) != len(parts) {
			return fmt.Errorf("lakesql: INSERT OVERWRITE ... PARTITION must name every partition column of %s (%d)", t.name, len(parts))
		}
		ow.static = [][]any{vals}
	}
	tx.mu.Lock()
	tt.overwrite = ow
	tx.mu.Unlock()
	return nil
}

// txTable is the buffered state of one table in a transaction.
type txTable struct {
	st   storage.Storage
	lt   *lsmread.Table
	sch  *schema.TableSchema
	name string
	// base is the snapshot id the transaction first read or wrote against.
	base snapshot.SnapshotID
	// pending are the buffered records (completed statements and the
	// running one) and the keys whose new values depend on what the
	// transaction read (UPDATE, DELETE, ON DUPLICATE KEY UPDATE): a commit
	// by someone else touching them after base is a conflict.
	pending *kv.PendingWrites
	// overwrite, when set, makes the commit an INSERT OVERWRITE.
	overwrite *txOverwrite
}

func txFromContext(ctx *sql.Context) (*Transaction, error) {
	tx, ok := ctx.GetTransaction().(*Transaction)
	if !ok || tx == nil {
		return nil, fmt.Errorf("lakesql: no transaction in session (writes need a lakesql session)")
	}
	return tx, nil
}

// txKey identifies t's table and branch among a transaction's tables.
func (t *Table) txKey() string { return t.lt.Storage().URL() + "#" + t.lt.BranchName() }

// table returns (creating) the buffered state of t.
func (tx *Transaction) table(ctx context.Context, t *Table) (*txTable, error) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	key := t.txKey()
	if tt, ok := tx.tables[key]; ok {
		return tt, nil
	}
	tt := &txTable{st: t.lt.Storage(), lt: t.lt, sch: t.sch, name: t.name, pending: kv.NewPendingWrites(t.sch)}
	if id, ok, err := t.lt.Snapshots().LatestID(ctx); err != nil {
		return nil, err
	} else if ok {
		tt.base = id
	}
	tx.tables[key] = tt
	tx.order = append(tx.order, key)
	return tt, nil
}

// noteRead records that the transaction read t at snapshot id: writes it
// derives from what it read conflict with commits after the earliest such
// read.
func (tx *Transaction) noteRead(t *Table, id snapshot.SnapshotID) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	key := t.txKey()
	if tt, ok := tx.tables[key]; ok {
		if id < tt.base {
			tt.base = id
		}
		return
	}
	tx.tables[key] = &txTable{st: t.lt.Storage(), lt: t.lt, sch: t.sch, name: t.name, base: id, pending: kv.NewPendingWrites(t.sch)}
	tx.order = append(tx.order, key)
}

// hasPending reports whether the transaction buffered records for t.
func (tx *Transaction) hasPending(t *Table) bool {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tt, ok := tx.tables[t.txKey()]
	return ok && tt.pending.Len() > 0
}

// statementDone makes the running statement's records part of the
// transaction.
func (tx *Transaction) statementDone() {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	for _, tt := range tx.tables {
		tt.pending.StatementDone()
	}
}

// discardStatement drops the running statement's records.
func (tx *Transaction) discardStatement() {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	for _, tt := range tx.tables {
		tt.pending.DiscardStatement()
	}
}

// Commit writes every buffered table and commits one snapshot per table.
// Tables commit one after another; Paimon has no multi-table atomicity.
func (tx *Transaction) Commit(ctx context.Context) error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	defer func() { tx.tables = map[string]*txTable{}; tx.order = nil }()
	for _, key := range tx.order {
		tt := tx.tables[key]
		ops := tt.pending.Records()
		if len(ops) == 0 && tt.overwrite == nil {
			continue
		}
		if err := tt.commit(ctx, ops); err != nil {
			return err
		}
	}
	return nil
}

// Rollback drops everything buffered.
func (tx *Transaction) Rollback() {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.tables = map[string]*txTable{}
	tx.order = nil
}

// errRebase stops a commit attempt whose files were written against an
// older snapshot than the latest: they are rewritten on the new base, so
// their sequence numbers follow every record already committed (the later
// commit wins, as a single writer's would).
var errRebase = errors.New("lakesql: table changed, rewriting on the new snapshot")

// maxRebases bounds how often a commit is rewritten on a newer snapshot.
const maxRebases = 20

func (tt *txTable) commit(ctx context.Context, ops []kv.KeyValue) error {
	for attempt := 0; ; attempt++ {
		err := tt.commitOnce(ctx, ops)
		if !errors.Is(err, errRebase) {
			return err
		}
		if attempt >= maxRebases {
			return fmt.Errorf("%w: table %s: too many concurrent commits", ErrConflict, tt.name)
		}
	}
}

func (tt *txTable) commitOnce(ctx context.Context, ops []kv.KeyValue) error {
	base, err := tt.lt.Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		base, err = nil, nil
	}
	if err != nil {
		return err
	}
	opts := lsmwrite.Options{Branch: tt.lt.BranchName()}
	// Checked before every commit attempt, against the snapshot the attempt
	// builds on; the attempt then publishes latest+1 atomically, so nothing
	// can commit in between unseen.
	opts.BeforeCommitAttempt = func(ctx context.Context, latest *snapshot.Snapshot) error {
		if tt.pending.ReadKeys() && latest != nil && latest.ID > tt.base {
			if err := tt.checkConflicts(ctx, latest); err != nil {
				return err
			}
		}
		if (latest == nil) != (base == nil) || latest != nil && latest.ID != base.ID {
			return errRebase
		}
		return nil
	}
	w, err := lsmwrite.NewTableWrite(ctx, tt.st, tt.sch, base, opts)
	if err != nil {
		return fmt.Errorf("table %s: %w", tt.name, err)
	}
	if tt.overwrite != nil {
		if err := w.SetOverwrite(tt.overwrite.static, tt.overwrite.dynamic); err != nil {
			w.Abort(ctx)
			return err
		}
	}
	// A retraction and a later record of the same key must not meet in
	// the write buffer: its merge function would fold them without the
	// committed row (a retracted aggregate, a partial update's NULL). Such
	// records go to separate level-0 files, merged in order at read time.
	idx := tt.pending.KeyIndexes()
	seen := map[string]bool{}
	retracted := map[string]bool{}
	split := len(tt.sch.PrimaryKeys) > 0 && !foldsRetractions(tt.sch)
	var kb []byte
	for _, op := range ops {
		if split {
			kb = kv.AppendKey(kb[:0], op.Value, idx)
			k := string(kb)
			retract := op.Kind == kv.UpdateBefore || op.Kind == kv.Delete
			if seen[k] && (retract || retracted[k]) {
				if err := w.Flush(ctx); err != nil {
					w.Abort(ctx)
					return fmt.Errorf("table %s: %w", tt.name, err)
				}
				clear(seen)
				clear(retracted)
			}
			seen[k] = true
			if retract {
				retracted[k] = true
			}
		}
		if err := w.Write(ctx, op.Kind, op.Value); err != nil {
			w.Abort(ctx)
			return fmt.Errorf("table %s: %w", tt.name, err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		// Files are deleted only when no snapshot can reference them; on
		// other errors the publish may have happened, so they stay.
		if errors.Is(err, errRebase) {
			w.Abort(ctx)
			return err
		}
		if errors.Is(err, snapshot.ErrConflict) || errors.Is(err, ErrConflict) {
			w.Abort(ctx)
			return fmt.Errorf("%w: table %s: %w", ErrConflict, tt.name, err)
		}
		return fmt.Errorf("table %s: %w", tt.name, err)
	}
	return nil
}

// checkConflicts fails when a snapshot committed after the transaction's
// base may have changed a key whose new value the transaction computed from
// what it read. It reads the keys of every row the newer snapshots added to
// the table and intersects them with readKeys.
func (tt *txTable) checkConflicts(ctx context.Context, latest *snapshot.Snapshot) error {
	p, err := tt.lt.Plan(ctx, lsmread.ScanSpec{Delta: &lsmread.DeltaRange{After: tt.base, Upto: latest.ID}})
	if err != nil {
		return err
	}
	r, err := p.NewReader()
	if err != nil {
		return err
	}
	keyIdx := tt.pending.KeyIndexes()
	var key []byte
	for _, split := range p.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			return err
		}
		for {
			row, err := it.Next()
			if err != nil {
				it.Close()
				if isEOF(err) {
					break
				}
				return err
			}
			if key = kv.AppendKey(key[:0], row, keyIdx); tt.pending.ReadKey(key) {
				it.Close()
				return fmt.Errorf("%w: table %s: a row this transaction read was changed by snapshot(s) %d..%d committed after it started",
					ErrConflict, tt.name, tt.base+1, latest.ID)
			}
		}
	}
	return nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
