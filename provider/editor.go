package provider

import (
	"bytes"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

var (
	_ sql.InsertableTable  = (*Table)(nil)
	_ sql.ReplaceableTable = (*Table)(nil)
	_ sql.UpdatableTable   = (*Table)(nil)
	_ sql.DeletableTable   = (*Table)(nil)
	_ sql.RowReplacer      = (*editor)(nil)
	_ sql.RowUpdater       = (*editor)(nil)
)

type editMode uint8

const (
	modeInsert editMode = iota
	modeReplace
	modeUpdate
	modeDelete
)

// editor buffers one statement's writes into the session transaction.
type editor struct {
	t      *Table
	mode   editMode
	lookup bool
	err    error
	// unsigned holds the range of UNSIGNED columns (unsigned.go); rows
	// counts the rows written, for "at row n".
	unsigned []uint64
	rows     int64
	// updateBefore: an UPDATE writes the old row as -U before the new
	// row's +U (writesUpdateBefore).
	updateBefore bool
	// firstRow: a first-row table, whose rows an UPDATE cannot change.
	firstRow bool
	keyIdx   []int
	oldKey   []byte
	newKey   []byte
}

func (t *Table) newEditor(ctx *sql.Context, mode editMode) *editor {
	e := &editor{t: t, mode: mode, unsigned: unsignedLimits(t.sch), keyIdx: kv.KeyIndexes(t.sch)}
	if mode == modeUpdate || mode == modeInsert {
		// Insert editors update too: ON DUPLICATE KEY UPDATE.
		e.updateBefore = writesUpdateBefore(t.sch)
	}
	if t.tt != (lsmread.TimeTravel{}) || t.ro || len(t.name) != len(t.base) && !t.isBranch() {
		e.err = fmt.Errorf("lakesql: %s is read-only (a past snapshot or a system view)", t.name)
	}
	if mode == modeInsert && len(t.sch.PrimaryKeys) > 0 && t.lookupInsert {
		e.lookup = true
	}
	if (mode == modeUpdate || mode == modeDelete) && len(t.sch.PrimaryKeys) == 0 && !deletionVectors(t.sch) {
		e.err = notSupported(fmt.Sprintf("lakesql: UPDATE and DELETE on append table %s need deletion vectors: create the table with 'deletion-vectors.enabled' = 'true'", t.name))
	}
	if mode == modeUpdate {
		e.firstRow = mergeEngine(t.sch) == schema.MergeEngineFirstRow
	}
	return e
}

// markLookupInsert marks the destination of INSERT IGNORE and INSERT … ON
// DUPLICATE KEY UPDATE (GMS's InsertInto says which it is): its editor
// looks each key up, since only these statements need to know whether a
// key exists; every other INSERT on a primary-key table is a blind upsert
// through the merge engine, as in Paimon. REPLACE is an upsert too, and
// LOAD DATA keeps the upsert of its rows whatever its IGNORE says.
func markLookupInsert(n *plan.InsertInto) (*plan.InsertInto, bool, error) {
	if n.IsReplace || !n.Ignore && len(n.OnDupExprs) == 0 {
		return n, false, nil
	}
	load := false
	transform.Inspect(n.Source, func(c sql.Node) bool {
		_, ok := c.(*plan.LoadData)
		load = load || ok
		return !load
	})
	if load {
		return n, false, nil
	}
	dst, same, err := transform.Node(n.Destination, func(c sql.Node) (sql.Node, transform.TreeIdentity, error) {
		rt, ok := c.(*plan.ResolvedTable)
		if !ok {
			return c, transform.SameTree, nil
		}
		t, ok := sql.GetUnderlyingTable(rt.Table).(*Table)
		if !ok || t.lookupInsert {
			return c, transform.SameTree, nil
		}
		mt := t.copy()
		mt.lookupInsert = true
		nt, err := rt.WithTable(mt)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nt, transform.NewTree, nil
	})
	if err != nil || same == transform.SameTree {
		return n, false, err
	}
	out := *n
	out.Destination = dst
	return &out, true, nil
}

func (t *Table) isBranch() bool {
	return len(t.name) > len(t.base) && t.name[len(t.base):len(t.base)+8] == "$branch_"
}

// Inserter implements sql.InsertableTable.
func (t *Table) Inserter(ctx *sql.Context) sql.RowInserter { return t.newEditor(ctx, modeInsert) }

// Replacer implements sql.ReplaceableTable.
func (t *Table) Replacer(ctx *sql.Context) sql.RowReplacer { return t.newEditor(ctx, modeReplace) }

// Updater implements sql.UpdatableTable.
func (t *Table) Updater(ctx *sql.Context) sql.RowUpdater { return t.newEditor(ctx, modeUpdate) }

// Deleter implements sql.DeletableTable.
func (t *Table) Deleter(ctx *sql.Context) sql.RowDeleter { return t.newEditor(ctx, modeDelete) }

func (e *editor) StatementBegin(ctx *sql.Context) {}

func (e *editor) DiscardChanges(ctx *sql.Context, errorEncountered error) error {
	if tx, err := txFromContext(ctx); err == nil {
		tx.discardStatement()
	}
	return nil
}

func (e *editor) StatementComplete(ctx *sql.Context) error {
	tx, err := txFromContext(ctx)
	if err != nil {
		return err
	}
	tx.statementDone()
	return nil
}

func (e *editor) Close(*sql.Context) error { return nil }

// paimonRow converts a GMS row (all columns, schema order) to the value model.
func (e *editor) paimonRow(row sql.Row) ([]any, error) {
	if len(row) != len(e.t.sch.Fields) {
		return nil, fmt.Errorf("lakesql: row has %d values, table %s has %d columns", len(row), e.t.name, len(e.t.sch.Fields))
	}
	out := make([]any, len(row))
	for i, v := range row {
		f := &e.t.sch.Fields[i]
		x, err := fromSQL(&f.Type, v)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		if x == nil && !f.Type.Nullable {
			return nil, sql.ErrInsertIntoNonNullableProvidedNull.New(f.Name)
		}
		out[i] = x
	}
	return out, nil
}

func (e *editor) add(ctx *sql.Context, kind kv.RowKind, row []any, readKey bool) error {
	tx, err := txFromContext(ctx)
	if err != nil {
		return err
	}
	tt, err := tx.table(ctx, e.t)
	if err != nil {
		return err
	}
	if err := chargeRow(ctx, row); err != nil { // observe.go
		return err
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if err := tt.pending.Add(kind, row, readKey); err != nil {
		return mapError(fmt.Errorf("lakesql: table %s: %w", e.t.name, err))
	}
	return nil
}

// Insert implements sql.RowInserter.
func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	r, err := e.paimonRow(row)
	if err != nil {
		return err
	}
	if err := e.checkUnsigned(r); err != nil {
		return err
	}
	if e.lookup {
		existing, ok, err := e.t.lookupRow(ctx, r)
		if err != nil {
			return err
		}
		if ok {
			sqlRow, err := e.t.toSQLRow(existing)
			if err != nil {
				return err
			}
			return sql.NewUniqueKeyErr(fmt.Sprint(keyValues(e.t.sch, existing)), true, sqlRow)
		}
		return e.add(ctx, kv.Insert, r, true)
	}
	return e.add(ctx, kv.Insert, r, false)
}

// Update implements sql.RowUpdater.
func (e *editor) Update(ctx *sql.Context, old, new sql.Row) error {
	if e.err != nil {
		return e.err
	}
	if e.firstRow {
		// Spark's Paimon UPDATE and MERGE refuse first-row tables too.
		return notSupported(fmt.Sprintf("lakesql: UPDATE of table %s: merge-engine = first-row keeps the first row of each key, which an update cannot change", e.t.name))
	}
	o, err := e.paimonRow(old)
	if err != nil {
		return err
	}
	n, err := e.paimonRow(new)
	if err != nil {
		return err
	}
	if err := e.checkUnsigned(n); err != nil {
		return err
	}
	e.oldKey = kv.AppendKey(e.oldKey[:0], o, e.keyIdx)
	e.newKey = kv.AppendKey(e.newKey[:0], n, e.keyIdx)
	if len(e.t.sch.PrimaryKeys) == 0 {
		// An append table (with deletion vectors): the old row's position
		// is deleted and the new row appended.
		if bytes.Equal(e.oldKey, e.newKey) {
			return nil
		}
		if err := e.add(ctx, kv.Delete, o, true); err != nil {
			return err
		}
		return e.add(ctx, kv.Insert, n, false)
	}
	if !bytes.Equal(e.oldKey, e.newKey) {
		if err := e.add(ctx, kv.Delete, o, true); err != nil {
			return err
		}
		return e.add(ctx, kv.Insert, n, true)
	}
	if e.updateBefore {
		if err := e.add(ctx, kv.UpdateBefore, o, true); err != nil {
			return err
		}
	}
	return e.add(ctx, kv.UpdateAfter, n, true)
}

// writesUpdateBefore reports whether an UPDATE writes the old row as -U
// before the new row's +U:
//   - on aggregation tables, which fold every record: the retraction makes
//     the update replace the old row;
//   - on deduplicate tables with changelog-producer=input (and no
//     sequence.field), whose changelog files are the written records: Flink's
//     input changelog carries -U then +U, and so does lakesql's, since the
//     UPDATE read the old row. (With a sequence.field the -U would carry the
//     old sequence value and could sort after the +U, deleting the row.)
//
// Other tables get +U only: deduplicate tables need nothing more, and a
// partial-update table refuses retractions unless configured for them.
func writesUpdateBefore(sch *schema.TableSchema) bool {
	core, err := sch.Options.Core()
	if err != nil {
		return false
	}
	switch core.MergeEngine {
	case schema.MergeEngineAggregation:
		return true
	case schema.MergeEngineDeduplicate:
		return core.ChangelogProducer == schema.ChangelogProducerInput && len(core.SequenceField) == 0
	}
	return false
}

// Delete implements sql.RowDeleter.
func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	if e.err != nil {
		return e.err
	}
	r, err := e.paimonRow(row)
	if err != nil {
		return err
	}
	return e.add(ctx, kv.Delete, r, true)
}

