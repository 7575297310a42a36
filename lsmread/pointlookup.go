package lsmread

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/lookup"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Point lookups. When a scan's filter pins every primary-key column to one
// value (key = v AND …, IN lists, ORs of such), planning keeps only the
// buckets the keys hash to (fixed-bucket tables, as Java's bucket filter
// does), and reading looks each key up in the lookup file of every data file
// whose key range holds it (internal/lookup: built on the first lookup,
// then one small block read per file) instead of decoding and merging the
// whole bucket. The records found are merged by the table's merge function
// exactly as merge-on-read merges them, and the filter is applied to the
// result as on every read: the rows are those of a full read.

// maxPoints bounds the keys a filter may pin for the lookup path (an IN
// list longer than this is read by scanning).
const maxPoints = 1 << 16

// lookupFraction: a split is read by lookups when its keys are fewer than
// its rows divided by this; otherwise a scan is cheaper.
var lookupFraction int64 = 16

// lookupFiles is the process-wide cache of lookup files (shared with
// lsmwrite's lookup compaction).
var lookupFiles = lookup.Shared

// LookupCacheStats reports the lookup-file cache's counters.
func LookupCacheStats() lookup.Stats { return lookupFiles.Stats() }

// points are the primary keys a filter pins: each a row of the read schema
// with only the primary-key fields set.
type points struct {
	rows [][]any
	// buckets of the keys by total bucket count (fixed-bucket tables);
	// nil when buckets cannot be computed.
	bucketer func(totalBuckets int32) (map[manifest.Bucket]bool, error)
	byTotal  map[int32]map[manifest.Bucket]bool
}

// pinnedKeys returns the primary keys p pins (every trimmed key field set;
// partition fields set when p pins them too, else the keys are looked up
// in every partition), or nil.
func pinnedKeys(pred Predicate, sch *schema.TableSchema) [][]any {
	if pred == nil || len(sch.PrimaryKeys) == 0 {
		return nil
	}
	trimmed := sch.Projection(sch.TrimmedPrimaryKeys())
	sets := pointsOf(pred, len(sch.Fields))
	if sets == nil || len(trimmed) == 0 {
		return nil
	}
	for _, row := range sets {
		for _, i := range trimmed {
			if i < 0 || row[i] == nil {
				return nil
			}
		}
	}
	return sets
}

