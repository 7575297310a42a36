package lsmwrite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// The tests in this file run seeded random histories of statements
// (upserts, deletes, several statements' worth of rows, explicit full and
// minor compactions) on tables that need lookup compaction — deletion
// vectors (32 and 64-bit, deduplicate, partial-update, aggregation,
// sequence.field) and first-row — and on a merge-on-read twin, and compare
// every snapshot with an in-memory model: the latest one after each
// statement, and every earlier one again at the end (time travel). Reads
// of these tables skip level 0 and never merge, so an older version left
// without its deletion-vector mark, or a statement's row left on level 0,
// shows up as a wrong row. LAKESQL_SEED picks the seed, LAKESQL_LONG=1
// runs longer histories; a failure prints the seed.

func randomSeed(t *testing.T) uint64 {
	if s := os.Getenv("LAKESQL_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

type mowConfig struct {
	name    string
	options map[string]string
	part    bool // partitioned by p
	engine  string
}

func mowConfigs() []mowConfig {
	dv := func(extra ...string) map[string]string {
		m := map[string]string{"deletion-vectors.enabled": "true"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	return []mowConfig{
		{name: "mor", options: map[string]string{"bucket": "2"}},
		{name: "mow32-1bucket", options: dv("bucket", "1")},
		{name: "mow32-4buckets-tiny", options: dv("bucket", "4", "target-file-size", "2 kb"), part: true},
		{name: "mow64-dynamic", options: dv("deletion-vectors.bitmap64", "true"), part: true},
		{name: "mow64-4buckets", options: dv("bucket", "4", "deletion-vectors.bitmap64", "true", "num-levels", "3")},
		{name: "mow-partial-update", options: dv("bucket", "2", "merge-engine", "partial-update"), engine: "partial-update"},
		{name: "mow-aggregation", options: dv("bucket", "1", "merge-engine", "aggregation", "fields.v.aggregate-function", "sum",
			"target-file-size", "4 kb"), engine: "aggregation"},
		{name: "mow-sequence-field", options: dv("bucket", "2", "sequence.field", "v"), engine: "sequence"},
		{name: "mow-index-in-data-dir", options: dv("bucket", "2", "index-file-in-data-file-dir", "true", "deletion-vector.index-file.target-size", "1 b")},
		{name: "first-row", options: map[string]string{"bucket": "2", "merge-engine": "first-row"}, engine: "first-row"},
		{name: "first-row-dynamic-tiny", options: map[string]string{"merge-engine": "first-row", "target-file-size": "2 kb"}, part: true, engine: "first-row"},
	}
}

// mowModel is the expected table: rows by key (k, p).
type mowModel map[[2]int32][]any

func (m mowModel) clone() mowModel {
	out := make(mowModel, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

func (m mowModel) rows() []string {
	var out []string
	for _, r := range m {
		out = append(out, fmt.Sprint(r))
	}
	slices.Sort(out)
	return out
}

// apply folds one record into the model with the table's merge engine.
func (m mowModel) apply(engine string, kind kv.RowKind, row []any) {
	key := [2]int32{row[0].(int32), row[1].(int32)}
	old, ok := m[key]
	switch {
	case kind == kv.Delete:
		delete(m, key)
	case engine == "first-row":
		if !ok {
			m[key] = row
		}
	case engine == "partial-update":
		if !ok {
			m[key] = row
			return
		}
		for i := 2; i < len(row); i++ {
			if row[i] != nil {
				old[i] = row[i]
			}
		}
	case engine == "aggregation":
		if !ok {
			m[key] = row
			return
		}
		// v: sum; s: last non-null value (last_non_null_value is the
		// default aggregate function).
		if row[2] != nil {
			if old[2] == nil {
				old[2] = row[2]
			} else {
				old[2] = old[2].(int64) + row[2].(int64)
			}
		}
		if row[3] != nil {
			old[3] = row[3]
		}
	case engine == "sequence":
		// sequence.field = v: the record with the larger v wins, ties by
		// arrival.
		if !ok || row[2].(int64) >= old[2].(int64) {
			m[key] = row
		}
	default:
		m[key] = row
	}
}

func TestLookupTablesRandomHistory(t *testing.T) {
	seed := randomSeed(t)
	steps := 25
	if os.Getenv("LAKESQL_LONG") != "" {
		steps = 200
	}
	for i, cfg := range mowConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			s := seed + uint64(i)
			defer func() {
				if t.Failed() {
					t.Logf("seed %d (LAKESQL_SEED=%d reproduces the whole test)", s, seed)
				}
			}()
			runLookupHistory(t, cfg, s, steps)
		})
	}
}

func runLookupHistory(t *testing.T, cfg mowConfig, seed uint64, steps int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	st := memStorage(t)
	nullable := cfg.engine == "partial-update" || cfg.engine == "aggregation"
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "p", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 2, Name: "v", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(nullable)},
			{ID: 3, Name: "s", Type: schema.StringType()},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"k", "p"},
		Options:        map[string]string{},
	}
	for k, v := range cfg.options {
		ts.Options[k] = v
	}
	if cfg.part {
		ts.PartitionKeys = []string{"p"}
	}
	if err := snapshot.NewSchemaManager(st, "").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	tbl := snapshot.OpenTable(st, "")
	rt := lsmread.OpenTable(st, "")
	model := mowModel{}
	history := map[snapshot.SnapshotID]mowModel{}
	lookup := cfg.name != "mor"
	keys := 20 + rng.IntN(200)
	for step := 0; step < steps; step++ {
		switch r := rng.IntN(10); {
		case r == 0:
			out, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: rng.IntN(2) == 0})
			if err != nil {
				t.Fatalf("step %d: compact: %v", step, err)
			}
			if out.Snapshot != nil {
				history[out.Snapshot.ID] = model.clone()
			}
		default:
			base, err := tbl.Snapshots().Latest(ctx)
			if errors.Is(err, snapshot.ErrSnapshotNotFound) {
				base = nil
			} else if err != nil {
				t.Fatal(err)
			}
			w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prev := model.clone()
			n := 1 + rng.IntN(60)
			if rng.IntN(8) == 0 {
				n = 500 + rng.IntN(1500)
			}
			for j := 0; j < n; j++ {
				k := int32(rng.IntN(keys))
				p := int32(0)
				if cfg.part {
					p = int32(rng.IntN(3))
				}
				var v any = int64(rng.IntN(1000))
				var s any = fmt.Sprintf("s%d-%d", step, j)
				if nullable && rng.IntN(4) == 0 {
					v = nil
				}
				if rng.IntN(5) == 0 {
					s = nil
				}
				row := []any{k, p, v, s}
				kind := kv.Insert
				if cfg.engine == "" && rng.IntN(6) == 0 {
					kind = kv.Delete
				}
				if err := w.Write(ctx, kind, row); err != nil {
					t.Fatal(err)
				}
				model.apply(cfg.engine, kind, slices.Clone(row))
			}
			snap, err := w.Commit(ctx)
			if err != nil {
				t.Fatalf("step %d: commit: %v", step, err)
			}
			history[snap.ID] = model.clone()
			if lookup {
				// The APPEND snapshot (level-0 files, invisible to reads
				// of these tables) reads as the table before it.
				history[snap.ID-1] = prev
				checkNoLevel0(ctx, t, tbl, snap, step)
			}
		}
		latest, err := tbl.Snapshots().Latest(ctx)
		if errors.Is(err, snapshot.ErrSnapshotNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, want := readAll(ctx, t, rt, latest.ID), model.rows(); !slices.Equal(got, want) {
			t.Fatalf("step %d, snapshot %d: read %d rows, model %d\n%s", step, latest.ID, len(got), len(want), diffRows(got, want))
		}
	}
	for id, m := range history {
		if got, want := readAll(ctx, t, rt, id), m.rows(); !slices.Equal(got, want) {
			t.Fatalf("time travel to snapshot %d: read %d rows, model %d\n%s", id, len(got), len(want), diffRows(got, want))
		}
	}
}

