package provider

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// The PRIMARY index's statistic: a histogram of the first key column built
// from the manifests alone (no data file is read). Every live data file
// contributes its row count (retractions excluded) spread uniformly over
// its [min key, max key]; the key space [min, max] is cut into at
// most histBuckets buckets. GMS's costed index scan reads it
// (getCostedIndexScan: GetTableStats, then PrefixLt/Gt… over the buckets)
// to estimate how many rows a key range keeps, and the join planner costs
// the filtered side with that estimate instead of half the table.
//
// Only an integer first key column that is not a partition column gets a
// histogram (an interpolation needs arithmetic on the key; DECIMAL, string
// and date keys keep GMS's default estimate). The statistic is cached per
// table and snapshot: a new snapshot builds a new one, decoding the key
// spans of its new files only.

// histBuckets bounds the buckets of a histogram.
const histBuckets = 256

// primaryStat is a table's cached PRIMARY statistic at one snapshot.
type primaryStat struct {
	snap string // the snapshot's manifest lists: unique to one commit of one table
	sch  schema.SchemaID
	stat sql.Statistic // nil: the table gets no histogram
	// spans are the decoded key spans by data file name: the next
	// snapshot's build decodes only its new files.
	spans map[string]fileSpan
}

// statCache holds the last PRIMARY statistic per table (database, table
// folder and branch; a handle is reopened every minute).
type statCache struct {
	mu sync.Mutex
	m  map[string]primaryStat
}

// statsOff turns the histograms and lakesql's join costs off (tests
// compare results and plans with and without them).
var statsOff atomic.Bool

// SetStatistics turns the PRIMARY-index histograms and lakesql's join
// costs on or off (tests).
func SetStatistics(on bool) { statsOff.Store(!on) }

// primaryStatistic returns the PRIMARY index's statistic of the table at
// its snapshot; nil when the table gets none.
func (t *Table) primaryStatistic(ctx *sql.Context) (sql.Statistic, error) {
	if statsOff.Load() || t.sch == nil || !t.sch.IsPrimaryKeyTable() {
		return nil, nil
	}
	idxs, err := t.GetIndexes(ctx)
	if err != nil || len(idxs) == 0 {
		return nil, err
	}
	pi := idxs[0].(*primaryIndex)
	first := t.sch.Fields[pi.cols[0]]
	trimmed := t.sch.TrimmedPrimaryKeys()
	if len(trimmed) == 0 || !strings.EqualFold(trimmed[0], first.Name) || !histKeyType(first.Type.Root) {
		return nil, nil
	}
	snap, err := t.lt.ResolveSnapshot(ctx, t.tt)
	if err != nil || snap == nil {
		return nil, err
	}
	c := &t.db.p.stats
	key := handleKey(t.db.name, t.base) + "\x00" + t.lt.BranchName()
	id := snap.BaseManifestList + "\x00" + snap.DeltaManifestList
	c.mu.Lock()
	cached, ok := c.m[key]
	c.mu.Unlock()
	if ok && cached.snap == id && cached.sch == t.sch.ID {
		return qualified(cached.stat, t), nil
	}
	entries, _, err := t.lt.Handle().Scan(ctx, snap, snapshot.ScanOptions{})
	if err != nil {
		return nil, err
	}
	var keyTypes []schema.DataType
	for _, f := range t.sch.TrimmedPrimaryKeyFields() {
		keyTypes = append(keyTypes, f.Type)
	}
	files := make([]fileSpan, 0, len(entries))
	spans := make(map[string]fileSpan, len(entries))
	for i := range entries {
		f := &entries[i].File
		if sp, ok := cached.spans[f.FileName]; ok && cached.sch == t.sch.ID {
			spans[f.FileName] = sp
			if sp.rows > 0 {
				files = append(files, sp)
			}
			continue
		}
		rows := f.RowCount
		if f.DeleteRowCount != nil {
			rows -= 2 * *f.DeleteRowCount // a retraction also cancels a row
		}
		if rows <= 0 {
			spans[f.FileName] = fileSpan{}
			continue
		}
		lo, err1 := binaryrow.DecodeSerialized(keyTypes, f.MinKey)
		hi, err2 := binaryrow.DecodeSerialized(keyTypes, f.MaxKey)
		if err1 != nil || err2 != nil {
			return nil, nil // not decodable with the latest key types: no histogram
		}
		l, ok1 := keyInt(lo[0])
		h, ok2 := keyInt(hi[0])
		if !ok1 || !ok2 || h < l {
			return nil, nil
		}
		sp := fileSpan{lo: l, hi: h, rows: float64(rows)}
		spans[f.FileName] = sp
		files = append(files, sp)
	}
	stat := newPrimaryStatistic(pi, files)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]primaryStat{}
	}
	c.m[key] = primaryStat{snap: id, sch: t.sch.ID, stat: stat, spans: spans}
	c.mu.Unlock()
	return qualified(stat, t), nil
}

