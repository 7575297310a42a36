package tests_test

// The foundation proof: every metadata file of every Java-written fixture
// table decodes, re-encodes to the same records, and agrees with the data
// files it describes.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// orcManifestTables are the fixtures written with manifest.format=orc.
// Their manifest lists must fail with manifest.ErrORCManifest; every other
// table's must decode. A table that starts failing cannot hide here, and a
// table that starts decoding must be moved out of this list.
var orcManifestTables = map[string]bool{
	"append_09":                                      true,
	"append_10":                                      true,
	"append_table_with_multiple_file_format":         true,
	"append_with_bitmap_multi_stripes":               true,
	"append_with_empty_partition":                    true,
	"append_with_empty_partition_with_empty_value":   true,
	"append_with_empty_partition_with_specific_name": true,
	"blob_data_evolution_with_dense_stats":           true,
	"parquet_append_table":                           true,
	"pk_table_nested_type":                           true,
}

// externalDataTables record data and index files under FILE:/tmp/external,
// which the fixtures hold in <table>.db/external (the C++ tests rewrite the
// prefix the same way).
const externalPrefix = "/tmp/external/"

// systemFields are the row-tracking columns (Java SpecialFields) that
// data-evolution files keep statistics for.
var systemFields = map[string]schema.DataType{
	"_ROW_ID":          schema.AtomicType(schema.TypeBigInt).WithNullable(false),
	"_SEQUENCE_NUMBER": schema.AtomicType(schema.TypeBigInt).WithNullable(false),
}

// metaCounts are the numbers the summary line reports.
type metaCounts struct {
	tables, orcTables, branches, snapshots, schemas    int
	manifestLists, manifests, indexManifests           int
	entries, liveFiles, dvIndexFiles, dvs, dvPositions int
	bucketTables, bucketFiles, keysChecked             int
	skippedAbsent, orcFiles                            int
}

func TestMetadataFoundation(t *testing.T) {
	ctx := context.Background()
	tables := testutil.FixtureTables(t)
	if len(tables) == 0 {
		t.Fatal("no fixture tables")
	}
	for name := range orcManifestTables {
		if _, ok := tables[name]; !ok {
			t.Errorf("orcManifestTables names %s, which is not a fixture table", name)
		}
	}
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)

	var total metaCounts
	for _, name := range names {
		c := &metaCounts{}
		t.Run(name, func(t *testing.T) {
			mc := &metaChecker{t: t, ctx: ctx, name: name, dir: tables[name], orc: orcManifestTables[name], c: c}
			mc.run()
		})
		total.add(c)
	}
	t.Logf("metadata: %d tables (%d with ORC manifests), %d branches, %d snapshots, %d schemas; "+
		"%d manifest lists, %d manifests, %d index manifests decoded and re-encoded; %d manifest entries, %d live files; "+
		"%d DV index files with %d DVs (%d deleted positions); %d fixed-bucket PK tables: %d data files, %d keys re-bucketed; "+
		"%d files skipped (data absent); %d ORC metadata files refused as expected",
		total.tables, total.orcTables, total.branches, total.snapshots, total.schemas,
		total.manifestLists, total.manifests, total.indexManifests, total.entries, total.liveFiles,
		total.dvIndexFiles, total.dvs, total.dvPositions, total.bucketTables, total.bucketFiles, total.keysChecked,
		total.skippedAbsent, total.orcFiles)
	// Floors that catch a check silently turning into a no-op.
	if total.manifests == 0 || total.entries == 0 || total.dvs == 0 || total.keysChecked == 0 || total.bucketTables == 0 {
		t.Errorf("some check ran on nothing: %+v", total)
	}
}

func (c *metaCounts) add(o *metaCounts) {
	c.tables += o.tables
	c.orcTables += o.orcTables
	c.branches += o.branches
	c.snapshots += o.snapshots
	c.schemas += o.schemas
	c.manifestLists += o.manifestLists
	c.manifests += o.manifests
	c.indexManifests += o.indexManifests
	c.entries += o.entries
	c.liveFiles += o.liveFiles
	c.dvIndexFiles += o.dvIndexFiles
	c.dvs += o.dvs
	c.dvPositions += o.dvPositions
	c.bucketTables += o.bucketTables
	c.bucketFiles += o.bucketFiles
	c.keysChecked += o.keysChecked
	c.skippedAbsent += o.skippedAbsent
	c.orcFiles += o.orcFiles
}

