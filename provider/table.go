package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// Table is a Paimon table (or its $ro view, or a branch) as a GMS table,
// possibly at a past snapshot. Copies made by WithProjections and filter
// pushdown share nothing mutable.
type Table struct {
	db    *Database
	name  string // as addressed, e.g. t, t$ro, t$branch_b
	base  string // the table folder name
	lt    *lsmread.Table
	tt    lsmread.TimeTravel
	ro    bool
	sch   *schema.TableSchema
	full  sql.Schema // every column
	cols  []string   // projected column names (nil = all)
	types []*schema.DataType

	filter      lsmread.Predicate
	filterExprs []sql.Expression
	// lookupInsert: the table is the destination of INSERT IGNORE or ON
	// DUPLICATE KEY UPDATE (markLookupInsert).
	lookupInsert bool

	mu   sync.Mutex
	plan *lsmread.Plan
}

var (
	_ sql.Table           = (*Table)(nil)
	_ sql.ProjectedTable  = (*Table)(nil)
	_ sql.PrimaryKeyTable = (*Table)(nil)
	_ sql.CommentedTable  = (*Table)(nil)
	_ sql.FilteredTable   = (*Table)(nil)
)

func newTable(ctx *sql.Context, d *Database, base string, lt *lsmread.Table, tt lsmread.TimeTravel, suffix string) (*Table, error) {
	name := base
	if suffix != "" {
		name = base + "$" + suffix
	}
	t := &Table{db: d, name: name, base: base, lt: lt, tt: tt, ro: suffix == "ro"}
	var err error
	if tt != (lsmread.TimeTravel{}) {
		snap, err := lt.ResolveSnapshot(ctx, tt)
		if err != nil {
			return nil, mapError(fmt.Errorf("table %s: %w", name, err))
		}
		t.sch, err = lt.Schemas().Schema(ctx, snap.SchemaID)
		if err != nil {
			return nil, mapError(err)
		}
	} else if t.sch, err = lt.LatestSchema(ctx); err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", name, err))
	}
	if t.full, t.types, err = tableColumns(t.sch, name, d.name); err != nil {
		return nil, err
	}
	return t, nil
}

// tableColumns returns the columns of a table of schema sch as GMS sees
// them (named name in database db) and their Paimon types.
func tableColumns(sch *schema.TableSchema, name, db string) (sql.Schema, []*schema.DataType, error) {
	pk := map[string]bool{}
	for _, k := range sch.PrimaryKeys {
		pk[k] = true
	}
	full := make(sql.Schema, 0, len(sch.Fields))
	types := make([]*schema.DataType, 0, len(sch.Fields))
	for i := range sch.Fields {
		f := &sch.Fields[i]
		st, err := columnSQLType(&f.Type, IsKeyColumn(sch, f.Name))
		if err != nil {
			return nil, nil, mapError(fmt.Errorf("table %s column %s: %w", name, f.Name, err))
		}
		comment := ""
		if f.Description != nil {
			comment = *f.Description
		}
		full = append(full, &sql.Column{
			Name: f.Name, Type: st, Nullable: f.Type.Nullable, Source: name, DatabaseSource: db,
			PrimaryKey: pk[f.Name], Comment: comment,
		})
		types = append(types, &f.Type)
	}
	return full, types, nil
}

// Name implements sql.Nameable.
func (t *Table) Name() string { return t.name }

// String implements fmt.Stringer.
func (t *Table) String() string { return t.name }

// Collation implements sql.Table.
func (t *Table) Collation() sql.CollationID { return sql.Collation_Default }

// Comment is the table's comment, as MySQL's information_schema.TABLES
// (TABLE_COMMENT) and JDBC/ODBC REMARKS report it: tools show it as the
// table's description. The Paimon layout (partitioning, options) is in SHOW
// CREATE TABLE and SHOW CREATE PAIMON TABLE.
func (t *Table) Comment() string {
	if t.sch.Comment != nil {
		return *t.sch.Comment
	}
	return ""
}

// Schema implements sql.Table: the projected columns, in projection order.
func (t *Table) Schema() sql.Schema {
	if t.cols == nil {
		return t.full
	}
	out := make(sql.Schema, 0, len(t.cols))
	for _, c := range t.cols {
		if i := t.full.IndexOfColName(c); i >= 0 {
			out = append(out, t.full[i])
		}
	}
	return out
}

