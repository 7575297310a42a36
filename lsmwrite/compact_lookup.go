package lsmwrite

import (
	"context"
	"slices"
	"strings"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// lookupRewriter is Java's LookupMergeTreeCompactRewriter (over
// ChangelogMergeTreeRewriter), the rewriter of tables that need lookup
// (deletion vectors, first-row, changelog-producer=lookup, force-lookup).
// A rewrite whose sections hold a level-0 file reads them through a lookup
// wrapper instead of the reducer: each key coming from level 0 that has no
// version in the sections' deeper files is looked up in the levels below the
// output level; the version found is merged with the level-0 records, its
// row is marked in its file's deletion vector (deletion vectors), or the
// level-0 record is dropped (first-row). Rewrites without level-0 files
// merge as the plain rewriter does. A rewritten file's deletion vector is
// dropped; an upgraded level-0 file is still read for the lookups and kept
// as is when its records need no merge.
type lookupRewriter struct {
	c        *compactContext
	b        *compactBucket
	strategy LookupStrategy
	lookup   *LookupLevels
	dvm      *bucketDvMaintainer // deletion vectors, else nil
	values   bool                // lookups read values
	maxLevel int
	noSeq    bool // no sequence.field
}

var _ CompactRewriter = (*lookupRewriter)(nil)

// newLookupRewriter builds the rewriter of one compaction unit of bucket b
// whose levels are levels.
func (c *compactContext) newLookupRewriter(b *compactBucket, levels *Levels) *lookupRewriter {
	values := !c.lookup.IsFirstRow && (c.lookup.ProduceChangelog || c.mff.Engine() != schema.MergeEngineDeduplicate ||
		c.mff.SequenceComparator() != nil)
	if !c.lookup.DeletionVector && !c.lookup.IsFirstRow {
		values = true // Java KeyValueProcessor
	}
	return &lookupRewriter{
		c: c, b: b, strategy: c.lookup,
		lookup:   b.newLookupLevels(levels, values),
		dvm:      b.dvm,
		values:   values,
		maxLevel: c.numLevels - 1,
		noSeq:    c.mff.SequenceComparator() == nil,
	}
}

// close releases the lookup's files.
func (r *lookupRewriter) close() error { return r.lookup.Close() }

// upgradeStrategy is LookupMergeTreeCompactRewriter.upgradeStrategy:
// whether an upgraded file is read for lookups (changelog) and rewritten.
func (r *lookupRewriter) upgradeStrategy(outputLevel int, f *manifest.DataFileMeta) (changelog, rewrite bool) {
	if f.Level != 0 {
		return false, false
	}
	// file.format.per.level is refused by CheckWritable: every level has
	// the same format.
	if r.dvm != nil && containsDeleteRecords(f) {
		return true, true
	}
	if outputLevel == r.maxLevel {
		return true, false
	}
	if r.c.mff.Engine() == schema.MergeEngineDeduplicate && r.noSeq {
		return true, false
	}
	return true, true
}

func (r *lookupRewriter) Upgrade(ctx context.Context, outputLevel int, file manifest.DataFileMeta) (CompactResult, error) {
	changelog, rewrite := r.upgradeStrategy(outputLevel, &file)
	if !changelog {
		up, err := upgradeFile(file, outputLevel)
		if err != nil {
			return CompactResult{}, err
		}
		return CompactResult{Before: []manifest.DataFileMeta{file}, After: []manifest.DataFileMeta{up}}, nil
	}
	return r.rewriteLookup(ctx, outputLevel, [][]SortedRun{{{Files: []manifest.DataFileMeta{file}}}}, r.dvm != nil, rewrite)
}

func (r *lookupRewriter) Rewrite(ctx context.Context, outputLevel int, dropDelete bool, sections [][]SortedRun) (CompactResult, error) {
	if outputLevel != 0 && sectionsHoldLevel0(sections) {
		return r.rewriteLookup(ctx, outputLevel, sections, dropDelete, true)
	}
	// The merge-tree rewrite, with the lookup merge function (Java wraps
	// the table's merge function factory in LookupMergeFunction for tables
	// that need lookup).
	w := newLevelWriter(r.c.spec, r.b.names, false, outputLevel, manifest.FileSourceCompact)
	rd := r.b.sectionsReader(ctx, sections, func(runs []kv.RecordReader, keyCmp kv.Comparator) *kv.SortMergeReader {
		return kv.NewSortMergeReader(runs, keyCmp, r.c.mff.SequenceComparator(), kv.NewReducer(r.c.mff.NewLookup()))
	})
	err := r.b.copyRecords(ctx, rd, w, dropDelete)
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.closeCurrent()
	}
	if err != nil {
		w.abort()
		return CompactResult{}, err
	}
	res := CompactResult{Before: sectionFiles(sections), After: w.files}
	r.notifyRewritten(res.Before)
	r.b.stats.addWritten(w.files)
	return res, nil
}