type metaChecker struct {
	t    *testing.T
	ctx  context.Context
	name string
	dir  string
	orc  bool
	c    *metaCounts

	st      storage.Storage
	ext     storage.Storage // <table>.db/external
	schemas *snapshot.SchemaManager
	// decoded caches each metadata file by name: they are immutable, so
	// one full check per file suffices however many snapshots share it.
	lists    map[string][]manifest.ManifestFileMeta
	entries  map[string][]manifest.ManifestEntry
	index    map[string][]manifest.IndexManifestEntry
	dvFiles  map[string]bool
	bucketed map[string]bool // data files whose rows were re-bucketed
}

func (m *metaChecker) run() {
	t := m.t
	var err error
	m.st, err = storage.Open(m.ctx, m.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.st.Close()
	if extDir := filepath.Join(filepath.Dir(m.dir), "external"); dirExists(extDir) {
		m.ext, err = storage.Open(m.ctx, extDir)
		if err != nil {
			t.Fatal(err)
		}
		defer m.ext.Close()
	}
	m.lists = map[string][]manifest.ManifestFileMeta{}
	m.entries = map[string][]manifest.ManifestEntry{}
	m.index = map[string][]manifest.IndexManifestEntry{}
	m.dvFiles = map[string]bool{}
	m.bucketed = map[string]bool{}
	m.c.tables++
	if m.orc {
		m.c.orcTables++
	}

	bm := snapshot.NewBranchManager(m.st)
	branches, err := bm.List(m.ctx)
	if err != nil {
		t.Fatalf("list branches: %v", err)
	}
	names := []string{snapshot.MainBranch}
	for _, b := range branches {
		names = append(names, b.Name)
	}
	nSnaps := 0
	for _, b := range names {
		m.c.branches++
		m.schemas = bm.Schemas(b)
		ids, err := m.schemas.List(m.ctx)
		if err != nil || len(ids) == 0 {
			t.Fatalf("branch %s: schemas %v (err %v)", b, ids, err)
		}
		for _, id := range ids {
			if _, err := m.schemas.Schema(m.ctx, id); err != nil {
				t.Errorf("branch %s: %v", b, err)
			}
			m.c.schemas++
		}
		sm := bm.Snapshots(b)
		snaps, err := sm.List(m.ctx)
		if err != nil {
			t.Fatalf("branch %s: list snapshots: %v", b, err)
		}
		for _, id := range snaps {
			s, err := sm.Snapshot(m.ctx, id)
			if err != nil {
				t.Errorf("branch %s: %v", b, err)
				continue
			}
			if s.ID != id {
				t.Errorf("branch %s: %s holds id %d", b, sm.Path(id), s.ID)
			}
			m.c.snapshots++
			nSnaps++
			m.checkSnapshot(b, s)
		}
	}
	if nSnaps == 0 {
		t.Errorf("table has no snapshot")
	}
}

func (m *metaChecker) schema(id int64) *schema.TableSchema {
	s, err := m.schemas.Schema(m.ctx, schema.SchemaID(id))
	if err != nil {
		m.t.Fatalf("schema %d: %v", id, err)
	}
	return s
}

func (m *metaChecker) checkSnapshot(branch string, s *snapshot.Snapshot) {
	t := m.t
	where := fmt.Sprintf("branch %s snapshot %d", branch, s.ID)
	ts := m.schema(int64(s.SchemaID))

	lists := []string{s.BaseManifestList, s.DeltaManifestList}
	if s.ChangelogManifestList != nil {
		lists = append(lists, *s.ChangelogManifestList)
	}
	if m.orc {
		// Every metadata file must be refused as ORC, naming the file.
		if s.IndexManifest != nil {
			lists = append(lists, *s.IndexManifest)
		}
		for _, name := range lists {
			data, err := m.st.ReadAll(m.ctx, manifest.Path(name))
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			var derr error
			if strings.HasPrefix(name, manifest.IndexManifestPrefix) {
				_, derr = manifest.ReadIndexManifest(data, name)
			} else {
				_, derr = manifest.ReadManifestList(data, name)
			}
			if !errors.Is(derr, manifest.ErrORCManifest) || !strings.Contains(derr.Error(), name) {
				t.Errorf("%s: %s of a table listed in orcManifestTables: want an error wrapping ErrORCManifest naming the file, got %v", where, name, derr)
			}
			m.c.orcFiles++
		}
		return
	}
	merger := manifest.NewEntryMerger()
	for i, list := range lists {
		metas, ok := m.manifestList(where, list)
		if !ok {
			return
		}
		for _, meta := range metas {
			entries, ok := m.manifest(where, meta)
			if !ok {
				return
			}
			if i < 2 { // base and delta make the snapshot's files
				for _, e := range entries {
					if err := merger.Add(e); err != nil {
						t.Errorf("%s: merge: %v", where, err)
						return
					}
				}
			}
		}
	}
	live := merger.LiveFiles()
	if n := merger.Len() - len(live); n != 0 {
		t.Errorf("%s: %d DELETE entries match no ADD", where, n)
	}
	m.c.liveFiles += len(live)
	var rows int64
	liveByName := map[string]*manifest.ManifestEntry{}
	for i := range live {
		e := &live[i]
		rows += e.File.RowCount
		liveByName[e.File.FileName] = e
	}
	if rows != s.TotalRecordCount {
		t.Errorf("%s: live files hold %d rows, totalRecordCount is %d", where, rows, s.TotalRecordCount)
	}

	if s.IndexManifest != nil {
		m.checkIndexManifest(where, *s.IndexManifest, ts, liveByName)
	}

	core, err := ts.Options.Core()
	if err != nil {
		t.Fatalf("%s: options: %v", where, err)
	}
	if ts.IsPrimaryKeyTable() && core.Bucket > 0 {
		if m.c.bucketTables == 0 {
			m.c.bucketTables = 1
		}
		for i := range live {
			m.checkBuckets(where, &live[i])
		}
	}
}

// manifestList decodes and re-encodes a manifest list once.
func (m *metaChecker) manifestList(where, name string) ([]manifest.ManifestFileMeta, bool) {
	t := m.t
	if metas, ok := m.lists[name]; ok {
		return metas, true
	}
	data, err := m.st.ReadAll(m.ctx, manifest.Path(name))
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil, false
	}
	metas, err := manifest.ReadManifestList(data, name)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil, false
	}
	m.c.manifestLists++
	re, err := manifest.WriteManifestList(metas)
	if err != nil {
		t.Errorf("%s: write %s: %v", where, name, err)
	} else if back, err := manifest.ReadManifestList(re, name+"(rewritten)"); err != nil {
		t.Errorf("%s: read rewritten %s: %v", where, name, err)
	} else if !reflect.DeepEqual(back, metas) {
		t.Errorf("%s: %s: decode(write(decode(x))) != decode(x):\n got %+v\nwant %+v", where, name, back, metas)
	}
	for _, meta := range metas {
		ps := m.schema(meta.SchemaID)
		m.decodeStats(where+": "+name+" "+meta.FileName+" _PARTITION_STATS", meta.PartitionStats, fieldTypes(ps.PartitionFields()))
	}
	m.lists[name] = metas
	return metas, true
}