func deletionVectors(sch *schema.TableSchema) bool {
	core, err := sch.Options.Core()
	return err == nil && core.DeletionVectorsEnabled
}

func mergeEngine(sch *schema.TableSchema) schema.MergeEngine {
	core, err := sch.Options.Core()
	if err != nil {
		return schema.MergeEngineDeduplicate
	}
	return core.MergeEngine
}

func keyValues(sch *schema.TableSchema, row []any) []any {
	idx := kv.KeyIndexes(sch)
	out := make([]any, len(idx))
	for i, j := range idx {
		out[i] = row[j]
	}
	return out
}

func (t *Table) toSQLRow(row []any) (sql.Row, error) {
	out := make(sql.Row, len(row))
	for i, v := range row {
		x, err := toSQL(&t.sch.Fields[i].Type, v)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// lookupRow finds the current row of row's primary key: the committed table
// (lsmread.Table.LookupKey, pruned to the key's files by statistics)
// overlaid with the transaction's own pending writes of that key.
func (t *Table) lookupRow(ctx *sql.Context, row []any) ([]any, bool, error) {
	found, p, err := t.lt.LookupKey(ctx, t.sch, row)
	if err != nil {
		return nil, false, mapError(err)
	}
	t.noteRead(ctx, p)
	tx, err := txFromContext(ctx)
	if err != nil {
		return found, found != nil, nil
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tt, ok := tx.tables[t.txKey()]
	if !ok {
		return found, found != nil, nil
	}
	// After a spill the key's records come from the spill file's key
	// index (kv.PendingWrites.OfKey), a few reads whatever it holds.
	recs, err := tt.pending.OfKey(row)
	if err != nil {
		return nil, false, mapError(fmt.Errorf("lakesql: table %s: %w", tt.name, err))
	}
	if len(recs) == 0 {
		return found, found != nil, nil
	}
	return tt.pending.Merge(found, recs)
}
