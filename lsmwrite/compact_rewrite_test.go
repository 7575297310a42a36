package lsmwrite_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// compactionRuns records what Compact reported to internal/metrics.
type compactionRuns struct{ runs []metrics.CompactionRun }

func (c *compactionRuns) CompactionDone(r metrics.CompactionRun) { c.runs = append(c.runs, r) }

// check: a compaction that committed, conflicted or failed is reported
// once, with the outcome's figures; one that found nothing is not.
func (c *compactionRuns) check(t *testing.T, out *lsmwrite.CompactOutcome, err error) {
	t.Helper()
	did := err != nil || out != nil && (out.Snapshot != nil || out.Conflict != nil)
	if !did {
		if len(c.runs) != 0 {
			t.Errorf("a compaction with nothing to do was reported: %+v", c.runs)
		}
		return
	}
	if len(c.runs) != 1 {
		t.Fatalf("%d compaction reports, want 1", len(c.runs))
	}
	r := c.runs[0]
	if (r.Err != nil) != (err != nil || out.Conflict != nil) {
		t.Errorf("reported error %v for outcome %v / %v", r.Err, out, err)
	}
	if err == nil && out.Snapshot != nil && (r.Snapshot != int64(out.Snapshot.ID) || r.BytesIn != out.Stats.BytesRead ||
		r.BytesOut != out.Stats.BytesWritten || r.InputFiles != out.Stats.FilesBefore || r.OutputFiles != out.Stats.FilesAfter) {
		t.Errorf("reported %+v for stats %+v snapshot %d", r, out.Stats, out.Snapshot.ID)
	}
}

// rewriteEnv is the state of one testdata/compaction_rewrite script.
type rewriteEnv struct {
	st    storage.Storage
	sch   *schema.TableSchema
	tbl   *snapshot.Table
	names map[string]string // data file name → short name
	outs  int
	now   time.Time
}

// TestCompactionRewrite runs testdata/compaction_rewrite: files in, files
// out. Commands:
//
//	table cols=k:int,v:string pk=k [option=value ...]
//	    a new, empty, unpartitioned table (bucket=1 unless given)
//	file name=f1 level=2
//	    one data file on a level, committed; input lines
//	    "<key> <seq> <kind> <value columns...>" in key order ("null" is NULL;
//	    the key columns are repeated in the values)
//	compact [full] [option=value ...]
//	    lsmwrite.Compact; prints the COMPACT commit (DELETE/ADD entries)
//	    and the records of every new file
//	live
//	    the live files
func TestCompactionRewrite(t *testing.T) {
	var env *rewriteEnv
	ctx := context.Background()
	datadriven.RunTest(t, "testdata/compaction_rewrite", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "table":
			env = newRewriteEnv(t, d)
			return "ok"
		case "file":
			return env.file(ctx, t, d)
		case "compact":
			return env.compact(ctx, t, d)
		case "live":
			return env.live(ctx, t)
		}
		d.Fatalf(t, "unknown command %s", d.Cmd)
		return ""
	})
}

func newRewriteEnv(t *testing.T, d *datadriven.TestData) *rewriteEnv {
	ctx := context.Background()
	st := memStorage(t)
	ts := &schema.TableSchema{Version: schema.SchemaVersionCurrent, Options: map[string]string{"bucket": "1"}}
	var pk []string
	for _, a := range d.CmdArgs {
		val := strings.Join(a.Vals, ",")
		switch a.Key {
		case "cols":
			for i, c := range strings.Split(val, ",") {
				name, typ, _ := strings.Cut(c, ":")
				ts.Fields = append(ts.Fields, schema.DataField{ID: i, Name: name, Type: parseTestType(t, d, typ)})
				ts.HighestFieldID = i
			}
		case "pk":
			pk = strings.Split(val, ",")
		default:
			ts.Options[a.Key] = val
		}
	}
	ts.PrimaryKeys = pk
	for i := range ts.Fields {
		for _, k := range pk {
			if ts.Fields[i].Name == k {
				ts.Fields[i].Type = ts.Fields[i].Type.WithNullable(false)
			}
		}
	}
	if err := snapshot.NewSchemaManager(st, "").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	return &rewriteEnv{st: st, sch: ts, tbl: snapshot.OpenTable(st, ""), names: map[string]string{},
		now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func parseTestType(t *testing.T, d *datadriven.TestData, s string) schema.DataType {
	switch s {
	case "int":
		return schema.AtomicType(schema.TypeInt)
	case "bigint":
		return schema.AtomicType(schema.TypeBigInt)
	case "string":
		return schema.StringType()
	case "double":
		return schema.AtomicType(schema.TypeDouble)
	}
	d.Fatalf(t, "unknown type %s", s)
	return schema.DataType{}
}

func (e *rewriteEnv) parseValue(t *testing.T, d *datadriven.TestData, f schema.DataField, s string) any {
	if s == "null" {
		return nil
	}
	switch f.Type.Root {
	case schema.TypeInt:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			d.Fatalf(t, "bad int %q", s)
		}
		return int32(n)
	case schema.TypeBigInt:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			d.Fatalf(t, "bad bigint %q", s)
		}
		return n
	case schema.TypeDouble:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			d.Fatalf(t, "bad double %q", s)
		}
		return x
	}
	return s
}

