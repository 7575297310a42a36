package inspect

// Tests of `lakesql inspect` over the Java-written fixtures.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
)

type liveFile struct {
	path   string // partition folder ("(unpartitioned)" when none)
	bucket int
	name   string
	level  int
	rows   int64
}

type dvRow struct {
	dataFile    string
	offset      int
	length      int
	cardinality string
}

type snapRow struct {
	id, schema   int64
	kind         string
	total, delta int64
}

var (
	groupRe = regexp.MustCompile(`^  partition (.+)  (\S+/|\(unpartitioned\))  bucket (-?\d+) \(`)
	fileRe  = regexp.MustCompile(`^    (data-\S+)\s+(\d+)\s+(\d+)\s`)
	dvRe    = regexp.MustCompile(`\s(data-\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+\S+$`)
	snapRe  = regexp.MustCompile(`^  (\d+)\s+(APPEND|COMPACT|OVERWRITE|ANALYZE)\s+\S+\s+(\d+)\s+(-?\d+)\s+(-?\d+)\s`)
)

// parsed is the machine-readable part of inspect's output.
type parsed struct {
	snapshots []snapRow
	live      []liveFile
	dvs       []dvRow
}

func parseOutput(t *testing.T, out string) parsed {
	t.Helper()
	var p parsed
	section := ""
	cur := liveFile{}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Snapshots ("):
			section = "snapshots"
			continue
		case strings.HasPrefix(line, "Live data files"):
			section = "live"
			continue
		case strings.HasPrefix(line, "Index files"):
			section = "index"
			continue
		}
		switch section {
		case "snapshots":
			if m := snapRe.FindStringSubmatch(line); m != nil {
				p.snapshots = append(p.snapshots, snapRow{id: atoi64(t, m[1]), kind: m[2], schema: atoi64(t, m[3]),
					total: atoi64(t, m[4]), delta: atoi64(t, m[5])})
			}
		case "live":
			if m := groupRe.FindStringSubmatch(line); m != nil {
				cur = liveFile{path: m[2], bucket: int(atoi64(t, m[3]))}
			} else if m := fileRe.FindStringSubmatch(line); m != nil {
				f := cur
				f.name, f.level, f.rows = m[1], int(atoi64(t, m[2])), atoi64(t, m[3])
				p.live = append(p.live, f)
			}
		case "index":
			if m := dvRe.FindStringSubmatch(line); m != nil {
				p.dvs = append(p.dvs, dvRow{dataFile: m[1], offset: int(atoi64(t, m[2])), length: int(atoi64(t, m[3])), cardinality: m[4]})
			}
		}
	}
	return p
}

func atoi64(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return n
}

func runInspect(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	err := Run(context.Background(), &buf, args)
	return buf.String(), err
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	p, ok := testutil.FixtureTables(t)[name]
	if !ok {
		t.Fatalf("fixture table %s not found", name)
	}
	return p
}

