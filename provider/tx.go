package provider

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
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
	// wh is the warehouse and path the table folder in it ("db.db/t").
	wh   storage.Storage
	path string
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
	// written holds the rows of a LOAD DATA that wrote them as files
	// while it ran (Loader, writeAhead); the commit takes it over.
	written *lsmwrite.TableWrite
	// compactor runs the automatic compaction of the buckets a commit wrote.
	compactor *lsmwrite.AutoCompactor
	// maint runs the table's maintenance after a successful commit.
	maint *lsmwrite.Maintainer
	// broken is an error that left pending unusable (a failed statement
	// whose spilled records could not be dropped): the commit fails.
	broken error
	// p is the provider, whose cached names and handles a commit that
	// finds the table dropped forgets.
	p *Provider
}

func txFromContext(ctx *sql.Context) (*Transaction, error) {
	tx, ok := ctx.GetTransaction().(*Transaction)
	if !ok || tx == nil {
		return nil, fmt.Errorf("lakesql: no transaction in session (writes need a lakesql session)")
	}
	return tx, nil
}

// txKey identifies t's table and branch among a transaction's tables.
func (t *Table) txKey() string { return txKeyOf(t.lt) }

// txKeyOf is the key of a table handle's state in a transaction.
func txKeyOf(lt *lsmread.Table) string { return lt.Storage().URL() + "#" + lt.BranchName() }

// table returns (creating) the buffered state of t.
func (tx *Transaction) table(ctx context.Context, t *Table) (*txTable, error) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	key := t.txKey()
	if tt, ok := tx.tables[key]; ok {
		return tt, nil
	}
	tt := t.newTxTable()
	if id, ok, err := t.lt.Snapshots().LatestID(ctx); err != nil {
		return nil, err
	} else if ok {
		tt.base = id
	}
	tx.tables[key] = tt
	tx.order = append(tx.order, key)
	return tt, nil
}

func (t *Table) newTxTable() *txTable {
	pending := kv.NewPendingWrites(t.sch)
	if core, err := t.sch.Options.Core(); err == nil {
		// Past write-buffer-size the records go to a local spill file:
		// a statement of any size holds at most that much in memory
		// here, and as much again in lsmwrite's write buffer at commit.
		pending.SetLimit(core.WriteBufferSize)
	}
	return &txTable{wh: t.db.p.st, path: t.db.name + snapshot.DatabaseSuffix + "/" + t.base,
		st: t.lt.Storage(), lt: t.lt, sch: t.sch, name: t.name, pending: pending,
		compactor: t.db.p.opts.Compactor, maint: t.db.p.opts.Maintainer, p: t.db.p}
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
	tt := t.newTxTable()
	tt.base = id
	tx.tables[key] = tt
	tx.order = append(tx.order, key)
}

// hasPending reports whether the transaction buffered records for t.
func (tx *Transaction) hasPending(t *Table) bool { return tx.hasPendingKey(t.txKey()) }

// hasPendingKey is hasPending of the table whose txKey is key.
func (tx *Transaction) hasPendingKey(key string) bool {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tt, ok := tx.tables[key]
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
		if err := tt.pending.DiscardStatement(); err != nil && tt.broken == nil {
			tt.broken = err
		}
	}
}

// Commit writes every buffered table and commits one snapshot per table.
// A transaction that wrote one table commits through the table's group
// commit (lsmwrite.CommitGrouped: together with the other connections'
// commits of the moment); one that wrote several commits all of them or
// none (lsmwrite.CommitAtomic), checking every table's conflicts before
// the first table commits, so a conflict (1213) means nothing committed.
func (tx *Transaction) Commit(ctx context.Context) error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	defer tx.reset()
	var (
		tables  []*txTable
		commits []lsmwrite.TxCommit
	)
	for _, key := range tx.order {
		tt := tx.tables[key]
		if tt.broken != nil {
			return fmt.Errorf("table %s: %w", tt.name, tt.broken)
		}
		if tt.pending.Len() == 0 && tt.overwrite == nil && tt.written == nil {
			continue
		}
		var c lsmwrite.TxCommit
		switch {
		case tt.written != nil:
			if tt.pending.Len() > 0 || tt.overwrite != nil {
				return fmt.Errorf("lakesql: table %s: a LOAD DATA's files with other writes in its transaction", tt.name) // writeAhead prevents it
			}
			c = tt.txCommit(nil)
			c.Written, tt.written = tt.written, nil // the commit deletes them when it does not publish them
		case tt.pending.Spilled():
			// Spilled records hold no deletes of an append table
			// (kv.PendingWrites.Add), so they are their own net.
			c = tt.txCommit(nil)
			c.Source = tt.pending.Each
		case len(tt.sch.PrimaryKeys) == 0:
			ops := tt.pending.AppendNet()
			if len(ops) == 0 && tt.overwrite == nil {
				continue
			}
			c = tt.txCommit(ops)
		default:
			c = tt.txCommit(tt.pending.Records())
		}
		tables = append(tables, tt)
		commits = append(commits, c)
	}
	switch len(tables) {
	case 0:
		return nil
	case 1:
		tt := tables[0]
		_, err := lsmwrite.CommitGrouped(ctx, tt.st, commits[0])
		return tt.commitError(ctx, err)
	}
	parts := make([]lsmwrite.AtomicTable, len(tables))
	for i, tt := range tables {
		parts[i] = lsmwrite.AtomicTable{Path: tt.path, Storage: tt.st, Tx: commits[i]}
	}
	err := lsmwrite.CommitAtomic(ctx, tables[0].wh, parts)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, lsmwrite.ErrInDoubt), errors.Is(err, lsmwrite.ErrOutcomeUnknown):
		return fmt.Errorf("%w: %w", ErrCommitInDoubt, err)
	case errors.Is(err, snapshot.ErrConflict):
		return fmt.Errorf("%w: %w", ErrConflict, err)
	}
	return err
}