// PrimaryKeySchema implements sql.PrimaryKeyTable.
func (t *Table) PrimaryKeySchema() sql.PrimaryKeySchema {
	ords := make([]int, 0, len(t.sch.PrimaryKeys))
	for _, k := range t.sch.PrimaryKeys {
		ords = append(ords, t.sch.FieldIndex(k))
	}
	return sql.NewPrimaryKeySchema(t.full, ords...)
}

// WithProjections implements sql.ProjectedTable.
func (t *Table) WithProjections(colNames []string) sql.Table {
	c := t.copy()
	c.cols = make([]string, 0, len(colNames))
	for _, n := range colNames {
		if i := t.full.IndexOfColName(n); i >= 0 {
			c.cols = append(c.cols, t.full[i].Name)
		}
	}
	return c
}

// Projections implements sql.ProjectedTable.
func (t *Table) Projections() []string { return t.cols }

// Filters implements sql.FilteredTable: the filters pushed into the scan,
// followed by what planning pruned and how many sorted runs each bucket
// merges (EXPLAIN shows them; GMS v0.20.0 reads Filters only to print the
// plan and to bind the filters of deferred prepared statements, which
// ignore the notes).
func (t *Table) Filters() []sql.Expression { return t.filtersWithNotes(true) }

func (t *Table) filtersWithNotes(runs bool) []sql.Expression {
	out := append([]sql.Expression(nil), t.filterExprs...)
	if len(t.filterExprs) > 0 && t.filter == nil {
		return out
	}
	p, err := t.planFor(context.Background())
	if err != nil {
		return nilIfEmpty(out)
	}
	if len(t.filterExprs) > 0 {
		out = append(out, pruneNote(p.Stats))
	}
	if n := runsNote(p.Stats); n != nil && runs {
		out = append(out, n)
	}
	return nilIfEmpty(out)
}

func nilIfEmpty(x []sql.Expression) []sql.Expression {
	if len(x) == 0 {
		return nil
	}
	return x
}

// HandledFilters implements sql.FilteredTable: none; GMS keeps evaluating
// every filter above the scan.
func (t *Table) HandledFilters(filters []sql.Expression) []sql.Expression { return nil }

// WithFilters implements sql.FilteredTable (never called by GMS v0.20.0;
// the pushdown rule calls withPushedFilters).
func (t *Table) WithFilters(ctx *sql.Context, filters []sql.Expression) sql.Table {
	return t.withPushedFilters(filters, t.name)
}

func (t *Table) copy() *Table {
	return &Table{db: t.db, name: t.name, base: t.base, lt: t.lt, tt: t.tt, ro: t.ro, sch: t.sch, full: t.full,
		cols: t.cols, types: t.types, filter: t.filter, filterExprs: t.filterExprs, lookupInsert: t.lookupInsert}
}

func (t *Table) scanSpec() lsmread.ScanSpec {
	spec := lsmread.ScanSpec{TimeTravel: t.tt, Projection: t.cols, Filter: t.filter, ReadOptimized: t.ro}
	if t.tt == (lsmread.TimeTravel{}) {
		spec.LatestSchema = t.sch // resolved with the table, once per statement
	}
	return spec
}

// sessionZone is the session's time_zone as a location (SYSTEM is UTC: the
// server keeps no local zone). It drives schema-evolution casts between
// TIMESTAMP and TIMESTAMP_LTZ, numbers and strings, as Java's session zone does.
func sessionZone(ctx *sql.Context) *time.Location {
	v, err := ctx.GetSessionVariable(ctx, "time_zone")
	if err != nil {
		return nil
	}
	s, _ := v.(string)
	switch s {
	case "", "SYSTEM", "UTC", "+00:00":
		return nil
	}
	if loc, err := time.LoadLocation(s); err == nil {
		return loc
	}
	if len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':' {
		h, m := int(s[1]-'0')*10+int(s[2]-'0'), int(s[4]-'0')*10+int(s[5]-'0')
		off := (h*60 + m) * 60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(s, off)
	}
	return nil
}

