package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The system tables over a snapshot's manifests: $files, $manifests,
// $partitions, $buckets and $table_indexes. They describe the snapshot named
// by AS OF (latest by default), with that snapshot's schema.

// sysSnapView is the snapshot a manifest-based system table describes.
type sysSnapView struct {
	st     storage.Storage // table root
	snap   *snapshot.Snapshot
	sch    *schema.TableSchema
	core   *schema.CoreOptions
	parts  []schema.DataField
	ptypes []schema.DataType
	pcache map[string][]any
}

// checkAsOf resolves an AS OF snapshot when the table is looked up, so that a
// missing snapshot or tag fails there, as for data tables.
func (e *sysTableEnv) checkAsOf() error {
	if e.tt == (lsmread.TimeTravel{}) {
		return nil
	}
	if _, err := e.lt.ResolveSnapshot(e.ctx, e.tt); err != nil {
		return mapError(fmt.Errorf("table %s: %w", e.name, err))
	}
	return nil
}

func (e *sysTableEnv) sysSnapView(ctx context.Context) (*sysSnapView, error) {
	snap, err := e.lt.ResolveSnapshot(ctx, e.tt)
	if err != nil {
		return nil, err
	}
	var sch *schema.TableSchema
	if snap != nil && e.tt != (lsmread.TimeTravel{}) {
		sch, err = e.lt.Schemas().Schema(ctx, snap.SchemaID)
	} else {
		sch, err = e.lt.LatestSchema(ctx)
	}
	if err != nil {
		return nil, err
	}
	core, err := sch.Options.Core()
	if err != nil {
		return nil, err
	}
	parts := sch.PartitionFields()
	return &sysSnapView{st: e.lt.Storage(), snap: snap, sch: sch, core: core, parts: parts,
		ptypes: sysFieldTypes(parts), pcache: map[string][]any{}}, nil
}

// partition decodes a partition row (cached).
func (v *sysSnapView) partition(row manifest.SerializedRow) ([]any, error) {
	if vals, ok := v.pcache[string(row)]; ok {
		return vals, nil
	}
	vals, _, err := binaryrow.DecodeSerializedPrefix(v.ptypes, row)
	if err != nil {
		return nil, fmt.Errorf("partition: %w", err)
	}
	v.pcache[string(row)] = vals
	return vals, nil
}

// manifestMetas returns the manifests of the snapshot: those of the base
// manifest list, then of the delta list (ManifestList.readAllManifests).
func (v *sysSnapView) manifestMetas(ctx context.Context) ([]manifest.ManifestFileMeta, error) {
	if v.snap == nil {
		return nil, nil
	}
	var metas []manifest.ManifestFileMeta
	for _, list := range []string{v.snap.BaseManifestList, v.snap.DeltaManifestList} {
		ms, err := snapshot.CachedManifestList(ctx, v.st, list)
		if err != nil {
			return nil, err
		}
		metas = append(metas, ms...)
	}
	return metas, nil
}

// liveFiles returns the ADD entries live in the snapshot, every level
// included.
func (v *sysSnapView) liveFiles(ctx context.Context) ([]manifest.ManifestEntry, error) {
	if v.snap == nil {
		return nil, nil
	}
	live, _, err := snapshot.Scan(ctx, v.st, v.snap, snapshot.ScanOptions{}) // the shared live-files scan
	return live, err
}

// javaTableLocation is the table root as Java's Path prints it
// ("file:/abs/dir", "s3://bucket/prefix"), without URL options.
func javaTableLocation(st storage.Storage) string {
	u := st.URL()
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	if rest, ok := strings.CutPrefix(u, "file:///"); ok {
		u = "file:/" + rest
	}
	return strings.TrimSuffix(u, "/")
}

// sysFileEntry is a live file with its decoded partition.
type sysFileEntry struct {
	e     *manifest.ManifestEntry
	vals  []any
	ppath string // partition folder with trailing '/'
}

// sortedFiles decodes the partitions of the live files and orders them by
// partition folder, then bucket (files of a bucket keep manifest order).
func (v *sysSnapView) sortedFiles(ctx context.Context) ([]sysFileEntry, error) {
	live, err := v.liveFiles(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]sysFileEntry, len(live))
	paths := map[string]string{}
	for i := range live {
		e := &live[i]
		vals, err := v.partition(e.Partition)
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", e.File.FileName, err)
		}
		pp, ok := paths[string(e.Partition)]
		if !ok {
			pp, err = schema.PartitionPath(v.parts, vals, v.core.PartitionDefaultName, v.core.PartitionLegacyName)
			if err != nil {
				return nil, err
			}
			paths[string(e.Partition)] = pp
		}
		out[i] = sysFileEntry{e: e, vals: vals, ppath: pp}
	}
	slices.SortStableFunc(out, func(a, b sysFileEntry) int {
		return cmp.Or(strings.Compare(a.ppath, b.ppath), cmp.Compare(a.e.Bucket, b.e.Bucket))
	})
	return out, nil
}