// manifest decodes, checks and re-encodes a manifest file once.
func (m *metaChecker) manifest(where string, meta manifest.ManifestFileMeta) ([]manifest.ManifestEntry, bool) {
	t := m.t
	name := meta.FileName
	if entries, ok := m.entries[name]; ok {
		return entries, true
	}
	data, err := m.st.ReadAll(m.ctx, manifest.Path(name))
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil, false
	}
	if int64(len(data)) != meta.FileSize {
		t.Errorf("%s: manifest %s is %d bytes, its list says %d", where, name, len(data), meta.FileSize)
	}
	entries, err := manifest.ReadManifest(data, name)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil, false
	}
	m.c.manifests++
	m.c.entries += len(entries)
	var added, deleted int64
	for i := range entries {
		e := &entries[i]
		if e.Kind == manifest.FileKindAdd {
			added++
		} else {
			deleted++
		}
		m.checkEntry(where+": "+name, e)
	}
	if added != meta.NumAddedFiles || deleted != meta.NumDeletedFiles {
		t.Errorf("%s: manifest %s has %d ADD and %d DELETE entries, its list says %d and %d",
			where, name, added, deleted, meta.NumAddedFiles, meta.NumDeletedFiles)
	}
	re, err := manifest.WriteManifest(entries)
	if err != nil {
		t.Errorf("%s: write %s: %v", where, name, err)
	} else if back, err := manifest.ReadManifest(re, name+"(rewritten)"); err != nil {
		t.Errorf("%s: read rewritten %s: %v", where, name, err)
	} else if !reflect.DeepEqual(back, entries) {
		t.Errorf("%s: %s: decode(write(decode(x))) != decode(x):\n got %+v\nwant %+v", where, name, back, entries)
	}
	m.entries[name] = entries
	return entries, true
}