// snapshotJSON reads snapshot-N of a table directly (independently of the
// snapshot package) for the record counts inspect must print.
func snapshotJSON(t *testing.T, table string, id int64) (total, delta int64, kind string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(table, "snapshot", "snapshot-"+strconv.FormatInt(id, 10)))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		TotalRecordCount int64  `json:"totalRecordCount"`
		DeltaRecordCount int64  `json:"deltaRecordCount"`
		CommitKind       string `json:"commitKind"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.TotalRecordCount, s.DeltaRecordCount, s.CommitKind
}

func liveNames(files []liveFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.name)
	}
	slices.Sort(out)
	return out
}

// checkConsistent checks what must hold for every snapshot of a table whose
// data files are in the table folder: the live files' row counts add up to
// the snapshot's totalRecordCount, every live file exists in its partition
// and bucket folder, and the snapshot list matches the snapshot files.
func checkConsistent(t *testing.T, table string, p parsed, snap int64) {
	t.Helper()
	var sum int64
	for _, f := range p.live {
		sum += f.rows
		dir := f.path
		if dir == "(unpartitioned)" {
			dir = ""
		}
		if _, err := os.Stat(filepath.Join(table, dir, "bucket-"+strconv.Itoa(f.bucket), f.name)); err != nil {
			t.Errorf("snapshot %d: live file %s not in %s/bucket-%d: %v", snap, f.name, dir, f.bucket, err)
		}
	}
	total, _, _ := snapshotJSON(t, table, snap)
	if sum != total {
		t.Errorf("snapshot %d: live files hold %d rows, snapshot says totalRecordCount %d", snap, sum, total)
	}
	for _, s := range p.snapshots {
		total, delta, kind := snapshotJSON(t, table, s.id)
		if s.total != total || s.delta != delta || s.kind != kind {
			t.Errorf("snapshot row %+v, file says total %d delta %d kind %s", s, total, delta, kind)
		}
	}
}

func TestInspectPKTableWithDV(t *testing.T) {
	table := fixture(t, "pk_table_scan_and_read_dv")
	out, err := runInspect(t, table)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Schema 0 (latest, primary-key table",
		"Partition keys: f1",
		"Primary keys:   f0, f1, f2",
		"Bucket keys:    f2",
		"bucket-key                = f2",
		"deletion-vectors.enabled  = true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	p := parseOutput(t, out)
	if len(p.snapshots) != 6 {
		t.Fatalf("got %d snapshot rows, want 6:\n%s", len(p.snapshots), out)
	}
	checkConsistent(t, table, p, 6)

	want6 := []liveFile{
		{"f1=10/", 0, "data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet", 5, 2},
		{"f1=10/", 0, "data-f19db350-7c55-4686-8839-78d15aa17fc1-1.parquet", 4, 1},
		{"f1=10/", 1, "data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet", 5, 5},
		{"f1=10/", 1, "data-e9932532-7b58-48a2-8952-368ec6dec536-0.parquet", 0, 3},
		{"f1=10/", 1, "data-c5916932-cdff-44eb-93af-32613a1c7004-0.parquet", 0, 3},
		{"f1=20/", 0, "data-6922349a-83a3-4da3-995b-5a9e5b066710-0.parquet", 5, 2},
	}
	if !slices.Equal(p.live, want6) {
		t.Errorf("live files of snapshot 6:\n got %v\nwant %v", p.live, want6)
	}
	// Snapshot 3 deleted Tony (bucket 1) and updated Alice (bucket 0); the
	// compaction of snapshot 4 wrote one DV per bucket of partition 10.
	wantDV := []dvRow{
		{"data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet", 1, 22, "1"},
		{"data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet", 1, 22, "1"},
	}
	if !slices.Equal(p.dvs, wantDV) {
		t.Errorf("DVs of snapshot 6:\n got %v\nwant %v", p.dvs, wantDV)
	}

	// Snapshot 4 is before the level-0 files of snapshots 5 and 6.
	out4, err := runInspect(t, "--snapshot", "4", table)
	if err != nil {
		t.Fatalf("inspect --snapshot 4: %v\n%s", err, out4)
	}
	p4 := parseOutput(t, out4)
	checkConsistent(t, table, p4, 4)
	want4 := []string{
		"data-6922349a-83a3-4da3-995b-5a9e5b066710-0.parquet",
		"data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet",
		"data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet",
		"data-f19db350-7c55-4686-8839-78d15aa17fc1-1.parquet",
	}
	if got := liveNames(p4.live); !slices.Equal(got, want4) {
		t.Errorf("live files of snapshot 4: got %v, want %v", got, want4)
	}
	// Flag after the path works too; snapshot 1 has no index manifest.
	out1, err := runInspect(t, table, "--snapshot=1")
	if err != nil {
		t.Fatalf("inspect --snapshot=1: %v", err)
	}
	p1 := parseOutput(t, out1)
	checkConsistent(t, table, p1, 1)
	for _, f := range p1.live {
		if f.level != 0 {
			t.Errorf("snapshot 1 (APPEND only) has live file %s at level %d", f.name, f.level)
		}
	}
	if !strings.Contains(out1, "Index files of snapshot 1: none") || len(p1.dvs) != 0 {
		t.Errorf("snapshot 1 should have no index files:\n%s", out1)
	}
}

func TestInspectEverySnapshotIsConsistent(t *testing.T) {
	for _, name := range []string{"pk_table_scan_and_read_dv", "pk_09", "pk_table_scan_and_read_mor", "pk_table_with_alter_table"} {
		table := fixture(t, name)
		ids, err := filepath.Glob(filepath.Join(table, "snapshot", "snapshot-*"))
		if err != nil || len(ids) == 0 {
			t.Fatalf("%s: no snapshots (%v)", name, err)
		}
		for _, f := range ids {
			id := strings.TrimPrefix(filepath.Base(f), "snapshot-")
			out, err := runInspect(t, "--snapshot", id, table)
			if err != nil {
				t.Fatalf("%s snapshot %s: %v\n%s", name, id, err, out)
			}
			p := parseOutput(t, out)
			if len(p.snapshots) != len(ids) {
				t.Errorf("%s: %d snapshot rows, %d snapshot files", name, len(p.snapshots), len(ids))
			}
			checkConsistent(t, table, p, atoi64(t, id))
		}
	}
}

func TestInspectPK09NullCardinality(t *testing.T) {
	table := fixture(t, "pk_09")
	out, err := runInspect(t, table)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	p := parseOutput(t, out)
	checkConsistent(t, table, p, 8)
	want := []string{
		"data-2b672a79-68bb-447c-8f8d-b4764e29b391-1.parquet",
		"data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet",
		"data-cf4e088c-c6e7-4812-bb97-196f6aff271c-0.parquet",
	}
	if got := liveNames(p.live); !slices.Equal(got, want) {
		t.Errorf("live files of snapshot 8: got %v, want %v", got, want)
	}
	// 0.9-era index manifests have no _CARDINALITY: printed as "?".
	wantDV := []dvRow{{"data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet", 1, 22, "?"}}
	if !slices.Equal(p.dvs, wantDV) {
		t.Errorf("DVs: got %v, want %v\n%s", p.dvs, wantDV, out)
	}
	if !strings.Contains(out, "index-ff7801ad-df90-49b2-9619-586eab9c68e3-2") {
		t.Errorf("the empty DV index file of bucket 0 is not listed:\n%s", out)
	}
}

func TestInspectBranches(t *testing.T) {
	table := fixture(t, "append_table_with_append_pt_branch")
	out, err := runInspect(t, table)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	for _, want := range []string{"Schema versions (3)", "Branches (1 besides main)", "Schema 2 (latest, append table", "scan.fallback-branch"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^  test\s+\S+\s+2\s+1$`).MatchString(out) {
		t.Errorf("branch row of 'test' (latest snapshot 2, schema 1) missing:\n%s", out)
	}
	p := parseOutput(t, out)
	checkConsistent(t, table, p, 2)
	for _, f := range p.live {
		if f.path != "pt=1/" || f.bucket != 0 || f.level != 0 {
			t.Errorf("main branch live file %+v, want pt=1/ bucket 0 level 0", f)
		}
	}
	if len(p.live) != 2 {
		t.Errorf("main branch: %d live files, want 2", len(p.live))
	}

	outB, err := runInspect(t, "--branch", "test", table)
	if err != nil {
		t.Fatalf("inspect --branch test: %v\n%s", err, outB)
	}
	pb := parseOutput(t, outB)
	if len(pb.live) != 2 {
		t.Errorf("branch test: %d live files, want 2:\n%s", len(pb.live), outB)
	}
	for _, f := range pb.live {
		if f.path != "pt=2/" {
			t.Errorf("branch test live file %+v, want partition pt=2/", f)
		}
	}
	if _, err := runInspect(t, "--branch", "nope", table); err == nil || !strings.Contains(err.Error(), "branch not found") {
		t.Errorf("unknown branch: err = %v", err)
	}
}