// newFilesTable mirrors FilesTable: one row per live data file of the
// snapshot, all levels.
func newFilesTable(e *sysTableEnv) (*sysTable, error) {
	if err := e.checkAsOf(); err != nil {
		return nil, err
	}
	cols := []sysColumn{
		{"partition", sysNullable(pString)},
		{"bucket", sysNotNull(pInt)},
		{"file_path", sysNotNull(pString)},
		{"file_format", sysNotNull(pString)},
		{"schema_id", sysNotNull(pBigInt)},
		{"level", sysNotNull(pInt)},
		{"record_count", sysNotNull(pBigInt)},
		{"file_size_in_bytes", sysNotNull(pBigInt)},
		{"min_key", sysNullable(pString)},
		{"max_key", sysNullable(pString)},
		{"null_value_counts", sysNotNull(pString)},
		{"min_value_stats", sysNotNull(pString)},
		{"max_value_stats", sysNotNull(pString)},
		{"min_sequence_number", sysNullable(pBigInt)},
		{"max_sequence_number", sysNullable(pBigInt)},
		{"creation_time", sysNullable(pTimestamp)},
		{"deleteRowCount", sysNullable(pBigInt)},
		{"file_source", sysNullable(pString)},
		{"first_row_id", sysNullable(pBigInt)},
		{"write_cols", sysNullable(sysWriteColsType)},
	}
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		v, err := e.sysSnapView(ctx)
		if err != nil {
			return nil, err
		}
		files, err := v.sortedFiles(ctx)
		if err != nil {
			return nil, err
		}
		fb := &sysFileRowBuilder{v: v, schemas: e.lt.Schemas(), location: javaTableLocation(v.st),
			stats: lsmread.NewStatsEvolution(v.sch, e.lt.Schemas().Schema)}
		rows := make([]sql.Row, 0, len(files))
		for _, f := range files {
			r, err := fb.row(ctx, f)
			if err != nil {
				return nil, fmt.Errorf("file %s: %w", f.e.File.FileName, err)
			}
			rows = append(rows, r)
		}
		return rows, nil
	})
}

var sysWriteColsType = schema.ArrayType(schema.StringType())

type sysFileRowBuilder struct {
	v        *sysSnapView
	schemas  *snapshot.SchemaManager
	stats    *lsmread.StatsEvolution
	location string
	pstrings map[string]string
}

func (b *sysFileRowBuilder) row(ctx context.Context, fe sysFileEntry) (sql.Row, error) {
	e, f := fe.e, &fe.e.File
	if b.pstrings == nil {
		b.pstrings = map[string]string{}
	}
	part, ok := b.pstrings[string(e.Partition)]
	if !ok {
		var err error
		if part, err = partitionRowString(b.v.parts, fe.vals); err != nil {
			return nil, err
		}
		b.pstrings[string(e.Partition)] = part
	}
	path := b.location + "/" + fe.ppath + lsmread.BucketDir(e.Bucket) + f.FileName // BucketDir ends in /
	if f.ExternalPath != nil {
		path = *f.ExternalPath
	}
	format := ""
	if i := strings.LastIndexByte(f.FileName, '.'); i >= 0 {
		format = f.FileName[i+1:]
	}
	fileSch, err := b.schemas.Schema(ctx, schema.SchemaID(f.SchemaID))
	if err != nil {
		return nil, err
	}
	minKey, err := fileKeyString(fileSch, f.MinKey)
	if err != nil {
		return nil, fmt.Errorf("min key: %w", err)
	}
	maxKey, err := fileKeyString(fileSch, f.MaxKey)
	if err != nil {
		return nil, fmt.Errorf("max key: %w", err)
	}
	nulls, mins, maxs, err := valueStatsStrings(ctx, b.stats, b.v.sch, f)
	if err != nil {
		return nil, fmt.Errorf("value stats: %w", err)
	}
	var created, source, writeCols any
	if f.CreationTime != nil {
		// A wall clock stored as if it were UTC (Java LocalDateTime).
		created = time.UnixMilli(*f.CreationTime).UTC()
	}
	if f.FileSource != nil {
		source = f.FileSource.String()
	}
	if f.WriteCols != nil {
		a := make([]any, len(f.WriteCols))
		for i, c := range f.WriteCols {
			a[i] = c
		}
		if writeCols, err = toSQL(&sysWriteColsType, a); err != nil {
			return nil, err
		}
	}
	return sql.Row{
		part, int32(e.Bucket), path, format, f.SchemaID, int32(f.Level), f.RowCount, f.FileSize,
		minKey, maxKey, nulls, mins, maxs, f.MinSequenceNumber, f.MaxSequenceNumber,
		created, sysOptInt64(f.DeleteRowCount), source, sysOptInt64(f.FirstRowID), writeCols,
	}, nil
}

