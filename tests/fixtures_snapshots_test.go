package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestFixtureSnapshots reads every fixture table on every branch at every
// snapshot (and through a tag of every snapshot) and checks the row counts
// against what the snapshot's own metadata says.
//
// The counts are derived independently of lsmread's planner: the live files
// of a snapshot are recomputed here from its base and delta manifest lists
// (manifest.MergeEntries), and the deletion-vector cardinalities from its
// index manifest. The rules, from Paimon's semantics:
//
//   - Snapshot.TotalRecordCount is the sum of the row counts of all live data
//     files (Java adds each commit's added minus deleted file rows), retract
//     rows included and deletion vectors not subtracted.
//   - Append tables: every row of every live file is read, minus the rows a
//     deletion vector removes. Without deletion vectors, rows read ==
//     TotalRecordCount.
//   - Primary-key tables, merge-on-read: merging emits at most one row per
//     key, and only for a key whose latest record is +I/+U, so rows read ≤
//     TotalRecordCount − Σ _DELETE_ROW_COUNT (each output row consumes at
//     least one add record). Keys are unique in the output.
//   - Primary-key tables with deletion vectors (and first-row tables): a
//     batch read sees only levels ≥ 1 (level-0 files are not yet compacted:
//     Java's scan applies the level filter level > 0), files read raw with
//     their deletion vectors applied. Compaction into levels ≥ 1 drops
//     retract records when deletion vectors are on, so when every level ≥ 1
//     file has _DELETE_ROW_COUNT = 0, rows read == Σ_{level ≥ 1}(row count −
//     DV cardinality). In particular when no level-0 file is live and no
//     deletion vector removes a row, rows read == TotalRecordCount. Keys are
//     unique (a deletion vector marks every older copy of a key).
//   - ReadOptimized: primary-key tables read only the top level (levels ≥ 1
//     with deletion vectors, num-levels − 1 otherwise), one sorted run per
//     bucket, so keys are unique and, without retract rows there, rows read
//     == Σ_{top level} row count (minus DV cardinalities). With deletion
//     vectors this is exactly the normal read. Append tables ignore it.
//   - A tag of a snapshot reads the same rows as the snapshot id.
func TestFixtureSnapshots(t *testing.T) {
	ctx := context.Background()
	tables := testutil.FixtureTables(t)
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	var total snapTotals
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			// Tags are written, so the table is read from a scratch copy;
			// the shared fixtures are never modified.
			src := filepath.Dir(tables[name])
			work := filepath.Join(t.TempDir(), filepath.Base(src))
			if err := os.CopyFS(work, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(work, name)
			st, err := storage.Open(ctx, "file://"+dir+"?fsync=false")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tbl := lsmread.OpenTable(st, "").WithExternalResolver(externalResolver(work))
			branches := []string{snapshot.MainBranch}
			bs, err := tbl.Branches().List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bs {
				branches = append(branches, b.Name)
			}
			feature, wantUnsupported := unsupportedFixtures[name]
			if f, ok := unsupportedSnapshotFixtures[name]; ok {
				feature, wantUnsupported = f, true
			}
			var tt snapTotals
			for _, branch := range branches {
				bt, err := tbl.Branch(ctx, branch)
				if err != nil {
					t.Fatal(err)
				}
				ids, err := bt.Snapshots().List(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(ids) == 0 {
					t.Fatalf("branch %s has no snapshot", branch)
				}
				for _, id := range ids {
					t.Run(fmt.Sprintf("%s/%d", branch, id), func(t *testing.T) {
						checkFixtureSnapshot(t, bt, id, wantUnsupported, feature, &tt)
					})
				}
			}
			t.Logf("%s: %d snapshots, %d read, %d unsupported, %d rows", name, tt.snapshots, tt.read, tt.unsupported, tt.rows)
			total.add(tt)
			total.tables++
		})
	}
	t.Logf("summary: %d tables, %d snapshots (%d read, %d unsupported), %d rows; exact-count checks: %d raw, %d read-optimized; %d tags",
		total.tables, total.snapshots, total.read, total.unsupported, total.rows, total.exact, total.exactRO, total.tags)
	if total.read == 0 || total.exact == 0 {
		t.Fatal("no snapshot was read with an exact count check")
	}
}