func sectionsHoldLevel0(sections [][]SortedRun) bool {
	for _, sec := range sections {
		for _, run := range sec {
			for i := range run.Files {
				if run.Files[i].Level == 0 {
					return true
				}
			}
		}
	}
	return false
}

func sectionFiles(sections [][]SortedRun) []manifest.DataFileMeta {
	var out []manifest.DataFileMeta
	for _, sec := range sections {
		for _, run := range sec {
			out = append(out, run.Files...)
		}
	}
	return out
}

// notifyRewritten drops the deletion vectors of rewritten files
// (notifyRewriteCompactBefore).
func (r *lookupRewriter) notifyRewritten(files []manifest.DataFileMeta) {
	if r.dvm == nil {
		return
	}
	for i := range files {
		r.dvm.removeDeletionVectorOf(files[i].FileName)
	}
}

// rewriteLookup is ChangelogMergeTreeRewriter.rewriteOrProduceChangelog
// (compactBucket.rewriteOrProduceChangelog) with the lookup wrapper: with
// rewrite the results are written on outputLevel (retracts dropped with
// dropDelete) and the rewritten files' deletion vectors dropped, otherwise
// the files move to outputLevel unchanged; changelog records go to
// changelog files when the table produces them by lookup.
func (r *lookupRewriter) rewriteLookup(ctx context.Context, outputLevel int, sections [][]SortedRun, dropDelete, rewrite bool) (CompactResult, error) {
	var wrapper lookupWrapper
	if r.strategy.IsFirstRow {
		wrapper = newFirstRowWrapper(ctx, r, outputLevel)
	} else {
		wrapper = newLookupChangelogWrapper(ctx, r, outputLevel)
	}
	res, err := r.b.rewriteOrProduceChangelog(ctx, outputLevel, sections, dropDelete, rewrite, r.strategy.ProduceChangelog, wrapper)
	if err != nil {
		return CompactResult{}, err
	}
	if rewrite {
		r.notifyRewritten(res.Before)
	}
	return res, nil
}

// lookupWrapper is a merge function of lookup compaction (Java
// MergeFunctionWrapper<ChangelogResult>) that also hands out the changelog
// records of the keys it merged.
type lookupWrapper = changelogMerger

// lookupChangelogWrapper is LookupChangelogMergeFunctionWrapper: the
// records of a key are merged by LookupMergeFunction (level-0 records plus
// the shallowest deeper one); when the sections hold no deeper version, the
// key is looked up below the output level, the version found joins the
// merge and, with deletion vectors, its row is marked deleted. With
// changelog production, a key with level-0 records yields -U/+U, +I or -D
// against its previous version.
type lookupChangelogWrapper struct {
	ctx         context.Context
	r           *lookupRewriter
	mf          *kv.LookupMergeFunction
	outputLevel int
	seqCmp      kv.Comparator
	changelog   []kv.KeyValue
}

func newLookupChangelogWrapper(ctx context.Context, r *lookupRewriter, outputLevel int) *lookupChangelogWrapper {
	return &lookupChangelogWrapper{ctx: ctx, r: r, mf: kv.NewLookupMergeFunction(r.c.mff.New()), outputLevel: outputLevel,
		seqCmp: r.c.mff.SequenceComparator()}
}

func (w *lookupChangelogWrapper) Reset()                    { w.mf.Reset() }
func (w *lookupChangelogWrapper) Add(rec kv.KeyValue) error { return w.mf.Add(rec) }

func (w *lookupChangelogWrapper) drainChangelog() []kv.KeyValue {
	out := w.changelog
	w.changelog = w.changelog[:0]
	return out
}

func (w *lookupChangelogWrapper) Result() (kv.KeyValue, bool, error) {
	high, hasHigh := w.mf.PickHighLevel()
	containLevel0 := w.mf.ContainLevel0()
	if !hasHigh {
		found, ok, err := w.r.lookup.Lookup(w.ctx, w.mf.Key(), w.outputLevel+1)
		if err != nil {
			return kv.KeyValue{}, false, err
		}
		if ok {
			if w.r.strategy.DeletionVector {
				if err := w.r.dvm.notifyNewDeletion(found.File, found.Position); err != nil {
					return kv.KeyValue{}, false, err
				}
			}
			if w.r.values {
				high, hasHigh = found.KV, true
				w.mf.InsertInto(high, w.compare)
			}
		}
	}
	res, ok, err := w.mf.Result()
	if err != nil || !ok {
		return res, ok, err
	}
	if containLevel0 && w.r.strategy.ProduceChangelog {
		w.setChangelog(high, hasHigh, res)
	}
	return res, true, nil
}

