package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// sysEnv is a GMS engine over a temporary warehouse holding copies of
// fixture tables in database fx.
type sysEnv struct {
	t   *testing.T
	dir string // warehouse folder
	e   *sqle.Engine
}

func newSysEnv(t *testing.T, tables ...string) *sysEnv {
	t.Helper()
	dir := t.TempDir()
	fx := testutil.FixturesDir(t)
	for _, n := range tables {
		if err := os.CopyFS(filepath.Join(dir, "fx.db", n), os.DirFS(filepath.Join(fx, n+".db", n))); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+dir+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	pro, err := provider.New(ctx, st, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &sysEnv{t: t, dir: dir, e: sqle.New(analyzer.NewBuilder(pro).Build(), nil)}
}

func (s *sysEnv) tableStorage(name string) storage.Storage {
	st, err := storage.Open(context.Background(), filepath.Join(s.dir, "fx.db", name))
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

func (s *sysEnv) ctx() *sql.Context {
	sess := sql.NewBaseSession()
	sess.SetCurrentDatabase("fx")
	return sql.NewContext(context.Background(), sql.WithSession(sess))
}

func (s *sysEnv) exec(q string) (sql.Schema, []sql.Row, error) {
	ctx := s.ctx()
	sch, it, _, err := s.e.Query(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	return sch, rows, err
}

func (s *sysEnv) query(q string) []sql.Row {
	s.t.Helper()
	_, rows, err := s.exec(q)
	if err != nil {
		s.t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// liveFiles merges the manifests of snapshot id into the live data files.
func sysLiveFiles(t *testing.T, st storage.Storage, id snapshot.SnapshotID) []manifest.ManifestEntry {
	t.Helper()
	ctx := context.Background()
	snap, err := snapshot.NewSnapshotManager(st, "").Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	m := manifest.NewEntryMerger()
	for _, list := range []string{snap.BaseManifestList, snap.DeltaManifestList} {
		data, err := st.ReadAll(ctx, manifest.Path(list))
		if err != nil {
			t.Fatal(err)
		}
		metas, err := manifest.ReadManifestList(data, list)
		if err != nil {
			t.Fatal(err)
		}
		for _, meta := range metas {
			data, err := st.ReadAll(ctx, manifest.Path(meta.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.AddAll(manifest.ManifestEntries(data, meta.FileName)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m.LiveFiles()
}

func sysColIndex(t *testing.T, sch sql.Schema, name string) int {
	t.Helper()
	i := sch.IndexOfColName(name)
	if i < 0 {
		t.Fatalf("no column %s in %v", name, sch)
	}
	return i
}

const sysDVTable = "pk_table_scan_and_read_dv"

func TestSysSnapshots(t *testing.T) {
	s := newSysEnv(t, sysDVTable)
	// $snapshots lists every snapshot: AS OF is refused, never ignored.
	if _, _, err := s.exec("SELECT * FROM `" + sysDVTable + "$snapshots` AS OF 2"); err == nil || !strings.Contains(err.Error(), "1235") {
		t.Errorf("$snapshots AS OF 2: %v, want error 1235", err)
	}
	sm := snapshot.NewSnapshotManager(s.tableStorage(sysDVTable), "")
	for _, q := range []string{
		"SELECT * FROM `" + sysDVTable + "$snapshots` ORDER BY snapshot_id",
	} {
		sch, rows, err := s.exec(q)
		if err != nil {
			t.Fatal(err)
		}
		wantCols := []string{"snapshot_id", "schema_id", "commit_user", "commit_identifier", "commit_kind", "commit_time",
			"base_manifest_list", "delta_manifest_list", "changelog_manifest_list", "total_record_count",
			"delta_record_count", "changelog_record_count", "watermark"}
		var got []string
		for _, c := range sch {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, wantCols) {
			t.Fatalf("columns %v", got)
		}
		if len(rows) != 6 {
			t.Fatalf("%d rows", len(rows))
		}
		var kinds string
		for i, r := range rows {
			snap, err := sm.Snapshot(context.Background(), snapshot.SnapshotID(i+1))
			if err != nil {
				t.Fatal(err)
			}
			if r[0] != int64(i+1) || r[1] != int64(snap.SchemaID) || r[2] != snap.CommitUser || r[3] != snap.CommitIdentifier {
				t.Errorf("row %d: %v", i, r)
			}
			if r[4] != snap.CommitKind.String() {
				t.Errorf("row %d kind %v, want %v", i, r[4], snap.CommitKind)
			}
			kinds += r[4].(string)[:1]
			if ct := r[5].(time.Time); !ct.Equal(time.UnixMilli(snap.TimeMillis)) {
				t.Errorf("row %d commit_time %v", i, ct)
			}
			if r[6] != snap.BaseManifestList || r[7] != snap.DeltaManifestList || r[9] != snap.TotalRecordCount || r[10] != snap.DeltaRecordCount {
				t.Errorf("row %d: %v", i, r)
			}
			if r[12] != nil {
				t.Errorf("row %d watermark %v", i, r[12])
			}
		}
		if kinds != "ACACAA" {
			t.Errorf("commit kinds %s, want ACACAA", kinds)
		}
	}
}

func TestSysFiles(t *testing.T) {
	s := newSysEnv(t, sysDVTable)
	st := s.tableStorage(sysDVTable)
	for _, tc := range []struct {
		asOf string
		snap snapshot.SnapshotID
	}{{"", 6}, {" AS OF 3", 3}, {" AS OF 1", 1}} {
		t.Run(fmt.Sprint(tc.snap), func(t *testing.T) {
			sch, rows, err := s.exec("SELECT * FROM `" + sysDVTable + "$files`" + tc.asOf)
			if err != nil {
				t.Fatal(err)
			}
			live := sysLiveFiles(t, st, tc.snap)
			want := map[string]manifest.ManifestEntry{}
			for _, e := range live {
				want[e.File.FileName] = e
			}
			pathCol, levelCol, countCol := sysColIndex(t, sch, "file_path"), sysColIndex(t, sch, "level"), sysColIndex(t, sch, "record_count")
			got := map[string]bool{}
			var total int64
			for _, r := range rows {
				p := r[pathCol].(string)
				name := path.Base(p)
				e, ok := want[name]
				if !ok {
					t.Errorf("unexpected file %s", p)
					continue
				}
				got[name] = true
				if !strings.HasPrefix(p, "file:/") {
					t.Errorf("file_path %s", p)
				}
				if _, err := os.Stat(strings.TrimPrefix(p, "file:")); err != nil {
					t.Errorf("file_path does not name a file: %v", err)
				}
				if r[levelCol] != int32(e.File.Level) || r[countCol] != e.File.RowCount || r[1] != int32(e.Bucket) {
					t.Errorf("%s: %v", name, r)
				}
				if r[sysColIndex(t, sch, "file_format")] != "parquet" || r[sysColIndex(t, sch, "schema_id")] != int64(0) {
					t.Errorf("%s: %v", name, r)
				}
				total += e.File.RowCount
			}
			if len(got) != len(want) || len(rows) != len(want) {
				t.Errorf("files %v, want %d live files", got, len(want))
			}
			snap, err := snapshot.NewSnapshotManager(st, "").Snapshot(context.Background(), tc.snap)
			if err != nil {
				t.Fatal(err)
			}
			if total != snap.TotalRecordCount {
				t.Errorf("record counts sum to %d, snapshot says %d", total, snap.TotalRecordCount)
			}
		})
	}

	// The single file of partition f1=20 holds Lucy and Paul (README).
	sch, rows, err := s.exec("SELECT * FROM `" + sysDVTable + "$files` WHERE `partition` = '{20}'")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("partition {20}: %v", rows)
	}
	r := rows[0]
	for col, want := range map[string]any{
		"bucket":            int32(0),
		"min_key":           "[Lucy, 1]",
		"max_key":           "[Paul, 1]",
		"null_value_counts": "{f0=0, f1=0, f2=0, f3=0}",
		"min_value_stats":   "{f0=Lucy, f1=20, f2=1, f3=14.1}",
		"max_value_stats":   "{f0=Paul, f1=20, f2=1, f3=18.1}",
		"record_count":      int64(2),
	} {
		if got := r[sysColIndex(t, sch, col)]; got != want {
			t.Errorf("%s = %v, want %v", col, got, want)
		}
	}
	if !strings.HasSuffix(r[sysColIndex(t, sch, "file_path")].(string), "/"+sysDVTable+"/f1=20/bucket-0/data-6922349a-83a3-4da3-995b-5a9e5b066710-0.parquet") {
		t.Errorf("file_path %v", r[sysColIndex(t, sch, "file_path")])
	}
	if src := r[sysColIndex(t, sch, "file_source")]; src != "APPEND" && src != "COMPACT" {
		t.Errorf("file_source %v", src)
	}
	if _, ok := r[sysColIndex(t, sch, "creation_time")].(time.Time); !ok {
		t.Errorf("creation_time %v", r[sysColIndex(t, sch, "creation_time")])
	}
	if c := sch[sysColIndex(t, sch, "creation_time")]; c.Type.String() != "datetime(3)" {
		t.Errorf("creation_time type %s", c.Type)
	}

	if _, _, err := s.exec("SELECT * FROM `" + sysDVTable + "$files` AS OF 99"); err == nil {
		t.Error("AS OF 99 succeeded")
	}
}

func TestSysFilesSchemaEvolution(t *testing.T) {
	const name = "append_table_with_alter_table"
	s := newSysEnv(t, name)
	lt := s.tableStorage(name)
	latest, err := snapshot.NewSchemaManager(lt, "").Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := latest.FieldNames()
	slices.Sort(names)
	sch, rows := func() (sql.Schema, []sql.Row) {
		sch, rows, err := s.exec("SELECT * FROM `" + name + "$files`")
		if err != nil {
			t.Fatal(err)
		}
		return sch, rows
	}()
	if len(rows) == 0 {
		t.Fatal("no files")
	}
	sawOld := false
	for _, r := range rows {
		nulls := r[sysColIndex(t, sch, "null_value_counts")].(string)
		var keys []string
		for _, kv := range strings.Split(strings.Trim(nulls, "{}"), ", ") {
			k, _, _ := strings.Cut(kv, "=")
			keys = append(keys, k)
		}
		if !slices.Equal(keys, names) {
			t.Errorf("null_value_counts %s: columns %v, want latest schema's %v", nulls, keys, names)
		}
		if r[sysColIndex(t, sch, "min_key")] != nil {
			t.Errorf("append table min_key %v", r[sysColIndex(t, sch, "min_key")])
		}
		if r[sysColIndex(t, sch, "schema_id")] != int64(latest.ID) {
			sawOld = true
		}
	}
	if !sawOld {
		t.Error("the fixture has files of schema 0; none seen")
	}
}

// A file written before a column was added reports the column's bounds as
// null and its null count as the file's row count (SimpleStatsEvolution).
func TestSysFilesAddedColumnStats(t *testing.T) {
	const name = "pk_table_with_alter_table"
	s := newSysEnv(t, name)
	sch, rows, err := s.exec("SELECT * FROM `" + name + "$files` WHERE schema_id = 0")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no file of schema 0")
	}
	for _, r := range rows {
		n := r[sysColIndex(t, sch, "record_count")].(int64)
		nulls := r[sysColIndex(t, sch, "null_value_counts")].(string)
		// e (field id 9) only exists in schema 1.
		if !strings.Contains(nulls, fmt.Sprintf(", e=%d,", n)) {
			t.Errorf("null_value_counts %s: want e=%d", nulls, n)
		}
		if mins := r[sysColIndex(t, sch, "min_value_stats")].(string); !strings.Contains(mins, ", e=null,") {
			t.Errorf("min_value_stats %s: want e=null", mins)
		}
		// The trimmed primary key of schema 0 is key2.
		if k := r[sysColIndex(t, sch, "min_key")].(string); !strings.HasPrefix(k, "[") || strings.Contains(k, ",") {
			t.Errorf("min_key %s", k)
		}
	}
}

// Dense statistics (_VALUE_STATS_COLS) are spread over the file's columns;
// columns without statistics are null.
func TestSysFilesDenseStats(t *testing.T) {
	const name = "data_evolution_with_dense_stats"
	s := newSysEnv(t, name)
	rows := s.query("SELECT null_value_counts, min_value_stats, max_value_stats, write_cols, first_row_id FROM `" + name + "$files` WHERE JSON_LENGTH(write_cols) = 2")
	if len(rows) != 1 {
		t.Fatalf("rows %v", rows)
	}
	r := rows[0]
	if r[0] != "{f0=null, f1=null, f2=0, f3=null}" || r[1] != "{f0=null, f1=null, f2=102, f3=null}" || r[2] != "{f0=null, f1=null, f2=104, f3=null}" {
		t.Errorf("stats %v", r)
	}
	if r[4] != int64(0) {
		t.Errorf("first_row_id %v", r[4])
	}
}

func TestSysOptionsSchemas(t *testing.T) {
	s := newSysEnv(t, sysDVTable)
	sc, err := snapshot.NewSchemaManager(s.tableStorage(sysDVTable), "").Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows := s.query("SELECT `key`, `value` FROM `" + sysDVTable + "$options`")
	got := map[string]string{}
	for _, r := range rows {
		got[r[0].(string)] = r[1].(string)
	}
	if len(got) != len(sc.Options) || len(rows) != len(sc.Options) {
		t.Fatalf("options %v, want %v", got, sc.Options)
	}
	for k, v := range sc.Options {
		if got[k] != v {
			t.Errorf("option %s = %q, want %q", k, got[k], v)
		}
	}

	rows = s.query("SELECT schema_id, fields, partition_keys, primary_keys, options, comment, update_time FROM `" + sysDVTable + "$schemas`")
	if len(rows) != 1 {
		t.Fatalf("schemas %v", rows)
	}
	r := rows[0]
	var fields []struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(r[1].(string)), &fields); err != nil {
		t.Fatal(err)
	}
	if len(fields) != 4 || fields[0].Name != "f0" || fields[0].Type != "STRING NOT NULL" || fields[3].Type != "DOUBLE" {
		t.Errorf("fields %s", r[1])
	}
	if r[0] != int64(0) || r[2] != `["f1"]` || r[3] != `["f0","f1","f2"]` || r[5] != nil {
		t.Errorf("schema row %v", r)
	}
	var opts map[string]string
	if err := json.Unmarshal([]byte(r[4].(string)), &opts); err != nil || opts["bucket-key"] != "f2" || len(opts) != len(sc.Options) {
		t.Errorf("options %s (%v)", r[4], err)
	}
	if !r[6].(time.Time).Equal(time.UnixMilli(1756266169299)) {
		t.Errorf("update_time %v", r[6])
	}
}

func TestSysTagsBranchesConsumers(t *testing.T) {
	const name = "append_table_with_append_pt_branch"
	s := newSysEnv(t, name, sysDVTable)
	ctx := context.Background()

	rows := s.query("SELECT branch_name, create_time FROM `" + name + "$branches`")
	if len(rows) != 1 || rows[0][0] != "test" {
		t.Fatalf("branches %v", rows)
	}
	if ct := rows[0][1].(time.Time); ct.IsZero() || ct.After(time.Now()) {
		t.Errorf("create_time %v", ct)
	}
	if rows := s.query("SELECT * FROM `" + sysDVTable + "$branches`"); len(rows) != 0 {
		t.Errorf("branches of %s: %v", sysDVTable, rows)
	}

	if rows := s.query("SELECT * FROM `" + sysDVTable + "$tags`"); len(rows) != 0 {
		t.Fatalf("tags before creating one: %v", rows)
	}
	st := s.tableStorage(sysDVTable)
	sm := snapshot.NewSnapshotManager(st, "")
	tm := snapshot.NewTagManager(st, "")
	s3, err := sm.Snapshot(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	s5, err := sm.Snapshot(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.Create(ctx, "t3", s3, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	hour := time.Hour
	created := time.Date(2025, 3, 4, 5, 6, 7, 8e6, time.UTC)
	if err := tm.Create(ctx, "t5", s5, &hour, created); err != nil {
		t.Fatal(err)
	}
	rows = s.query("SELECT * FROM `" + sysDVTable + "$tags` ORDER BY tag_name")
	if len(rows) != 2 {
		t.Fatalf("tags %v", rows)
	}
	if r := rows[0]; r[0] != "t3" || r[1] != int64(3) || r[2] != int64(0) || r[4] != s3.TotalRecordCount || r[5] != nil || r[6] != nil ||
		!r[3].(time.Time).Equal(time.UnixMilli(s3.TimeMillis)) {
		t.Errorf("tag t3 %v", r)
	}
	if r := rows[1]; r[0] != "t5" || r[1] != int64(5) || r[6] != "PT1H" || !r[5].(time.Time).Equal(created) {
		t.Errorf("tag t5 %v", r)
	}
	// AS OF a tag works for $files.
	tagFiles := s.query("SELECT file_path FROM `" + sysDVTable + "$files` AS OF 't3'")
	if want := sysLiveFiles(t, st, 3); len(tagFiles) != len(want) {
		t.Errorf("files AS OF tag t3: %d, want %d", len(tagFiles), len(want))
	}

	if rows := s.query("SELECT * FROM `" + sysDVTable + "$consumers`"); len(rows) != 0 {
		t.Fatalf("consumers before creating one: %v", rows)
	}
	c := &snapshot.Consumer{ID: "myjob", NextSnapshot: 4}
	if err := st.WriteAll(ctx, snapshot.ConsumerPath("", "myjob"), snapshot.EncodeConsumer(c)); err != nil {
		t.Fatal(err)
	}
	rows = s.query("SELECT consumer_id, next_snapshot_id FROM `" + sysDVTable + "$consumers`")
	if len(rows) != 1 || rows[0][0] != "myjob" || rows[0][1] != int64(4) {
		t.Errorf("consumers %v", rows)
	}
}

func TestSysPartitionsBuckets(t *testing.T) {
	for _, name := range []string{sysDVTable, "append_table_with_append_pt_branch", "append_table_with_alter_table"} {
		t.Run(name, func(t *testing.T) {
			s := newSysEnv(t, name)
			files := s.query("SELECT `partition`, bucket, record_count, file_size_in_bytes FROM `" + name + "$files`")
			type agg struct{ records, bytes, files int64 }
			byBucket := map[string]agg{}
			byPart := map[string]agg{}
			for _, r := range files {
				k := fmt.Sprint(r[0], "/", r[1])
				a := byBucket[k]
				a.records += r[2].(int64)
				a.bytes += r[3].(int64)
				a.files++
				byBucket[k] = a
				b := byPart[r[0].(string)]
				b.records += r[2].(int64)
				b.bytes += r[3].(int64)
				b.files++
				byPart[r[0].(string)] = b
			}
			buckets := s.query("SELECT `partition`, bucket, record_count, file_size_in_bytes, file_count, last_update_time FROM `" + name + "$buckets`")
			if len(buckets) != len(byBucket) {
				t.Errorf("%d buckets, $files has %d", len(buckets), len(byBucket))
			}
			for _, r := range buckets {
				want := byBucket[fmt.Sprint(r[0], "/", r[1])]
				if (agg{r[2].(int64), r[3].(int64), r[4].(int64)}) != want || want.files == 0 {
					t.Errorf("bucket %v, want %+v", r, want)
				}
			}
			parts := s.query("SELECT `partition`, record_count, file_size_in_bytes, file_count FROM `" + name + "$partitions`")
			if len(parts) != len(byPart) {
				t.Errorf("%d partitions, $files has %d", len(parts), len(byPart))
			}
			var sumP, sumF agg
			for _, r := range parts {
				sumP.records += r[1].(int64)
				sumP.bytes += r[2].(int64)
				sumP.files += r[3].(int64)
				if !strings.Contains(r[0].(string), "=") {
					t.Errorf("partition %q is not k=v", r[0])
				}
			}
			for _, a := range byPart {
				sumF.records += a.records
				sumF.bytes += a.bytes
				sumF.files += a.files
			}
			if sumP != sumF {
				t.Errorf("$partitions sums %+v, $files sums %+v", sumP, sumF)
			}
		})
	}
	s := newSysEnv(t, sysDVTable)
	rows := s.query("SELECT `partition`, record_count, file_count FROM `" + sysDVTable + "$partitions` ORDER BY `partition`")
	if len(rows) != 2 || rows[0][0] != "f1=10" || rows[1][0] != "f1=20" || rows[1][1] != int64(2) || rows[1][2] != int64(1) {
		t.Errorf("partitions %v", rows)
	}
}

func TestSysManifestsIndexes(t *testing.T) {
	s := newSysEnv(t, sysDVTable)
	st := s.tableStorage(sysDVTable)
	for _, id := range []snapshot.SnapshotID{6, 2} {
		rows := s.query(fmt.Sprintf("SELECT file_name, num_added_files, num_deleted_files, schema_id, min_partition_stats, max_partition_stats FROM `%s$manifests` AS OF %d", sysDVTable, id))
		var added, deleted int64
		for _, r := range rows {
			added += r[1].(int64)
			deleted += r[2].(int64)
			if ok, err := st.Exists(context.Background(), manifest.Path(r[0].(string))); err != nil || !ok {
				t.Errorf("manifest %v does not exist", r[0])
			}
			for _, p := range r[4:6] {
				if p != "{10}" && p != "{20}" {
					t.Errorf("partition stats %v", p)
				}
			}
		}
		if live := int64(len(sysLiveFiles(t, st, id))); added-deleted != live || len(rows) == 0 {
			t.Errorf("snapshot %d: %d manifests, added %d - deleted %d != %d live files", id, len(rows), added, deleted, live)
		}
	}

	rows := s.query("SELECT `partition`, bucket, index_type, file_name, file_size, row_count, dv_ranges FROM `" + sysDVTable + "$table_indexes`")
	if len(rows) == 0 {
		t.Fatal("no index files")
	}
	for _, r := range rows {
		if r[2] != manifest.IndexTypeDeletionVectors {
			t.Errorf("index %v", r)
		}
		if ok, err := st.Exists(context.Background(), "index/"+r[3].(string)); err != nil || !ok {
			t.Errorf("index file %v does not exist", r[3])
		}
		doc, ok := r[6].(types.JSONDocument)
		if !ok {
			t.Fatalf("dv_ranges %T", r[6])
		}
		ranges, _ := doc.Val.([]any)
		if int64(len(ranges)) != r[5].(int64) {
			t.Errorf("%d dv ranges, row_count %v", len(ranges), r[5])
		}
	}
}

func TestSysUnknownAndUnsupported(t *testing.T) {
	s := newSysEnv(t, sysDVTable)
	_, _, err := s.exec("SELECT * FROM `" + sysDVTable + "$nope`")
	if !sql.ErrTableNotFound.Is(err) {
		t.Errorf("t$nope: %v, want table not found", err)
	}
	_, _, err = s.exec("SELECT * FROM `" + sysDVTable + "$statistics`")
	if err == nil || !strings.Contains(err.Error(), "system table $statistics is not supported yet") {
		t.Errorf("t$statistics: %v", err)
	}
	// $audit_log of a Java-written deletion-vector table: its +I/+U rows are
	// the table's rows, with the row kind first.
	audit := s.query("SELECT * FROM `" + sysDVTable + "$audit_log`")
	plain := s.query("SELECT * FROM `" + sysDVTable + "`")
	var adds, all []string
	for _, r := range audit {
		if k := r[0].(string); k == "+I" || k == "+U" {
			adds = append(adds, fmt.Sprint(r[1:]))
		}
	}
	for _, r := range plain {
		all = append(all, fmt.Sprint(r))
	}
	slices.Sort(adds)
	slices.Sort(all)
	if len(all) == 0 || !slices.Equal(adds, all) {
		t.Errorf("$audit_log adds %v, table %v", adds, all)
	}
	// Case-insensitive names.
	if rows := s.query("SELECT snapshot_id FROM `" + sysDVTable + "$SNAPSHOTS`"); len(rows) != 6 {
		t.Errorf("$SNAPSHOTS: %d rows", len(rows))
	}
}