// keyString renders _MIN_KEY/_MAX_KEY as FilesTable does:
// Arrays.toString of the key's values ("[1, abc]"), NULL for an empty key
// (append tables). Keys are typed by the file's schema: its trimmed primary
// key, or all its fields when it has none.
func fileKeyString(fileSch *schema.TableSchema, key manifest.SerializedRow) (any, error) {
	if len(key) < 4 || key[0]|key[1]|key[2]|key[3] == 0 {
		return nil, nil // arity 0
	}
	fields := fileSch.TrimmedPrimaryKeyFields()
	if len(fields) == 0 {
		fields = fileSch.Fields
	}
	vals, arity, err := binaryrow.DecodeSerializedPrefix(sysFieldTypes(fields), key)
	if err != nil {
		return nil, err
	}
	if arity <= 0 {
		return nil, nil
	}
	var sb strings.Builder
	sb.WriteByte('[')
	for i, v := range vals[:arity] {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(sysJavaString(&fields[i].Type, v))
	}
	sb.WriteByte(']')
	return sb.String(), nil
}

// sysColStat is one column's value statistics in $files.
type sysColStat struct {
	name     string
	typ      *schema.DataType
	null     *int64
	min, max any
}

// valueStatsStrings renders a file's value statistics as FilesTable does
// (SimpleStatsEvolution — lsmread.StatsEvolution, with casts — then a
// TreeMap by column name printed with toString): "{a=0, b=1}" for null
// counts, min and max values. A file of the table's schema shows the
// columns its statistics hold (every field for dense statistics); a file of
// an older schema shows every table column, evolved by field id.
func valueStatsStrings(ctx context.Context, ev *lsmread.StatsEvolution, tableSch *schema.TableSchema, f *manifest.DataFileMeta) (nulls, mins, maxs string, err error) {
	st, err := ev.Evolve(ctx, f, true)
	if err != nil {
		return "", "", "", err
	}
	n := len(tableSch.Fields)
	if st.FileSchema.ID == tableSch.ID {
		n = st.Arity
		if f.ValueStatsCols != nil {
			n = len(st.FileSchema.Fields)
		}
		n = min(n, len(tableSch.Fields))
	}
	stats := make([]sysColStat, n)
	for i := range stats {
		tf, fs := &tableSch.Fields[i], &st.Fields[i]
		stats[i] = sysColStat{name: tf.Name, typ: &tf.Type, null: fs.NullCount, min: fs.Min, max: fs.Max}
	}
	slices.SortFunc(stats, func(a, b sysColStat) int { return strings.Compare(a.name, b.name) })
	var nb, lb, ub strings.Builder
	for _, b := range []*strings.Builder{&nb, &lb, &ub} {
		b.WriteByte('{')
	}
	for i, s := range stats {
		if i > 0 {
			nb.WriteString(", ")
			lb.WriteString(", ")
			ub.WriteString(", ")
		}
		nb.WriteString(s.name + "=")
		if s.null == nil {
			nb.WriteString("null")
		} else {
			nb.WriteString(strconv.FormatInt(*s.null, 10))
		}
		lb.WriteString(s.name + "=" + sysJavaString(s.typ, s.min))
		ub.WriteString(s.name + "=" + sysJavaString(s.typ, s.max))
	}
	for _, b := range []*strings.Builder{&nb, &lb, &ub} {
		b.WriteByte('}')
	}
	return nb.String(), lb.String(), ub.String(), nil
}