func TestInspectORCManifests(t *testing.T) {
	for _, name := range []string{"append_10", "append_with_empty_partition"} {
		table := fixture(t, name)
		out, err := runInspect(t, table)
		if err == nil {
			t.Fatalf("%s: inspect of a table with ORC manifests succeeded:\n%s", name, out)
		}
		if !strings.Contains(err.Error(), "ORC manifest") || !strings.Contains(err.Error(), "manifest-list-") {
			t.Errorf("%s: error does not name the ORC manifest: %v", name, err)
		}
		// What can be read is still printed.
		p := parseOutput(t, out)
		if len(p.snapshots) == 0 || !strings.Contains(out, "Partition keys:") {
			t.Errorf("%s: schema and snapshots not printed:\n%s", name, out)
		}
		for _, s := range p.snapshots {
			total, _, _ := snapshotJSON(t, table, s.id)
			if s.total != total {
				t.Errorf("%s: snapshot %d total %d, file says %d", name, s.id, s.total, total)
			}
		}
		if !strings.Contains(out, "ERROR: ") {
			t.Errorf("%s: the failed section is not marked in the output:\n%s", name, out)
		}
	}
	// append_with_empty_partition has 6 rows in snapshot 1.
	out, _ := runInspect(t, fixture(t, "append_with_empty_partition"))
	if p := parseOutput(t, out); len(p.snapshots) != 1 || p.snapshots[0].total != 6 {
		t.Errorf("append_with_empty_partition snapshots: %+v", p.snapshots)
	}
}