// planFor plans the scan once per table object.
func (t *Table) planFor(ctx context.Context) (*lsmread.Plan, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.plan != nil {
		return t.plan, nil
	}
	p, err := t.lt.Plan(ctx, t.scanSpec())
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
	}
	t.plan = p
	return p, nil
}

// noteRead tells the session's transaction which snapshot a read of the
// current table saw (for conflict detection of writes derived from it).
func (t *Table) noteRead(ctx *sql.Context, p *lsmread.Plan) {
	if t.tt != (lsmread.TimeTravel{}) || t.ro {
		return
	}
	tx, ok := ctx.GetTransaction().(*Transaction)
	if !ok || tx == nil || tx.readOnly {
		return
	}
	var id snapshot.SnapshotID
	if p.Snapshot != nil {
		id = p.Snapshot.ID
	}
	tx.noteRead(t, id)
}

// scanPartition is the single GMS partition of a scan: its row iterator reads
// the plan's splits in parallel.
type scanPartition struct {
	plan   *lsmread.Plan
	reader *lsmread.Reader // nil: a reader of the plan's own
}

func (scanPartition) Key() []byte { return []byte("scan") }

// overlayPartition reads the table merged with the transaction's pending
// writes.
type overlayPartition struct {
	t       *Table
	pending *kv.PendingWrites
}

func (overlayPartition) Key() []byte { return []byte("overlay") }

// Partitions implements sql.Table. Planning happens here (GMS drains
// partitions one by one, so the splits are read in parallel inside the one
// partition's iterator).
func (t *Table) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	if pending := t.pending(ctx); pending != nil {
		return sql.PartitionsToPartitionIter(overlayPartition{t: t, pending: pending}), nil
	}
	spec := t.scanSpec()
	spec.TimeZone = sessionZone(ctx)
	p, err := t.lt.Plan(ctx, spec)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
	}
	t.noteRead(ctx, p)
	noteScan(ctx, p) // observe.go
	return sql.PartitionsToPartitionIter(scanPartition{plan: p}), nil
}

// PartitionRows implements sql.Table.
func (t *Table) PartitionRows(ctx *sql.Context, part sql.Partition) (sql.RowIter, error) {
	if op, ok := part.(overlayPartition); ok {
		// The partition's own table: it carries the lookup's predicate.
		return op.t.overlayRows(ctx, op.pending)
	}
	sp, ok := part.(scanPartition)
	if !ok {
		return nil, fmt.Errorf("provider: unexpected partition %T", part)
	}
	r := sp.reader
	if r == nil {
		var err error
		if r, err = sp.plan.NewReader(); err != nil {
			return nil, mapError(err)
		}
	}
	out, err := sp.plan.Schema.ProjectedFields(sp.plan.Spec.Projection)
	if sp.plan.Spec.Projection == nil {
		out, err = sp.plan.Schema.Fields, nil
	}
	if err != nil {
		return nil, mapError(err)
	}
	types := make([]*schema.DataType, len(out))
	for i := range out {
		types[i] = &out[i].Type
	}
	sample := rowSampler(ctx) // observe.go
	convert := func(row []any) error {
		sample(row)
		for i, v := range row {
			x, err := toSQL(types[i], v)
			if err != nil {
				return err
			}
			row[i] = x
		}
		return nil
	}
	var batchRows lsmread.BatchRows
	if batchScan(ctx) {
		batchRows = func(b *lsmread.Batch, rows [][]any) ([][]any, error) {
			rows, err := appendBatchRows(types, b, rows)
			if err == nil {
				for _, row := range rows[len(rows)-b.Rows():] {
					sample(row)
				}
			}
			return rows, err
		}
	}
	return &scanIter{rows: r.ReadParallelBatches(ctx, sp.plan.Splits, convert, batchRows)}, nil
}

// scanIter is the GMS row iterator over lsmread's parallel split reader;
// its rows are converted to GMS values by the workers.
type scanIter struct{ rows *lsmread.ParallelRows }

// Next implements sql.RowIter.
func (it *scanIter) Next(*sql.Context) (sql.Row, error) {
	row, err := it.rows.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, mapError(err)
	}
	return sql.Row(row), nil
}

// Close implements sql.RowIter: it stops the workers and waits for them.
func (it *scanIter) Close(*sql.Context) error { return it.rows.Close() }