// ErrCommitInDoubt is returned when a multi-table transaction's commit
// failed half-way (MySQL 1180, ER_ERROR_DURING_COMMIT): its record was
// written but not every table could commit yet (lsmwrite.ErrInDoubt: the
// transaction completes later, any server rolls it forward), or the
// record's write failed with an unknown outcome
// (lsmwrite.ErrOutcomeUnknown: all tables or none). The wrapped error
// says which.
var ErrCommitInDoubt = errors.New("lakesql: the multi-table commit failed half-way")

// Rollback drops everything buffered.
func (tx *Transaction) Rollback() {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.reset()
}

// reset drops the tables' buffers, removing their spill files.
func (tx *Transaction) reset() {
	for _, tt := range tx.tables {
		if err := tt.pending.Close(); err != nil {
			slog.Warn("remove a transaction's spill file", "table", tt.name, "err", err)
		}
		if tt.written != nil {
			if err := tt.written.Abort(context.Background()); err != nil {
				slog.Warn("delete the files of a LOAD DATA rolled back", "table", tt.name, "err", err)
			}
			tt.written = nil
		}
	}
	tx.tables = map[string]*txTable{}
	tx.order = nil
}

// txCommit is the table's commit: its records, the conflict predicate (the
// keys the transaction read since base), an overwrite, and what follows
// the commit (automatic compaction, maintenance).
func (tt *txTable) txCommit(ops []kv.KeyValue) lsmwrite.TxCommit {
	c := lsmwrite.TxCommit{
		Schema:   tt.sch,
		Records:  ops,
		ReadBase: tt.base,
		Options:  lsmwrite.Options{Branch: tt.lt.BranchName()},
	}
	if tt.pending.ReadKeys() {
		c.ReadKey = tt.pending.ReadKey
	}
	if tt.overwrite != nil {
		c.Overwrite = &lsmwrite.TxOverwrite{Static: tt.overwrite.static, Dynamic: tt.overwrite.dynamic}
	}
	c.Compactor = tt.compactor
	if tt.maint != nil {
		c.After = func(ctx context.Context, _ *snapshot.Snapshot) { tt.maintain(ctx) }
	}
	return c
}

// commitError names the table in a commit error; a conflict is
// ErrConflict (MySQL 1213).
func (tt *txTable) commitError(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, snapshot.ErrConflict):
		return fmt.Errorf("%w: table %s: %w", ErrConflict, tt.name, err)
	case errors.Is(err, snapshot.ErrTableDropped) && tt.p != nil:
		// Dropped (and maybe created again) by another server: the next
		// statement resolves the name afresh.
		tt.p.cat.Forget()
		tt.p.forgetHandles()
		if db, ok := strings.CutSuffix(path.Dir(tt.path), snapshot.DatabaseSuffix); ok {
			tt.p.cat.RemoveEmptyFolders(context.WithoutCancel(ctx), db)
		}
	}
	return fmt.Errorf("table %s: %w", tt.name, err)
}

// maintain runs the table's maintenance after a commit (expiration,
// automatic tags); the commit stands whatever it does, as in Java, and
// errors are logged.
func (tt *txTable) maintain(ctx context.Context) {
	res, err := tt.maint.AfterCommit(ctx, tt.lt.Handle(), tt.sch)
	if err != nil {
		slog.Warn("maintenance after a commit", "table", tt.name, "err", err)
	}
	if res.Expire.Snapshots+len(res.Partitions)+len(res.TagsCreated)+len(res.TagsExpired) > 0 {
		slog.Info("maintenance", "table", tt.name, "expired_snapshots", res.Expire.Snapshots,
			"deleted_files", res.Expire.DataFiles+res.Expire.ChangelogFiles+res.Expire.MetadataFiles+res.Expire.IndexFiles,
			"freed_bytes", res.Expire.BytesFreed, "expired_partitions", len(res.Partitions),
			"tags_created", res.TagsCreated, "tags_expired", res.TagsExpired)
	}
}