// unsupportedSnapshotFixtures are tables with no table-scan case in
// expected/ (so not in unsupportedFixtures) that use a feature lakesql does
// not read; the error must name it.
var unsupportedSnapshotFixtures = map[string]string{
	"append_with_bitmap_multi_stripes":        "ORC manifest",
	"append_with_global_index":                "data-evolution",
	"append_with_global_index_with_partition": "data-evolution",
}

type snapTotals struct {
	tables, snapshots, read, unsupported, exact, exactRO, tags int
	rows                                                       int64
}

func (s *snapTotals) add(o snapTotals) {
	s.snapshots += o.snapshots
	s.read += o.read
	s.unsupported += o.unsupported
	s.exact += o.exact
	s.exactRO += o.exactRO
	s.tags += o.tags
	s.rows += o.rows
}

// externalResolver maps the fixtures' FILE:/tmp/external/ paths onto
// <table>.db/external.
func externalResolver(db string) func(ctx context.Context, url string) (storage.File, error) {
	return func(ctx context.Context, url string) (storage.File, error) {
		rel, ok := strings.CutPrefix(url, "FILE:/tmp/external/")
		if !ok {
			return nil, fmt.Errorf("unexpected external path %s", url)
		}
		ext, err := storage.OpenLocal(filepath.Join(db, "external"))
		if err != nil {
			return nil, err
		}
		f, err := ext.Open(ctx, rel)
		if err != nil {
			ext.Close()
			return nil, err
		}
		return &storageFile{File: f, st: ext}, nil
	}
}

// storageFile closes the storage it was opened from with the file.
type storageFile struct {
	storage.File
	st storage.Storage
}

func (f *storageFile) Close() error {
	return errors.Join(f.File.Close(), f.st.Close())
}

// isUnsupportedErr reports whether err names a feature lakesql does not read.
func isUnsupportedErr(err error) bool {
	return errors.Is(err, lsmread.ErrUnsupported) || errors.Is(err, manifest.ErrUnsupported)
}

// snapshotFiles is what a snapshot's metadata says, recomputed without
// lsmread.
type snapshotFiles struct {
	live []manifest.ManifestEntry
	// card maps partition/bucket/file to its DV cardinality (-1 unknown).
	card map[string]int64
}

func fileKey(e *manifest.ManifestEntry) string {
	return fmt.Sprintf("%x/%d/%s", []byte(e.Partition), e.Bucket, e.File.FileName)
}

func readSnapshotFiles(ctx context.Context, st storage.Storage, s *snapshot.Snapshot) (*snapshotFiles, error) {
	var entries []manifest.ManifestEntry
	for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		data, err := st.ReadAll(ctx, manifest.Path(list))
		if err != nil {
			return nil, err
		}
		metas, err := manifest.ReadManifestList(data, list)
		if err != nil {
			return nil, err
		}
		for _, m := range metas {
			data, err := st.ReadAll(ctx, manifest.Path(m.FileName))
			if err != nil {
				return nil, err
			}
			es, err := manifest.ReadManifest(data, m.FileName)
			if err != nil {
				return nil, err
			}
			entries = append(entries, es...)
		}
	}
	merged, err := manifest.MergeEntries(entries)
	if err != nil {
		return nil, err
	}
	out := &snapshotFiles{card: map[string]int64{}}
	for _, e := range merged {
		if e.Kind == manifest.FileKindAdd {
			out.live = append(out.live, e)
		}
	}
	if s.IndexManifest != nil {
		data, err := st.ReadAll(ctx, manifest.Path(*s.IndexManifest))
		if err != nil {
			return nil, err
		}
		idx, err := manifest.ReadIndexManifest(data, *s.IndexManifest)
		if err != nil {
			return nil, err
		}
		for _, e := range idx {
			if e.Kind != manifest.FileKindAdd || e.IndexFile.IndexType != manifest.IndexTypeDeletionVectors {
				continue
			}
			for _, r := range e.IndexFile.DVRanges {
				k := fmt.Sprintf("%x/%d/%s", []byte(e.Partition), e.Bucket, r.DataFileName)
				c := int64(-1)
				if r.Cardinality != nil {
					c = *r.Cardinality
				}
				out.card[k] = c
			}
		}
	}
	return out, nil
}