func TestInspectErrors(t *testing.T) {
	table := fixture(t, "pk_09")
	out, err := runInspect(t, table, "--snapshot", "99")
	if err == nil || !strings.Contains(err.Error(), "--snapshot 99") || !strings.Contains(err.Error(), "snapshot not found") {
		t.Errorf("unknown snapshot: err = %v", err)
	}
	if out != "" {
		t.Errorf("unknown snapshot printed output:\n%s", out)
	}
	if _, err := runInspect(t, table, "--snapshot", "0"); err == nil {
		t.Error("--snapshot 0 accepted")
	}
	if _, err := runInspect(t, table, "--snapshot", "x"); err == nil {
		t.Error("--snapshot x accepted")
	}

	missing := filepath.Join(t.TempDir(), "no_such_table")
	if _, err := runInspect(t, missing); err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing table path: err = %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("inspect created the missing table folder %s", missing)
	}
	if _, err := runInspect(t, "file://"+missing); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file:// table: err = %v", err)
	}
	if _, err := runInspect(t, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a Paimon table") {
		t.Errorf("empty folder: err = %v", err)
	}
	if _, err := runInspect(t); err == nil {
		t.Error("no table path accepted")
	}
	if _, err := runInspect(t, table, table); err == nil {
		t.Error("two table paths accepted")
	}

	// A corrupt snapshot file is named in the error, without a panic.
	dir := t.TempDir()
	copyTree(t, table, dir)
	if err := os.WriteFile(filepath.Join(dir, "snapshot", "snapshot-8"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snapshot", "LATEST"), []byte("7"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runInspect(t, dir)
	if err == nil || !strings.Contains(err.Error(), "snapshot-8") {
		t.Errorf("corrupt snapshot-8: err = %v\n%s", err, out)
	}
	// A truncated manifest list is named as well.
	lists, _ := filepath.Glob(filepath.Join(dir, "manifest", "manifest-list-*"))
	for _, l := range lists {
		if err := os.WriteFile(l, []byte("Obj\x01garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = runInspect(t, dir, "--snapshot", "7")
	if err == nil || !strings.Contains(err.Error(), "manifest-list-") {
		t.Errorf("corrupt manifest list: err = %v", err)
	}
}

// copyTree copies the metadata folders of a fixture table (not the data).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	for _, sub := range []string{"schema", "snapshot", "manifest"} {
		entries, err := os.ReadDir(filepath.Join(src, sub))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(src, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, sub, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestInspectTags(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	copyTree(t, fixture(t, "pk_09"), dir)
	st, err := storage.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s5, err := snapshot.NewSnapshotManager(st, snapshot.MainBranch).Snapshot(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	keep := 90 * time.Minute
	if err := snapshot.NewTagManager(st, snapshot.MainBranch).Create(ctx, "nightly", s5, &keep, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	out, err := runInspect(t, dir)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Tags (1)") || !regexp.MustCompile(`(?m)^  nightly\s+5\s+0\s+\S+\s+14\s+PT1H30M$`).MatchString(out) {
		t.Errorf("tag row missing:\n%s", out)
	}
}