var testKinds = map[string]kv.RowKind{"+I": kv.Insert, "-U": kv.UpdateBefore, "+U": kv.UpdateAfter, "-D": kv.Delete}

func (e *rewriteEnv) file(ctx context.Context, t *testing.T, d *datadriven.TestData) string {
	var name string
	level := 0
	d.ScanArgs(t, "name", &name)
	if d.HasArg("level") {
		d.ScanArgs(t, "level", &level)
	}
	keyIdx := e.sch.Projection(e.sch.TrimmedPrimaryKeys())
	var recs []kv.KeyValue
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		tok := strings.Fields(line)
		if len(tok) != 3+len(e.sch.Fields) {
			d.Fatalf(t, "record %q: want <key> <seq> <kind> and %d values", line, len(e.sch.Fields))
		}
		seq, err := strconv.ParseInt(tok[1], 10, 64)
		if err != nil {
			d.Fatalf(t, "bad seq %q", tok[1])
		}
		kind, ok := testKinds[tok[2]]
		if !ok {
			d.Fatalf(t, "bad kind %q", tok[2])
		}
		val := make([]any, len(e.sch.Fields))
		for i, f := range e.sch.Fields {
			val[i] = e.parseValue(t, d, f, tok[3+i])
		}
		key := make([]any, len(keyIdx))
		for i, j := range keyIdx {
			key[i] = val[j]
		}
		recs = append(recs, kv.KeyValue{Key: key, Seq: kv.SeqNum(seq), Kind: kind, Value: val, Level: -1})
	}
	meta, err := lsmwrite.WriteTestFile(ctx, e.st, e.sch, 0, level, name, recs, func() time.Time { return e.now })
	if err != nil {
		d.Fatalf(t, "write: %v", err)
	}
	e.names[meta.FileName] = name
	core, _ := e.sch.Options.Core()
	_, err = snapshot.NewCommitter(e.st, snapshot.CommitOptions{PartitionTypes: []schema.DataType{}, Now: func() time.Time { return e.now }}).
		Commit(ctx, e.sch.ID, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "test",
			CommitIdentifier: snapshot.BatchCommitIdentifier,
			Entries:          []manifest.ManifestEntry{{Kind: manifest.FileKindAdd, Partition: manifest.SerializedRow(binaryrow.EmptySerialized), Bucket: 0, TotalBuckets: int32(core.Bucket), File: meta}}})
	if err != nil {
		d.Fatalf(t, "commit: %v", err)
	}
	return e.describe(t, &meta)
}

func (e *rewriteEnv) short(name string) string {
	if s, ok := e.names[name]; ok {
		return s
	}
	e.outs++
	s := fmt.Sprintf("out%d", e.outs)
	e.names[name] = s
	return s
}

func (e *rewriteEnv) keyTypes() []schema.DataType {
	var types []schema.DataType
	for _, f := range e.sch.TrimmedPrimaryKeyFields() {
		types = append(types, f.Type)
	}
	return types
}

func (e *rewriteEnv) describe(t *testing.T, f *manifest.DataFileMeta) string {
	mn, err := binaryrow.DecodeSerialized(e.keyTypes(), f.MinKey)
	if err != nil {
		t.Fatal(err)
	}
	mx, err := binaryrow.DecodeSerialized(e.keyTypes(), f.MaxKey)
	if err != nil {
		t.Fatal(err)
	}
	del := "?"
	if f.DeleteRowCount != nil {
		del = strconv.FormatInt(*f.DeleteRowCount, 10)
	}
	src := "?"
	if f.FileSource != nil {
		src = f.FileSource.String()
	}
	return fmt.Sprintf("%s L%d seq=%d..%d rows=%d deletes=%s keys=%v..%v source=%s schema=%d",
		e.short(f.FileName), f.Level, f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount, del, mn, mx, src, f.SchemaID)
}