// newManifestsTable mirrors ManifestsTable: the manifests of the snapshot's
// base and delta manifest lists.
func newManifestsTable(e *sysTableEnv) (*sysTable, error) {
	if err := e.checkAsOf(); err != nil {
		return nil, err
	}
	cols := []sysColumn{
		{"file_name", sysNotNull(pString)},
		{"file_size", sysNotNull(pBigInt)},
		{"num_added_files", sysNotNull(pBigInt)},
		{"num_deleted_files", sysNotNull(pBigInt)},
		{"schema_id", sysNotNull(pBigInt)},
		{"min_partition_stats", sysNullable(pString)},
		{"max_partition_stats", sysNullable(pString)},
	}
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		v, err := e.sysSnapView(ctx)
		if err != nil {
			return nil, err
		}
		metas, err := v.manifestMetas(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, 0, len(metas))
		for _, m := range metas {
			minP, err := v.partitionStatString(m.PartitionStats.MinValues)
			if err != nil {
				return nil, fmt.Errorf("manifest %s: %w", m.FileName, err)
			}
			maxP, err := v.partitionStatString(m.PartitionStats.MaxValues)
			if err != nil {
				return nil, fmt.Errorf("manifest %s: %w", m.FileName, err)
			}
			rows = append(rows, sql.Row{m.FileName, m.FileSize, m.NumAddedFiles, m.NumDeletedFiles, m.SchemaID, minP, maxP})
		}
		return rows, nil
	})
}

func (v *sysSnapView) partitionStatString(row manifest.SerializedRow) (any, error) {
	if row == nil {
		return nil, nil
	}
	vals, err := v.partition(row)
	if err != nil {
		return nil, err
	}
	return partitionRowString(v.parts, vals)
}

// sysFileAgg sums the live files of a partition or bucket.
type sysFileAgg struct {
	part       string
	bucket     int32
	records    int64
	bytes      int64
	files      int64
	lastUpdate *int64 // newest creation time (a stored wall clock)
}

func (a *sysFileAgg) add(f *manifest.DataFileMeta) {
	a.records += f.RowCount
	a.bytes += f.FileSize
	a.files++
	if f.CreationTime != nil && (a.lastUpdate == nil || *f.CreationTime > *a.lastUpdate) {
		ct := *f.CreationTime
		a.lastUpdate = &ct
	}
}

func (a *sysFileAgg) lastUpdateValue() any {
	if a.lastUpdate == nil {
		return nil
	}
	return time.UnixMilli(*a.lastUpdate).UTC()
}

var sysAggCols = []sysColumn{
	{"record_count", sysNotNull(pBigInt)},
	{"file_size_in_bytes", sysNotNull(pBigInt)},
	{"file_count", sysNotNull(pBigInt)},
	{"last_update_time", sysNullable(pTimestamp)},
}

// newPartitionsTable mirrors PartitionsTable (listing partition entries from
// the manifests, every level): one row per partition, "k1=v1/k2=v2", sorted
// by that string.
func newPartitionsTable(e *sysTableEnv) (*sysTable, error) {
	if err := e.checkAsOf(); err != nil {
		return nil, err
	}
	cols := append([]sysColumn{{"partition", sysNullable(pString)}}, sysAggCols...)
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		v, err := e.sysSnapView(ctx)
		if err != nil {
			return nil, err
		}
		live, err := v.liveFiles(ctx)
		if err != nil {
			return nil, err
		}
		byPart := map[string]*sysFileAgg{}
		for i := range live {
			le := &live[i]
			a, ok := byPart[string(le.Partition)]
			if !ok {
				vals, err := v.partition(le.Partition)
				if err != nil {
					return nil, err
				}
				s, err := partitionSpecString(v.parts, vals, v.core.PartitionDefaultName)
				if err != nil {
					return nil, err
				}
				a = &sysFileAgg{part: s}
				byPart[string(le.Partition)] = a
			}
			a.add(&le.File)
		}
		aggs := make([]*sysFileAgg, 0, len(byPart))
		for _, a := range byPart {
			aggs = append(aggs, a)
		}
		slices.SortFunc(aggs, func(x, y *sysFileAgg) int { return strings.Compare(x.part, y.part) })
		rows := make([]sql.Row, len(aggs))
		for i, a := range aggs {
			rows[i] = sql.Row{a.part, a.records, a.bytes, a.files, a.lastUpdateValue()}
		}
		return rows, nil
	})
}