// checkEntry decodes every BinaryRow of an entry with the types of the
// file's schema.
func (m *metaChecker) checkEntry(where string, e *manifest.ManifestEntry) {
	t := m.t
	f := &e.File
	where = where + ": " + f.FileName
	fs := m.schema(f.SchemaID)
	part := fieldTypes(fs.PartitionFields())
	if _, err := binaryrow.DecodeSerialized(part, e.Partition); err != nil {
		t.Errorf("%s: _PARTITION: %v", where, err)
	}
	keys := fieldTypes(fs.TrimmedPrimaryKeyFields())
	for _, k := range []struct {
		name string
		row  manifest.SerializedRow
	}{{"_MIN_KEY", f.MinKey}, {"_MAX_KEY", f.MaxKey}} {
		if _, err := binaryrow.DecodeSerialized(keys, k.row); err != nil {
			t.Errorf("%s: %s: %v", where, k.name, err)
		}
	}
	if len(keys) > 0 {
		lo, _ := binaryrow.DecodeSerialized(keys, f.MinKey)
		hi, _ := binaryrow.DecodeSerialized(keys, f.MaxKey)
		if lo != nil && hi != nil && compareRows(keys, lo, hi) > 0 {
			t.Errorf("%s: _MIN_KEY %s > _MAX_KEY %s", where, binaryrow.Format(keys, lo), binaryrow.Format(keys, hi))
		}
	}
	if f.MinSequenceNumber > f.MaxSequenceNumber {
		t.Errorf("%s: sequence range %d..%d", where, f.MinSequenceNumber, f.MaxSequenceNumber)
	}
	m.decodeStats(where+" _KEY_STATS", f.KeyStats, keys)

	// Value stats cover _VALUE_STATS_COLS in dense mode, else the columns
	// the file was written with (_WRITE_COLS for data-evolution files),
	// else every column of the file's schema.
	cols := f.ValueStatsCols
	if cols == nil {
		cols = f.WriteCols
	}
	var vals []schema.DataType
	if cols == nil {
		vals = fieldTypes(fs.Fields)
	} else {
		for _, col := range cols {
			if fl, ok := fs.FieldByName(col); ok {
				vals = append(vals, fl.Type)
			} else if ty, ok := systemFields[col]; ok {
				vals = append(vals, ty)
			} else {
				t.Errorf("%s: _VALUE_STATS_COLS %v: no column %s in schema %d", where, cols, col, fs.ID)
				return
			}
		}
	}
	m.decodeStats(where+" _VALUE_STATS", f.ValueStats, vals)
}

// decodeStats decodes a SimpleStats with its column types made nullable.
func (m *metaChecker) decodeStats(where string, s manifest.SimpleStats, types []schema.DataType) {
	t := m.t
	nullable := make([]schema.DataType, len(types))
	for i, ty := range types {
		nullable[i] = ty.WithNullable(true)
	}
	for _, r := range []struct {
		name string
		row  manifest.SerializedRow
	}{{"_MIN_VALUES", s.MinValues}, {"_MAX_VALUES", s.MaxValues}} {
		if _, err := binaryrow.DecodeSerialized(nullable, r.row); err != nil {
			t.Errorf("%s %s: %v", where, r.name, err)
		}
	}
	if s.NullCounts != nil && len(s.NullCounts) != len(types) {
		t.Errorf("%s: %d null counts for %d columns", where, len(s.NullCounts), len(types))
	}
}