// compare orders records by (sequence.field, sequence number).
func (w *lookupChangelogWrapper) compare(a, b *kv.KeyValue) int {
	if w.seqCmp != nil {
		if c := w.seqCmp(a.Value, b.Value); c != 0 {
			return c
		}
	}
	switch {
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

func (w *lookupChangelogWrapper) setChangelog(before kv.KeyValue, hasBefore bool, after kv.KeyValue) {
	with := func(kind kv.RowKind, from kv.KeyValue) kv.KeyValue {
		return kv.KeyValue{Key: from.Key, Seq: from.Seq, Kind: kind, Value: slices.Clone(from.Value), Level: from.Level}
	}
	if !hasBefore || !before.Kind.IsAdd() {
		if after.Kind.IsAdd() {
			w.changelog = append(w.changelog, with(kv.Insert, after))
		}
		return
	}
	if !after.Kind.IsAdd() {
		w.changelog = append(w.changelog, with(kv.Delete, before))
		return
	}
	if !w.r.c.valuesEqual(before.Value, after.Value) {
		w.changelog = append(w.changelog, with(kv.UpdateBefore, before), with(kv.UpdateAfter, after))
	}
}

// firstRowWrapper is FirstRowMergeFunctionWrapper: a key whose first row
// came from a deeper level keeps it; a new key (only level-0 records) is
// kept unless the lookup finds it below the output level, and is then a
// changelog insert.
type firstRowWrapper struct {
	ctx         context.Context
	r           *lookupRewriter
	mf          *kv.FirstRowMergeFunction
	outputLevel int
	changelog   []kv.KeyValue
}

func newFirstRowWrapper(ctx context.Context, r *lookupRewriter, outputLevel int) *firstRowWrapper {
	return &firstRowWrapper{ctx: ctx, r: r, mf: kv.NewFirstRowMergeFunction(r.c.mff.Options().IgnoreDelete), outputLevel: outputLevel}
}

func (w *firstRowWrapper) Reset()                    { w.mf.Reset() }
func (w *firstRowWrapper) Add(rec kv.KeyValue) error { return w.mf.Add(rec) }

func (w *firstRowWrapper) drainChangelog() []kv.KeyValue {
	out := w.changelog
	w.changelog = w.changelog[:0]
	return out
}

func (w *firstRowWrapper) Result() (kv.KeyValue, bool, error) {
	res, ok, err := w.mf.Result()
	if err != nil || !ok {
		return res, ok, err
	}
	if w.mf.ContainsHighLevel {
		return res, true, nil
	}
	_, found, err := w.r.lookup.Lookup(w.ctx, res.Key, w.outputLevel+1)
	if err != nil {
		return kv.KeyValue{}, false, err
	}
	if found {
		return kv.KeyValue{}, false, nil
	}
	if w.r.strategy.ProduceChangelog {
		w.changelog = append(w.changelog, res)
	}
	return res, true, nil
}

// Option keys of changelog row deduplication (Java CoreOptions
// CHANGELOG_PRODUCER_ROW_DEDUPLICATE, ..._IGNORE_FIELDS).
const (
	optChangelogRowDedup             = "changelog-producer.row-deduplicate"
	optChangelogRowDedupIgnoreFields = "changelog-producer.row-deduplicate-ignore-fields"
)

// rowDeduplicate returns the value comparison of
// changelog-producer.row-deduplicate (nil when it is off: every update
// yields -U/+U), ignoring the fields of
// changelog-producer.row-deduplicate-ignore-fields.
func rowDeduplicate(sch *schema.TableSchema) (func(a, b []any) bool, error) {
	on, err := boolOption(sch.Options, optChangelogRowDedup)
	if err != nil || !on {
		return nil, err
	}
	ignore := map[string]bool{}
	for _, f := range strings.Split(sch.Options[optChangelogRowDedupIgnoreFields], ",") {
		if f = strings.TrimSpace(f); f != "" {
			ignore[f] = true
		}
	}
	var idx []int
	for i, f := range sch.Fields {
		if !ignore[f.Name] {
			idx = append(idx, i)
		}
	}
	fields := sch.Fields
	return func(a, b []any) bool {
		for _, i := range idx {
			x, y := a[i], b[i]
			if (x == nil) != (y == nil) || x != nil && !schema.Equal(&fields[i].Type, x, y) {
				return false
			}
		}
		return true
	}, nil
}

// valuesEqual reports whether two values are equal for changelog row
// deduplication.
func (c *compactContext) valuesEqual(a, b []any) bool { return c.rowDedup != nil && c.rowDedup(a, b) }