// rawCount is Σ (row count − DV cardinality) over the live files keep
// selects, and whether it is exact: every file has a known zero delete row
// count and every deletion vector a known cardinality.
func (sf *snapshotFiles) rawCount(keep func(*manifest.ManifestEntry) bool) (n int64, exact bool) {
	exact = true
	for i := range sf.live {
		e := &sf.live[i]
		if !keep(e) {
			continue
		}
		n += e.File.RowCount
		if e.File.DeleteRowCount == nil || *e.File.DeleteRowCount != 0 {
			exact = false
		}
		if c, ok := sf.card[fileKey(e)]; ok {
			if c < 0 {
				exact = false
			} else {
				n -= c
			}
		}
	}
	return n, exact
}

func checkFixtureSnapshot(t *testing.T, tbl *lsmread.Table, id snapshot.SnapshotID, wantUnsupported bool, feature string, tt *snapTotals) {
	ctx := context.Background()
	tt.snapshots++
	plan, err := tbl.Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: id}})
	var rows [][]any
	if err == nil {
		rows, err = readAll(ctx, plan)
	}
	if err != nil {
		if wantUnsupported && isUnsupportedErr(err) {
			if !strings.Contains(err.Error(), feature) {
				t.Errorf("error %q does not name %q", err, feature)
			}
			tt.unsupported++
			return
		}
		t.Fatalf("snapshot %d: %v", id, err)
	}
	tt.read++
	tt.rows += int64(len(rows))
	snap := plan.Snapshot
	if snap == nil || snap.ID != id {
		t.Fatalf("plan of snapshot %d read snapshot %v", id, snap)
	}
	sf, err := readSnapshotFiles(ctx, tbl.Storage(), snap)
	if err != nil {
		t.Fatal(err)
	}
	var liveRows, deleteRows int64
	level0 := 0
	for _, e := range sf.live {
		liveRows += e.File.RowCount
		if e.File.DeleteRowCount != nil {
			deleteRows += *e.File.DeleteRowCount
		}
		if e.File.Level == 0 {
			level0++
		}
	}
	if liveRows != snap.TotalRecordCount {
		t.Errorf("live files hold %d rows, snapshot says totalRecordCount %d", liveRows, snap.TotalRecordCount)
	}
	n := int64(len(rows))
	core := plan.Core
	isPK := len(plan.Schema.PrimaryKeys) > 0
	all := func(*manifest.ManifestEntry) bool { return true }
	above0 := func(e *manifest.ManifestEntry) bool { return e.File.Level > 0 }
	switch {
	case !isPK:
		want, exact := sf.rawCount(all)
		if len(sf.card) == 0 {
			// No deletion vector: every live row is read.
			if n != snap.TotalRecordCount {
				t.Errorf("append table read %d rows, totalRecordCount %d", n, snap.TotalRecordCount)
			}
			tt.exact++
		} else if exact {
			if n != want {
				t.Errorf("append table with deletion vectors read %d rows, want %d", n, want)
			}
			tt.exact++
		}
	case core.DeletionVectorsEnabled || core.MergeEngine == schema.MergeEngineFirstRow:
		want, exact := sf.rawCount(above0)
		if exact {
			if n != want {
				t.Errorf("raw primary-key read: %d rows, want Σ level≥1 (rows − DV) = %d", n, want)
			}
			tt.exact++
			if level0 == 0 && want == snap.TotalRecordCount && n != snap.TotalRecordCount {
				t.Errorf("no level-0 file and no deleted row: read %d rows, totalRecordCount %d", n, snap.TotalRecordCount)
			}
		} else if n > want {
			t.Errorf("raw primary-key read: %d rows > Σ level≥1 rows %d", n, want)
		}
	default:
		if n > snap.TotalRecordCount-deleteRows {
			t.Errorf("merge read: %d rows > totalRecordCount %d − delete rows %d", n, snap.TotalRecordCount, deleteRows)
		}
	}
	if isPK {
		checkUniqueKeys(t, plan, rows)
	}

	// Read-optimized.
	roPlan, err := tbl.Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: id}, ReadOptimized: true})
	if err != nil {
		t.Fatalf("read-optimized plan: %v", err)
	}
	roRows, err := readAll(ctx, roPlan)
	if err != nil {
		t.Fatalf("read-optimized read: %v", err)
	}
	switch {
	case !isPK || core.DeletionVectorsEnabled:
		sameRows(t, "read-optimized vs normal read", plan.Schema, roRows, rows)
	default:
		top := func(e *manifest.ManifestEntry) bool { return int(e.File.Level) == core.NumLevels-1 }
		want, exact := sf.rawCount(top)
		if exact {
			if int64(len(roRows)) != want {
				t.Errorf("read-optimized: %d rows, want Σ top-level rows %d", len(roRows), want)
			}
			tt.exactRO++
		} else if int64(len(roRows)) > snap.TotalRecordCount {
			t.Errorf("read-optimized: %d rows > totalRecordCount %d", len(roRows), snap.TotalRecordCount)
		}
		checkUniqueKeys(t, roPlan, roRows)
	}

	// A tag of the snapshot reads the same rows.
	tag := fmt.Sprintf("snap-%d", id)
	if err := tbl.Tags().Create(ctx, tag, snap, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	tagPlan, err := tbl.Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{Tag: tag}})
	if err != nil {
		t.Fatalf("tag %s: %v", tag, err)
	}
	tagRows, err := readAll(ctx, tagPlan)
	if err != nil {
		t.Fatalf("tag %s: %v", tag, err)
	}
	sameRows(t, "tag "+tag, plan.Schema, tagRows, rows)
	tt.tags++

	// Time travel to the commit time reads the snapshot (or a later one
	// committed in the same millisecond).
	ms := snap.TimeMillis
	tmPlan, err := tbl.Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{TimeMillis: &ms}})
	if err != nil {
		t.Fatalf("time travel to %d: %v", ms, err)
	}
	if tmPlan.Snapshot.ID < id || tmPlan.Snapshot.TimeMillis != ms {
		t.Errorf("time travel to %d read snapshot %d (time %d)", ms, tmPlan.Snapshot.ID, tmPlan.Snapshot.TimeMillis)
	}
	if tmPlan.Snapshot.ID == id {
		tmRows, err := readAll(ctx, tmPlan)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, "time travel", plan.Schema, tmRows, rows)
	}
}