// qualified gives a cached statistic the qualifier GMS computes for the
// table as addressed (getCostedIndexScan matches statistics by it).
func qualified(st sql.Statistic, t *Table) sql.Statistic {
	if st == nil {
		return nil
	}
	s := *st.(*stats.Statistic)
	s.Qual = sql.NewStatQualifier("", "", strings.ToLower(t.name), "primary")
	return &s
}

func histKeyType(r schema.TypeRoot) bool {
	switch r {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
		return true
	}
	return false
}

// keyInt is an integer key value as int64.
func keyInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// fileSpan is one data file's first-key range and live row count.
type fileSpan struct {
	lo, hi int64
	rows   float64
}

// newPrimaryStatistic builds the statistic of the PRIMARY index from the
// files' key spans: one column (the first key column), up to histBuckets
// buckets of equal width over the key space (GMS counts a bucket a range
// touches as a whole, so a few wide file spans would say nothing), each
// counting the rows of every file spread uniformly over its span. The index is unique on its
// first column only when that is the whole key: DistinctCount is then the
// row count, else the count of distinct first-key values is estimated as
// the width of the covered key space, at most the row count.
func newPrimaryStatistic(pi *primaryIndex, files []fileSpan) sql.Statistic {
	var lo, hi int64
	for i, f := range files {
		if i == 0 || f.lo < lo {
			lo = f.lo
		}
		if i == 0 || f.hi > hi {
			hi = f.hi
		}
	}
	// Buckets of equal width over [lo, hi]: bucket i is (bounds[i-1],
	// bounds[i]], the first [lo, bounds[0]].
	var bounds []int64
	if len(files) > 0 {
		w := (float64(hi) - float64(lo) + 1) / histBuckets
		for i := 1; i < histBuckets; i++ {
			if ub := lo + int64(math.Ceil(float64(i)*w)) - 1; ub < hi {
				bounds = append(bounds, ub)
			}
		}
		bounds = append(slices.Compact(bounds), hi)
	}
	counts := make([]float64, len(bounds))
	for _, f := range files {
		width := float64(f.hi) - float64(f.lo) + 1
		first, _ := slices.BinarySearch(bounds, f.lo) // the bucket holding f.lo
		for i := first; i < len(bounds); i++ {
			ub := bounds[i]
			// rows of f in bucket i: (bounds[i-1], ub], [lo, ub] for the first
			a := f.lo
			if i > 0 {
				a = max(a, bounds[i-1]+1)
			}
			if b := min(f.hi, ub); b >= a {
				counts[i] += f.rows * (float64(b) - float64(a) + 1) / width
			}
			if ub >= f.hi {
				break
			}
		}
	}
	unique := pi.IsUnique() && len(pi.cols) == 1
	buckets := make([]sql.HistogramBucket, 0, len(bounds))
	var rows, distinct uint64
	// A bucket that would round to no row is carried into the next one
	// (which then starts where the last kept bucket ended).
	var carry float64
	prevUB := float64(lo) - 1
	for i, ub := range bounds {
		carry += counts[i]
		n := uint64(math.Round(carry))
		if n == 0 {
			if i < len(bounds)-1 || carry == 0 {
				continue
			}
			n = 1
		}
		d := n
		if !unique {
			// at most one distinct first-key value per integer of the span
			d = uint64(max(1, min(float64(n), float64(ub)-prevUB)))
		}
		buckets = append(buckets, stats.NewHistogramBucket(n, d, 0, 1, sql.Row{ub}, nil, nil))
		rows += n
		distinct += d
		carry -= float64(n) // the rounding too, so the buckets sum to the rows
		prevUB = float64(ub)
	}
	var lower sql.Row
	if len(files) > 0 {
		lower = sql.Row{lo}
	}
	col := strings.ToLower(pi.t.sch.Fields[pi.cols[0]].Name)
	st := stats.NewStatistic(rows, distinct, 0, 0, time.Now(), sql.StatQualifier{}, []string{col},
		[]sql.Type{types.Int64}, buckets, sql.IndexClassDefault, lower)
	// The functional dependencies are the index's (as GMS derives them for
	// its own statistics, indexFds): its columns are a key of the table
	// when it spans the primary key. The histogram covers its first column
	// only, but a key of the first column alone would tell GMS that
	// `a = 13` on a key (a, b) returns at most one row.
	var colSet, all, notNull sql.ColSet
	for _, c := range pi.cols {
		colSet.Add(sql.ColumnId(c + 1))
	}
	strictKey := true
	for i, c := range pi.t.full {
		all.Add(sql.ColumnId(i + 1))
		if !c.Nullable {
			notNull.Add(sql.ColumnId(i + 1))
		}
	}
	for _, c := range pi.cols {
		strictKey = strictKey && !pi.t.full[c].Nullable
	}
	var strict, lax []sql.ColSet
	switch {
	case !pi.IsUnique():
	case strictKey:
		strict = append(strict, colSet)
	default:
		lax = append(lax, colSet)
	}
	return st.WithColSet(colSet).WithFuncDeps(sql.NewTablescanFDs(all, strict, lax, notNull))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