// pointsOf returns the assignments p allows as rows (nil entries unset),
// or nil when p is not a finite set of assignments of some fields. Conjuncts
// that pin nothing are ignored (they filter the rows found).
func pointsOf(p Predicate, nf int) [][]any {
	switch p := p.(type) {
	case Leaf:
		if p.Field < 0 || p.Field >= nf {
			return nil
		}
		var lits []any
		switch p.Op {
		case OpEq:
			lits = p.Literals[:min(1, len(p.Literals))]
		case OpIn:
			lits = p.Literals
		default:
			return nil
		}
		out := make([][]any, 0, len(lits))
		for _, v := range lits {
			if v == nil {
				continue
			}
			row := make([]any, nf)
			row[p.Field] = v
			out = append(out, row)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case And:
		var acc [][]any
		for _, c := range p {
			cs := pointsOf(c, nf)
			if cs == nil {
				continue
			}
			if acc == nil {
				acc = cs
				continue
			}
			if len(acc)*len(cs) > maxPoints {
				return nil
			}
			var next [][]any
			for _, a := range acc {
				for _, b := range cs {
					row, ok := mergeAssign(a, b)
					if ok {
						next = append(next, row)
					}
				}
			}
			if len(next) == 0 {
				return nil // contradictory: leave it to the scan (which returns nothing)
			}
			acc = next
		}
		return acc
	case Or:
		var out [][]any
		var set []bool
		for i, c := range p {
			cs := pointsOf(c, nf)
			if cs == nil {
				return nil
			}
			// Every branch must pin the same fields, or the union is
			// not a set of points of those fields.
			for _, row := range cs {
				s := make([]bool, nf)
				for j, v := range row {
					s[j] = v != nil
				}
				if i == 0 && set == nil {
					set = s
				} else if !slices.Equal(set, s) {
					return nil
				}
			}
			out = append(out, cs...)
			if len(out) > maxPoints {
				return nil
			}
		}
		return out
	}
	return nil
}

// mergeAssign combines two assignments; false when they disagree on a field.
func mergeAssign(a, b []any) ([]any, bool) {
	row := slices.Clone(a)
	for i, v := range b {
		if v == nil {
			continue
		}
		if row[i] != nil && row[i] != v {
			return nil, false
		}
		row[i] = v
	}
	return row, true
}

// newPoints prepares the bucket filter of pinned keys (fixed buckets only).
func (p *Plan) newPoints(rows [][]any) *points {
	pts := &points{rows: rows}
	if p.Core.Bucket <= 0 {
		return pts
	}
	if _, err := binaryrow.ParseBucketFunctionType(p.Options[schema.OptBucketFunctionType]); err != nil {
		return pts
	}
	keys := p.Schema.Projection(p.Schema.BucketKeys())
	for _, k := range keys {
		if k < 0 {
			return pts
		}
		for _, row := range rows {
			if row[k] == nil {
				return pts // a bucket-key field not pinned: every bucket
			}
		}
	}
	pts.byTotal = map[int32]map[manifest.Bucket]bool{}
	pts.bucketer = func(total int32) (map[manifest.Bucket]bool, error) {
		if m, ok := pts.byTotal[total]; ok {
			return m, nil
		}
		m := map[manifest.Bucket]bool{}
		for _, row := range rows {
			n, err := p.bucketOf(row, total)
			if err != nil {
				return nil, err
			}
			m[manifest.Bucket(n)] = true
		}
		pts.byTotal[total] = m
		return m, nil
	}
	return pts
}

// keepBucket reports whether a file of bucket b (of total buckets) may hold
// one of the keys.
func (pts *points) keepBucket(b manifest.Bucket, total int32) bool {
	if pts == nil || pts.bucketer == nil || total <= 0 || b < 0 {
		return true
	}
	m, err := pts.bucketer(total)
	if err != nil {
		return true // unknown: read it
	}
	return m[b]
}

// splitKeys returns the trimmed keys of the points in split's partition (and
// bucket), sorted and without duplicates.
func (r *Reader) splitKeys(split *DataSplit) [][]any {
	pts := r.plan.points
	if pts == nil {
		return nil
	}
	part := r.plan.Schema.Projection(r.plan.Schema.PartitionKeys)
	var keys [][]any
	var buckets map[manifest.Bucket]bool
	if pts.bucketer != nil && split.TotalBuckets > 0 {
		buckets, _ = pts.bucketer(split.TotalBuckets)
	}
	for _, row := range pts.rows {
		same := len(part) == len(split.PartitionValues)
		for j, i := range part {
			if !same {
				break
			}
			if row[i] == nil {
				continue // not pinned: every partition
			}
			same = split.PartitionValues[j] != nil && schema.Compare(&r.fields[i].Type, row[i], split.PartitionValues[j]) == 0
		}
		if !same {
			continue
		}
		if buckets != nil {
			if n, err := r.plan.bucketOf(row, split.TotalBuckets); err == nil && manifest.Bucket(n) != split.Bucket {
				continue
			}
		}
		key := make([]any, len(r.keyIdx))
		for j, i := range r.keyIdx {
			key[j] = row[i]
		}
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b []any) int { return r.keyCmp(a, b) })
	return slices.CompactFunc(keys, func(a, b []any) bool { return r.keyCmp(a, b) == 0 })
}

func (p *Plan) bucketerFor(total int32) (*binaryrow.Bucketer, error) {
	fn, err := binaryrow.ParseBucketFunctionType(p.Options[schema.OptBucketFunctionType])
	if err != nil {
		return nil, err
	}
	types := make([]schema.DataType, len(p.Schema.Fields))
	for i := range p.Schema.Fields {
		types[i] = p.Schema.Fields[i].Type
	}
	return binaryrow.NewBucketer(types, p.Schema.Projection(p.Schema.BucketKeys()), int(total), fn)
}

// lookupReadable reports whether split is read by key lookups.
func (r *Reader) lookupReadable(split *DataSplit, keys [][]any) bool {
	if len(keys) == 0 || r.keyCmp == nil || r.plan.Spec.Delta != nil {
		return false
	}
	if split.Mode == ReadMerge && r.factory == nil {
		return false
	}
	return int64(len(keys))*lookupFraction < split.RowCount() || lookupFraction == 0
}