// checkIndexManifest decodes and re-encodes an index manifest once per
// name, and every deletion vector of every DV index file it lists.
func (m *metaChecker) checkIndexManifest(where, name string, ts *schema.TableSchema, live map[string]*manifest.ManifestEntry) {
	t := m.t
	entries, ok := m.index[name]
	if !ok {
		data, err := m.st.ReadAll(m.ctx, manifest.Path(name))
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		entries, err = manifest.ReadIndexManifest(data, name)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		m.c.indexManifests++
		re, err := manifest.WriteIndexManifest(entries)
		if err != nil {
			t.Errorf("%s: write %s: %v", where, name, err)
		} else if back, err := manifest.ReadIndexManifest(re, name+"(rewritten)"); err != nil {
			t.Errorf("%s: read rewritten %s: %v", where, name, err)
		} else if !reflect.DeepEqual(back, entries) {
			t.Errorf("%s: %s: decode(write(decode(x))) != decode(x):\n got %+v\nwant %+v", where, name, back, entries)
		}
		m.index[name] = entries
	}
	part := fieldTypes(ts.PartitionFields())
	for _, e := range entries {
		f := &e.IndexFile
		w := fmt.Sprintf("%s: %s: index file %s", where, name, f.FileName)
		if e.Kind != manifest.FileKindAdd {
			t.Errorf("%s: kind %s in a full index listing", w, e.Kind)
		}
		pv, err := binaryrow.DecodeSerialized(part, e.Partition)
		if err != nil {
			t.Errorf("%s: _PARTITION: %v", w, err)
			continue
		}
		if f.IndexType != manifest.IndexTypeDeletionVectors {
			continue
		}
		if int64(len(f.DVRanges)) != f.RowCount {
			t.Errorf("%s: %d ranges, _ROW_COUNT %d", w, len(f.DVRanges), f.RowCount)
		}
		// Every DV of the snapshot belongs to a live data file of the same
		// partition and bucket, and deletes fewer rows than it has.
		for _, r := range f.DVRanges {
			le := live[r.DataFileName]
			if le == nil {
				t.Errorf("%s: DV for %s, which is not live", w, r.DataFileName)
				continue
			}
			if string(le.Partition) != string(e.Partition) || le.Bucket != e.Bucket {
				t.Errorf("%s: DV for %s in bucket %d, file is in bucket %d", w, r.DataFileName, e.Bucket, le.Bucket)
			}
			if r.Cardinality != nil && *r.Cardinality > le.File.RowCount {
				t.Errorf("%s: DV for %s deletes %d of %d rows", w, r.DataFileName, *r.Cardinality, le.File.RowCount)
			}
		}
		if m.dvFiles[f.FileName] {
			continue
		}
		m.dvFiles[f.FileName] = true
		m.checkDVFile(w, f, ts, pv, e.Bucket)
	}
}

func (m *metaChecker) checkDVFile(where string, f *manifest.IndexFileMeta, ts *schema.TableSchema, part []any, bucket manifest.Bucket) {
	t := m.t
	var path string
	inDataDir, err := ts.Options.IndexFileInDataFileDir()
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if inDataDir {
		path = m.bucketPath(ts, part, bucket) + f.FileName
	} else {
		path = dv.IndexFilePath(f.FileName)
	}
	data, err := m.readMaybeExternal(path, f.ExternalPath)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if int64(len(data)) != f.FileSize {
		t.Errorf("%s: %d bytes, _FILE_SIZE %d", where, len(data), f.FileSize)
	}
	ranges := make([]dv.Range, len(f.DVRanges))
	for i, r := range f.DVRanges {
		ranges[i] = dv.Range{FileName: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: dv.CardinalityUnknown}
		if r.Cardinality != nil {
			ranges[i].Cardinality = *r.Cardinality
		}
	}
	dvs, err := dv.ReadAll(data, ranges)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	m.c.dvIndexFiles++
	if len(dvs) != len(ranges) {
		t.Errorf("%s: %d DVs for %d ranges", where, len(dvs), len(ranges))
	}
	for _, r := range f.DVRanges {
		d := dvs[r.DataFileName]
		if d == nil {
			t.Errorf("%s: no DV for %s", where, r.DataFileName)
			continue
		}
		m.c.dvs++
		m.c.dvPositions += int(d.Cardinality())
		if d.IsEmpty() {
			t.Errorf("%s: empty DV for %s", where, r.DataFileName)
		}
		if r.Cardinality != nil && d.Cardinality() != *r.Cardinality {
			t.Errorf("%s: DV for %s has %d positions, _CARDINALITY %d", where, r.DataFileName, d.Cardinality(), *r.Cardinality)
		}
	}
}