// checkNoLevel0 checks that a statement's commit left no level-0 file.
func checkNoLevel0(ctx context.Context, t *testing.T, tbl *snapshot.Table, s *snapshot.Snapshot, step int) {
	t.Helper()
	live, _, err := tbl.Scan(ctx, s, snapshot.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range live {
		if e.File.Level == 0 {
			t.Fatalf("step %d: snapshot %d (%v) keeps level-0 file %s", step, s.ID, s.CommitKind, e.File.FileName)
		}
	}
	if s.CommitKind != snapshot.CommitKindCompact {
		t.Fatalf("step %d: the statement's last snapshot %d is %v, want COMPACT", step, s.ID, s.CommitKind)
	}
}

func readAll(ctx context.Context, t *testing.T, rt *lsmread.Table, id snapshot.SnapshotID) []string {
	t.Helper()
	p, err := rt.Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: id}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.NewReader()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, split := range p.Splits {
		from := len(out)
		it, err := r.Read(ctx, split)
		if err != nil {
			t.Fatal(err)
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(row))
		}
		it.Close()
		// The columnar read (deletion vectors as batch selections) reads
		// the same rows.
		var got []string
		bt, err := r.ReadBatches(ctx, split)
		if err != nil {
			t.Fatal(err)
		}
		var b datafile.Batch
		for {
			err := bt.Next(&b)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			row := make([]any, len(b.Cols))
			for i := range b.Rows() {
				k := i
				if b.Sel != nil {
					k = int(b.Sel[i])
				}
				b.Row(k, row)
				got = append(got, fmt.Sprint(row))
			}
		}
		bt.Close()
		want := slices.Clone(out[from:])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("split %v: batches and rows differ:\n%s", split, diffRows(got, want))
		}
	}
	slices.Sort(out)
	return out
}

func diffRows(got, want []string) string {
	var b strings.Builder
	g, w := map[string]int{}, map[string]int{}
	for _, r := range got {
		g[r]++
	}
	for _, r := range want {
		w[r]++
	}
	n := 0
	for r, c := range g {
		if w[r] != c && n < 20 {
			fmt.Fprintf(&b, "  read %dx, model %dx: %s\n", c, w[r], r)
			n++
		}
	}
	for r, c := range w {
		if g[r] == 0 && n < 20 {
			fmt.Fprintf(&b, "  missing (model %dx): %s\n", c, r)
			n++
		}
	}
	return b.String()
}