// openLookup reads the rows of keys (sorted trimmed keys) in split.
func (r *Reader) openLookup(ctx context.Context, split *DataSplit, keys [][]any) (RowIterator, error) {
	bounds, err := r.fileKeyBounds(ctx, split)
	if err != nil {
		return nil, err
	}
	var runs []kv.RecordReader
	var rows [][]any
	// newest: one key of a deduplicate table: the record with the largest
	// sequence number wins, so the files are searched by descending
	// maximum sequence number and the search stops at the first file
	// that cannot hold a newer record than one found (Java's LookupLevels
	// stops at the first hit too). The records found still merge as
	// before, in file order.
	newest := r.newestWins(split, keys)
	var order []int
	if newest {
		order = newestFirst(split)
	}
	var found kv.SeqNum
	var hit bool
	var runFiles []int
	for k := range split.Files {
		i := k
		if newest {
			i = order[k]
		}
		f := &split.Files[i]
		b := bounds[i]
		if hit && kv.SeqNum(f.MaxSequenceNumber) < found {
			newestFirstStops.Add(1)
			break
		}
		var lf *lookup.File
		var vec dv.DeletionVector
		var recs []kv.KeyValue
		for _, k := range keys {
			if r.keyCmp(k, b.min) < 0 || r.keyCmp(k, b.max) > 0 {
				continue
			}
			if lf == nil {
				if err := checkFormat(f); err != nil {
					return nil, err
				}
				if lf, err = r.lookupFile(ctx, split, f); err != nil {
					return nil, err
				}
				defer lookupFiles.Release(lf)
				if i < len(split.DeletionFiles) && split.DeletionFiles[i] != nil {
					if vec, err = r.dvs.Load(ctx, split.DeletionFiles[i]); err != nil {
						return nil, fmt.Errorf("lsmread: deletion vector of %s: %w", f.FileName, err)
					}
				}
			}
			rec, ok, err := lf.Find(k)
			if err != nil {
				return nil, fmt.Errorf("lsmread: lookup in %s: %w", f.FileName, err)
			}
			if !ok || vec != nil && vec.IsDeleted(rec.Pos) {
				continue
			}
			if split.Mode == ReadRaw {
				if out := r.project(rec.Value); out != nil {
					rows = append(rows, out)
				}
				continue
			}
			recs = append(recs, rec.KeyValue)
			if newest && (!hit || rec.Seq > found) {
				found, hit = rec.Seq, true
			}
		}
		if len(recs) > 0 {
			runs = append(runs, kv.NewSliceReader(recs))
			runFiles = append(runFiles, i)
		}
	}
	if newest && len(runs) > 1 {
		sortRunsByFile(runs, runFiles)
	}
	if split.Mode == ReadRaw || len(runs) == 0 {
		return &sliceRows{rows: rows}, nil
	}
	var smr *kv.SortMergeReader
	if r.lookup {
		smr = r.factory.NewLookupReader(runs, r.keyCmp)
	} else {
		smr = r.factory.NewReader(runs, r.keyCmp)
	}
	defer smr.Close()
	for {
		kvr, ok, err := smr.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if !kvr.Kind.IsAdd() {
			continue
		}
		if out := r.project(kvr.Value); out != nil {
			rows = append(rows, out)
		}
	}
	return &sliceRows{rows: rows}, nil
}

// lookupRunReader reads data files with every field, for lookup files
// (which hold whole rows whatever a statement projects).
func (r *Reader) lookupRunReader() *sortedrun.Reader {
	return sortedrun.NewReader(r.plan.Table.source(), r.fields, nil, r.keyIdx, r.plan.Spec.TimeZone)
}

// lookupFile returns the lookup file of f, read with the plan's schema.
func (r *Reader) lookupFile(ctx context.Context, split *DataSplit, f *manifest.DataFileMeta) (*lookup.File, error) {
	tz := "UTC"
	if r.plan.Spec.TimeZone != nil {
		tz = r.plan.Spec.TimeZone.String()
	}
	id := r.plan.Table.store.URL() + "/" + split.BucketPath() + f.FileName + "#" + strconv.FormatInt(int64(r.plan.Schema.ID), 10) + "#" + tz
	return lookupFiles.Get(ctx, id, lookup.Source{Layout: r.lookupLayout(), Level: int(f.Level),
		Open: func(ctx context.Context) (kv.RecordReader, error) {
			return r.lookupRunReader().OpenKeyValues(ctx, split.file(f))
		}})
}