// bucketPath is "<partition path><bucket-N>/".
func (m *metaChecker) bucketPath(ts *schema.TableSchema, part []any, bucket manifest.Bucket) string {
	legacy, err := ts.Options.PartitionLegacyName()
	if err != nil {
		m.t.Fatal(err)
	}
	pp, err := schema.PartitionPath(ts.PartitionFields(), part, ts.Options.PartitionDefaultName(), legacy)
	if err != nil {
		m.t.Fatalf("partition path of %v: %v", part, err)
	}
	return pp + lsmread.BucketDir(bucket)
}

// externalRel maps an external path recorded as FILE:/tmp/external/<rel>
// to <rel> inside <table>.db/external; ok is false for other locations.
func (m *metaChecker) externalRel(ext string) (string, bool) {
	for _, scheme := range []string{"FILE:", "file:", "file://"} {
		if rel, ok := strings.CutPrefix(ext, scheme+externalPrefix); ok && m.ext != nil {
			return rel, true
		}
	}
	return "", false
}

func (m *metaChecker) readMaybeExternal(path string, ext *string) ([]byte, error) {
	if ext == nil {
		return m.st.ReadAll(m.ctx, path)
	}
	rel, ok := m.externalRel(*ext)
	if !ok {
		return nil, fmt.Errorf("external path %s is outside the fixture", *ext)
	}
	return m.ext.ReadAll(m.ctx, rel)
}