// newBucketsTable: one row per (partition, bucket) with live files, the
// partition as "{v1, v2}"; sorted by partition, then bucket.
func newBucketsTable(e *sysTableEnv) (*sysTable, error) {
	if err := e.checkAsOf(); err != nil {
		return nil, err
	}
	cols := append([]sysColumn{{"partition", sysNullable(pString)}, {"bucket", sysNotNull(pInt)}}, sysAggCols...)
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		v, err := e.sysSnapView(ctx)
		if err != nil {
			return nil, err
		}
		live, err := v.liveFiles(ctx)
		if err != nil {
			return nil, err
		}
		type key struct {
			part   string
			bucket manifest.Bucket
		}
		byBucket := map[key]*sysFileAgg{}
		pstr := map[string]string{}
		for i := range live {
			le := &live[i]
			k := key{string(le.Partition), le.Bucket}
			a, ok := byBucket[k]
			if !ok {
				s, ok := pstr[k.part]
				if !ok {
					vals, err := v.partition(le.Partition)
					if err != nil {
						return nil, err
					}
					if s, err = partitionRowString(v.parts, vals); err != nil {
						return nil, err
					}
					pstr[k.part] = s
				}
				a = &sysFileAgg{part: s, bucket: int32(le.Bucket)}
				byBucket[k] = a
			}
			a.add(&le.File)
		}
		aggs := make([]*sysFileAgg, 0, len(byBucket))
		for _, a := range byBucket {
			aggs = append(aggs, a)
		}
		slices.SortFunc(aggs, func(x, y *sysFileAgg) int {
			return cmp.Or(strings.Compare(x.part, y.part), cmp.Compare(x.bucket, y.bucket))
		})
		rows := make([]sql.Row, len(aggs))
		for i, a := range aggs {
			rows[i] = sql.Row{a.part, a.bucket, a.records, a.bytes, a.files, a.lastUpdateValue()}
		}
		return rows, nil
	})
}

// sysDVRangesType is ARRAY<DeletionVectorMeta.SCHEMA>.
var sysDVRangesType = schema.ArrayType(schema.RowType(
	schema.DataField{ID: 0, Name: "f0", Type: sysNotNull(schema.StringType())},
	schema.DataField{ID: 1, Name: "f1", Type: sysNotNull(schema.AtomicType(schema.TypeInt))},
	schema.DataField{ID: 2, Name: "f2", Type: sysNotNull(schema.AtomicType(schema.TypeInt))},
	schema.DataField{ID: 3, Name: "_CARDINALITY", Type: sysNullable(schema.AtomicType(schema.TypeBigInt))},
))

// newTableIndexesTable mirrors TableIndexesTable (1.3 columns): the entries
// of the snapshot's index manifest.
func newTableIndexesTable(e *sysTableEnv) (*sysTable, error) {
	if err := e.checkAsOf(); err != nil {
		return nil, err
	}
	cols := []sysColumn{
		{"partition", sysNullable(pString)},
		{"bucket", sysNotNull(pInt)},
		{"index_type", sysNotNull(pString)},
		{"file_name", sysNotNull(pString)},
		{"file_size", sysNotNull(pBigInt)},
		{"row_count", sysNotNull(pBigInt)},
		{"dv_ranges", sysNullable(sysDVRangesType)},
	}
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		v, err := e.sysSnapView(ctx)
		if err != nil {
			return nil, err
		}
		if v.snap == nil || v.snap.IndexManifest == nil {
			return nil, nil
		}
		name := *v.snap.IndexManifest
		entries, err := snapshot.CachedIndexManifest(ctx, v.st, name)
		if errors.Is(err, storage.ErrNotExist) {
			return nil, nil // Java: "indexManifest doesn't exist", no rows
		}
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, 0, len(entries))
		for _, ie := range entries {
			vals, err := v.partition(ie.Partition)
			if err != nil {
				return nil, err
			}
			part, err := partitionRowString(v.parts, vals)
			if err != nil {
				return nil, err
			}
			var ranges any
			if ie.IndexFile.DVRanges != nil {
				a := make([]any, len(ie.IndexFile.DVRanges))
				for i, r := range ie.IndexFile.DVRanges {
					a[i] = []any{r.DataFileName, r.Offset, r.Length, sysOptInt64(r.Cardinality)}
				}
				if ranges, err = toSQL(&sysDVRangesType, a); err != nil {
					return nil, err
				}
			}
			f := &ie.IndexFile
			rows = append(rows, sql.Row{part, int32(ie.Bucket), f.IndexType, f.FileName, f.FileSize, f.RowCount, ranges})
		}
		return rows, nil
	})
}