// checkUniqueKeys fails when two rows read from a primary-key table share a
// primary key.
func checkUniqueKeys(t *testing.T, plan *lsmread.Plan, rows [][]any) {
	t.Helper()
	var idx []int
	var types []schema.DataType
	for _, k := range plan.Schema.PrimaryKeys {
		i := plan.Schema.FieldIndex(k)
		idx = append(idx, i)
		types = append(types, plan.Schema.Fields[i].Type)
	}
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		parts := make([]string, len(idx))
		for j, i := range idx {
			parts[j] = canon(&types[j], r[i])
		}
		k := strings.Join(parts, "|")
		if seen[k] {
			t.Errorf("primary key (%s) read twice (read-optimized=%v)", k, plan.Spec.ReadOptimized)
			return
		}
		seen[k] = true
	}
}

// sameRows compares two full-width reads of sch as multisets.
func sameRows(t *testing.T, what string, sch *schema.TableSchema, got, want [][]any) {
	t.Helper()
	types := make([]schema.DataType, len(sch.Fields))
	for i, f := range sch.Fields {
		types[i] = f.Type
	}
	g := canonRows(t, types, got, false)
	w := canonRows(t, types, want, false)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: rows differ\n got (%d): %s\nwant (%d): %s", what, len(g), strings.Join(g, " "), len(w), strings.Join(w, " "))
	}
}