// checkBuckets reads the bucket-key columns of a live data file of a
// fixed-bucket primary-key table and recomputes every row's bucket.
func (m *metaChecker) checkBuckets(where string, e *manifest.ManifestEntry) {
	t := m.t
	f := &e.File
	if m.bucketed[f.FileName] {
		return
	}
	m.bucketed[f.FileName] = true
	where = where + ": data file " + f.FileName
	fs := m.schema(f.SchemaID)
	part, err := binaryrow.DecodeSerialized(fieldTypes(fs.PartitionFields()), e.Partition)
	if err != nil {
		t.Errorf("%s: _PARTITION: %v", where, err)
		return
	}
	core, err := fs.Options.Core()
	if err != nil {
		t.Fatal(err)
	}
	numBuckets := int(e.TotalBuckets)
	if numBuckets <= 0 {
		numBuckets = core.Bucket
	} else if numBuckets != core.Bucket {
		t.Errorf("%s: _TOTAL_BUCKETS %d, bucket option of schema %d is %d", where, numBuckets, f.SchemaID, core.Bucket)
	}
	if int(e.Bucket) < 0 || int(e.Bucket) >= numBuckets {
		t.Errorf("%s: bucket %d outside 0..%d", where, e.Bucket, numBuckets-1)
		return
	}
	fnType, err := binaryrow.ParseBucketFunctionType(fs.Options[schema.OptBucketFunctionType])
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}

	// Columns: the bucket key, then (to cross-check the file layout) the
	// _KEY_ copies of the trimmed primary key and the partition columns.
	bucketFields, err := fs.ProjectedFields(fs.BucketKeys())
	if err != nil || len(bucketFields) == 0 {
		t.Fatalf("%s: bucket key %v: %v", where, fs.BucketKeys(), err)
	}
	trimmed := fs.TrimmedPrimaryKeyFields()
	partFields := fs.PartitionFields()
	var cols []datafile.Column
	for _, fl := range bucketFields {
		cols = append(cols, datafile.Column{ID: fl.ID, Name: fl.Name, Type: fl.Type})
	}
	for _, fl := range trimmed {
		cols = append(cols, datafile.Column{ID: datafile.KeyFieldID(fl.ID), Name: datafile.KeyFieldPrefix + fl.Name, Type: fl.Type})
	}
	for _, fl := range trimmed {
		cols = append(cols, datafile.Column{ID: fl.ID, Name: fl.Name, Type: fl.Type})
	}
	for _, fl := range partFields {
		cols = append(cols, datafile.Column{ID: fl.ID, Name: fl.Name, Type: fl.Type})
	}
	nb, nk := len(bucketFields), len(trimmed)

	path := m.bucketPath(fs, part, e.Bucket) + f.FileName
	var file storage.File
	if f.ExternalPath != nil {
		rel, ok := m.externalRel(*f.ExternalPath)
		if !ok {
			t.Errorf("%s: external path %s is outside the fixture", where, *f.ExternalPath)
			return
		}
		if !strings.HasSuffix(rel, path) {
			t.Errorf("%s: external path %s does not end in %s", where, *f.ExternalPath, path)
		}
		file, err = m.ext.Open(m.ctx, rel)
	} else {
		file, err = m.st.Open(m.ctx, path)
	}
	if errors.Is(err, storage.ErrNotExist) {
		// The fixtures hold every referenced data file; an absent one is
		// counted and reported by the summary floor check below.
		m.c.skippedAbsent++
		t.Errorf("%s: data file absent at %s (bucket folder of manifest bucket %d)", where, path, e.Bucket)
		return
	}
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	defer file.Close()
	r, err := datafile.OpenFile(datafile.FormatOf(f.FileName), file, cols, datafile.ReadOptions{})
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	defer r.Close()
	if r.NumRows() != f.RowCount {
		t.Errorf("%s: %d rows in the file, _ROW_COUNT %d", where, r.NumRows(), f.RowCount)
	}
	keyTypes := fieldTypes(bucketFields)
	idx := make([]int, nb)
	for i := range idx {
		idx[i] = i
	}
	bucketer, err := binaryrow.NewBucketer(keyTypes, idx, numBuckets, fnType)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	m.c.bucketFiles++
	rows := make([][]any, 64)
	var n int64
	for {
		k, err := r.Next(rows)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("%s: row %d: %v", where, n, err)
			return
		}
		for _, row := range rows[:k] {
			b, err := bucketer.BucketOfKey(row[:nb])
			if err != nil {
				t.Errorf("%s: row %d: bucket of %v: %v", where, n, row[:nb], err)
				return
			}
			if b != int(e.Bucket) {
				t.Errorf("%s: row %d: key %s hashes to bucket %d, file is in bucket %d",
					where, n, binaryrow.Format(keyTypes, row[:nb]), b, e.Bucket)
				return
			}
			keyCopy, keyVal := row[nb:nb+nk], row[nb+nk:nb+2*nk]
			for i := range keyCopy {
				if !schema.Equal(&trimmed[i].Type, keyCopy[i], keyVal[i]) {
					t.Errorf("%s: row %d: _KEY_%s = %v, value column = %v", where, n, trimmed[i].Name, keyCopy[i], keyVal[i])
				}
			}
			for i, pv := range row[nb+2*nk:] {
				if !schema.Equal(&partFields[i].Type, pv, part[i]) {
					t.Errorf("%s: row %d: partition column %s = %v, manifest partition %v", where, n, partFields[i].Name, pv, part[i])
				}
			}
			n++
			m.c.keysChecked++
		}
	}
	if n != f.RowCount {
		t.Errorf("%s: read %d rows, _ROW_COUNT %d", where, n, f.RowCount)
	}
}

func fieldTypes(fields []schema.DataField) []schema.DataType {
	out := make([]schema.DataType, len(fields))
	for i, f := range fields {
		out[i] = f.Type
	}
	return out
}

func compareRows(types []schema.DataType, a, b []any) int {
	for i := range types {
		if c := schema.Compare(&types[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