// TestAppendDeletionVectorsRandomHistory runs seeded random histories of
// inserts, row deletes (duplicates included) and compactions on append
// tables with deletion vectors — bucket-unaware (partitioned, tiny DV
// index files that roll) and bucketed, 32 and 64-bit — against a multiset
// model, at every snapshot.
func TestAppendDeletionVectorsRandomHistory(t *testing.T) {
	seed := randomSeed(t)
	steps := 30
	if os.Getenv("LAKESQL_LONG") != "" {
		steps = 200
	}
	configs := []mowConfig{
		{name: "unaware32", options: map[string]string{"deletion-vectors.enabled": "true", "deletion-vector.index-file.target-size": "40 b",
			"target-file-size": "2 kb", "compaction.min.file-num": "2"}, part: true},
		{name: "unaware64", options: map[string]string{"deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true"}},
		{name: "bucketed32", options: map[string]string{"deletion-vectors.enabled": "true", "bucket": "3", "bucket-key": "k",
			"compaction.min.file-num": "2"}, part: true},
		{name: "bucketed64-in-data-dir", options: map[string]string{"deletion-vectors.enabled": "true", "bucket": "2", "bucket-key": "k",
			"deletion-vectors.bitmap64": "true", "index-file-in-data-file-dir": "true"}},
	}
	for i, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			s := seed + uint64(i)
			defer func() {
				if t.Failed() {
					t.Logf("seed %d (LAKESQL_SEED=%d reproduces the whole test)", s, seed)
				}
			}()
			runAppendDVHistory(t, cfg, s, steps)
		})
	}
}

func runAppendDVHistory(t *testing.T, cfg mowConfig, seed uint64, steps int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	st := memStorage(t)
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 1, Name: "p", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 2, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
		},
		HighestFieldID: 2,
		Options:        map[string]string{},
	}
	for k, v := range cfg.options {
		ts.Options[k] = v
	}
	if cfg.part {
		ts.PartitionKeys = []string{"p"}
	}
	if err := snapshot.NewSchemaManager(st, "").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	tbl := snapshot.OpenTable(st, "")
	rt := lsmread.OpenTable(st, "")
	var model [][]any // the rows, a multiset
	history := map[snapshot.SnapshotID][]string{}
	text := func(rows [][]any) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = fmt.Sprint(r)
		}
		slices.Sort(out)
		return out
	}
	for step := 0; step < steps; step++ {
		if rng.IntN(6) == 0 {
			out, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: rng.IntN(2) == 0})
			if err != nil {
				t.Fatalf("step %d: compact: %v", step, err)
			}
			if out.Snapshot != nil {
				history[out.Snapshot.ID] = text(model)
			}
		} else {
			base, err := tbl.Snapshots().Latest(ctx)
			if errors.Is(err, snapshot.ErrSnapshotNotFound) {
				base = nil
			} else if err != nil {
				t.Fatal(err)
			}
			w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// Deletes pick rows of the committed table (a row may be
			// deleted once per copy); inserts add rows, often duplicates.
			committed := slices.Clone(model)
			for j, n := 0, rng.IntN(8); j < n && len(committed) > 0; j++ {
				i := rng.IntN(len(committed))
				row := committed[i]
				committed = slices.Delete(committed, i, i+1)
				if err := w.Write(ctx, kv.Delete, slices.Clone(row)); err != nil {
					t.Fatal(err)
				}
				i = slices.IndexFunc(model, func(r []any) bool { return fmt.Sprint(r) == fmt.Sprint(row) })
				model = slices.Delete(model, i, i+1)
			}
			for j, n := 0, rng.IntN(40); j < n; j++ {
				row := []any{int32(rng.IntN(30)), int32(rng.IntN(3)), int64(rng.IntN(4))}
				if !cfg.part {
					row[1] = int32(0)
				}
				if rng.IntN(10) == 0 {
					row[0] = nil
				}
				if err := w.Write(ctx, kv.Insert, row); err != nil {
					t.Fatal(err)
				}
				model = append(model, slices.Clone(row))
			}
			snap, err := w.Commit(ctx)
			if err != nil {
				t.Fatalf("step %d: commit: %v", step, err)
			}
			if snap != nil {
				history[snap.ID] = text(model)
			}
		}
		latest, err := tbl.Snapshots().Latest(ctx)
		if errors.Is(err, snapshot.ErrSnapshotNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, want := readAll(ctx, t, rt, latest.ID), text(model); !slices.Equal(got, want) {
			t.Fatalf("step %d, snapshot %d: read %d rows, model %d\n%s", step, latest.ID, len(got), len(want), diffRows(got, want))
		}
	}
	for id, want := range history {
		if got := readAll(ctx, t, rt, id); !slices.Equal(got, want) {
			t.Fatalf("time travel to snapshot %d: read %d rows, model %d\n%s", id, len(got), len(want), diffRows(got, want))
		}
	}
}