// lookupLayout is the layout of the reader's lookup files: the trimmed
// key, and every field as the value (nullable).
func (r *Reader) lookupLayout() *lookup.Layout {
	r.layout.once.Do(func() {
		l := &lookup.Layout{KeyTypes: r.keyType, ValueTypes: make([]schema.DataType, len(r.fields))}
		for i := range r.fields {
			l.ValueTypes[i] = r.fields[i].Type.WithNullable(true)
		}
		r.layout.l = l
	})
	return r.layout.l
}

// keyBounds are a file's smallest and largest trimmed keys.
type keyBounds struct{ min, max []any }

// decodeKeyBounds decodes a data file's min and max keys with the key types
// of the file's schema; keyTypes caches them per schema id.
func (r *Reader) decodeKeyBounds(ctx context.Context, keyTypes map[int64][]schema.DataType, f *manifest.DataFileMeta) (keyBounds, error) {
	types, ok := keyTypes[f.SchemaID]
	if !ok {
		fs, err := r.plan.Table.schemas.Schema(ctx, schema.SchemaID(f.SchemaID))
		if err != nil {
			return keyBounds{}, err
		}
		for _, kf := range fs.TrimmedPrimaryKeyFields() {
			types = append(types, kf.Type)
		}
		keyTypes[f.SchemaID] = types
	}
	mn, err := binaryrow.DecodeSerialized(types, f.MinKey)
	if err != nil {
		return keyBounds{}, fmt.Errorf("lsmread: min key of %s: %w", f.FileName, err)
	}
	mx, err := binaryrow.DecodeSerialized(types, f.MaxKey)
	if err != nil {
		return keyBounds{}, fmt.Errorf("lsmread: max key of %s: %w", f.FileName, err)
	}
	return keyBounds{mn, mx}, nil
}

// fileKeyBounds decodes the key range of each of split's files.
func (r *Reader) fileKeyBounds(ctx context.Context, split *DataSplit) ([]keyBounds, error) {
	keyTypes := make(map[int64][]schema.DataType)
	out := make([]keyBounds, len(split.Files))
	sh := r.plan.shared
	if sh != nil {
		sh.mu.Lock()
		hit := 0
		for i := range split.Files {
			if b, ok := sh.bounds[split.Files[i].FileName]; ok {
				out[i] = b
				hit++
			}
		}
		sh.mu.Unlock()
		if hit == len(split.Files) {
			return out, nil
		}
	}
	defer func() {
		if sh != nil {
			sh.mu.Lock()
			for i := range split.Files {
				if out[i].min != nil {
					sh.bounds[split.Files[i].FileName] = out[i]
				}
			}
			sh.mu.Unlock()
		}
	}()
	for i := range split.Files {
		b, err := r.decodeKeyBounds(ctx, keyTypes, &split.Files[i])
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// sliceRows iterates rows already read.
type sliceRows struct {
	rows [][]any
	i    int
}

func (s *sliceRows) Next() ([]any, error) {
	if s.i >= len(s.rows) {
		return nil, io.EOF
	}
	s.i++
	return s.rows[s.i-1], nil
}

func (s *sliceRows) Close() error { return nil }

// newestFirstStops counts the lookups newestWins ended before the last
// file (tests check the rule applies).
var newestFirstStops atomic.Int64

// newestWins reports whether one key's value in split is its record with
// the largest sequence number: a merged split of a deduplicate table
// without sequence.field or ignore-delete (a delete record wins too).
func (r *Reader) newestWins(split *DataSplit, keys [][]any) bool {
	if len(keys) != 1 || split.Mode == ReadRaw || r.factory == nil || len(split.Files) < 2 {
		return false
	}
	o := r.factory.Options()
	return o.Engine == schema.MergeEngineDeduplicate && len(o.SequenceFields) == 0 && !o.IgnoreDelete
}

// newestFirst orders split's files by descending maximum sequence number.
func newestFirst(split *DataSplit) []int {
	order := make([]int, len(split.Files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(split.Files[b].MaxSequenceNumber, split.Files[a].MaxSequenceNumber)
	})
	return order
}

// sortRunsByFile puts runs back in the order of their files (files[i] is
// run i's), the order the merge saw them in before newestWins.
func sortRunsByFile(runs []kv.RecordReader, files []int) {
	for i := 1; i < len(runs); i++ {
		for j := i; j > 0 && files[j] < files[j-1]; j-- {
			runs[j], runs[j-1] = runs[j-1], runs[j]
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
}