func (e *rewriteEnv) records(ctx context.Context, t *testing.T, f *manifest.DataFileMeta) string {
	keyIdx := e.sch.Projection(e.sch.TrimmedPrimaryKeys())
	r := sortedrun.NewReader(sortedrun.Source{Store: e.st, Schemas: snapshot.NewSchemaManager(e.st, "")}, e.sch.Fields, nil, keyIdx, time.UTC)
	rd, err := r.OpenKeyValues(ctx, &sortedrun.File{Name: f.FileName, Dir: "bucket-0/", SchemaID: f.SchemaID, Level: int(f.Level)})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var b strings.Builder
	for {
		rec, ok, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		vals := make([]string, len(rec.Value))
		for i, v := range rec.Value {
			if v == nil {
				vals[i] = "null"
			} else {
				vals[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintf(&b, "  %v %d %v %s\n", rec.Key, rec.Seq, rec.Kind, strings.Join(vals, " "))
	}
	return b.String()
}

func (e *rewriteEnv) compact(ctx context.Context, t *testing.T, d *datadriven.TestData) string {
	req := lsmwrite.CompactRequest{CommitUser: "compactor", Now: func() time.Time { return e.now }, Options: map[string]string{}}
	quiet := false
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "full":
			req.Full = true
			continue
		case "quiet":
			quiet = true
			continue
		}
		req.Options[a.Key] = strings.Join(a.Vals, ",")
	}
	runs := &compactionRuns{}
	remove := metrics.AddCompactionObserver(runs)
	before := map[string]uint64{}
	for _, k := range []string{"full", "minor", "append"} {
		before[k] = metrics.CompactionsTotal.With(k).Load()
	}
	out, err := lsmwrite.Compact(ctx, e.tbl, req)
	remove()
	runs.check(t, out, err)
	if err == nil && out.Snapshot != nil && len(runs.runs) == 1 {
		kind := runs.runs[0].Kind
		if n := metrics.CompactionsTotal.With(kind).Load() - before[kind]; n != 1 {
			t.Errorf("lakesql_compactions_total{kind=%q} moved by %d for one committed compaction", kind, n)
		}
	}
	if err != nil {
		return "error: " + err.Error()
	}
	if out.Conflict != nil {
		return "conflict: " + out.Conflict.Error()
	}
	if out.Snapshot == nil {
		return "nothing to compact"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot %d %v\n", out.Snapshot.ID, out.Snapshot.CommitKind)
	entries := deltaEntries(ctx, t, e.st, out.Snapshot)
	var added []manifest.DataFileMeta
	for _, en := range entries {
		fmt.Fprintf(&b, "%v %s\n", en.Kind, e.describe(t, &en.File))
		if en.Kind == manifest.FileKindAdd && en.File.FileSource != nil && *en.File.FileSource == manifest.FileSourceCompact && e.names[en.File.FileName][:3] == "out" {
			added = append(added, en.File)
		}
	}
	for i := range added {
		if quiet {
			break
		}
		fmt.Fprintf(&b, "%s:\n%s", e.short(added[i].FileName), e.records(ctx, t, &added[i]))
	}
	if out.Snapshot.ChangelogManifestList != nil {
		// The changelog files of the commit (changelog-producer =
		// full-compaction or lookup), with their records.
		for _, en := range listEntries(ctx, t, e.st, *out.Snapshot.ChangelogManifestList) {
			if !strings.HasPrefix(en.File.FileName, "changelog-") {
				t.Errorf("changelog file %s is not named changelog-*", en.File.FileName)
			}
			fmt.Fprintf(&b, "CHANGELOG %v %s\n%s", en.Kind, e.describe(t, &en.File), e.records(ctx, t, &en.File))
		}
		fmt.Fprintf(&b, "changelog records: %d\n", *out.Snapshot.ChangelogRecordCount)
	}
	fmt.Fprintf(&b, "stats: buckets=%d before=%d after=%d upgraded=%d rows-read=%d rows-written=%d\n",
		out.Stats.Buckets, out.Stats.FilesBefore, out.Stats.FilesAfter, out.Stats.Upgraded, out.Stats.RowsRead, out.Stats.RowsWritten)
	return b.String()
}

// deltaEntries reads the entries a snapshot's delta manifests hold.
func deltaEntries(ctx context.Context, t *testing.T, st storage.Storage, s *snapshot.Snapshot) []manifest.ManifestEntry {
	return listEntries(ctx, t, st, s.DeltaManifestList)
}

// listEntries reads the entries of the manifests of a manifest list.
func listEntries(ctx context.Context, t *testing.T, st storage.Storage, list string) []manifest.ManifestEntry {
	metas, err := snapshot.CachedManifestList(ctx, st, list)
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest.ManifestEntry
	for _, m := range metas {
		es, err := snapshot.CachedManifest(ctx, st, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, es...)
	}
	return out
}

func (e *rewriteEnv) live(ctx context.Context, t *testing.T) string {
	s, err := e.tbl.Snapshots().Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := e.tbl.Scan(ctx, s, snapshot.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := range live {
		lines = append(lines, e.describe(t, &live[i].File))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
