package lsmwrite

import (
	"context"
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// changelogMerger is the merge function of a compaction that produces a
// changelog (Java MergeFunctionWrapper<ChangelogResult>): it merges the
// records of a key like any merge function and keeps the changelog records
// of the keys it merged until drainChangelog takes them.
type changelogMerger interface {
	kv.MergeFunction
	// drainChangelog returns the changelog records produced since the last
	// call (valid until the next call; their values are the merger's own
	// copies).
	drainChangelog() []kv.KeyValue
}

// rewriteOrProduceChangelog is Java's
// ChangelogMergeTreeRewriter.rewriteOrProduceChangelog: the sections are
// read through merger; with rewrite its results are written on
// outputLevel (retractions dropped with dropDelete), otherwise the files
// move to outputLevel unchanged; with produce the changelog records go to
// changelog files (changelog-*.parquet in the bucket folder, on
// outputLevel, file source APPEND, as Java's
// createRollingChangelogFileWriter writes them).
func (b *compactBucket) rewriteOrProduceChangelog(ctx context.Context, outputLevel int, sections [][]SortedRun,
	dropDelete, rewrite, produce bool, merger changelogMerger) (CompactResult, error) {
	var w, cl *rollingWriter
	if rewrite {
		w = newLevelWriter(b.c.spec, b.names, false, outputLevel, manifest.FileSourceCompact)
	}
	if produce {
		cl = newLevelWriter(b.c.spec, b.names, true, outputLevel, manifest.FileSourceAppend)
	}
	rd := b.sectionsReader(ctx, sections, func(runs []kv.RecordReader, keyCmp kv.Comparator) *kv.SortMergeReader {
		return kv.NewSortMergeReader(runs, keyCmp, b.c.mff.SequenceComparator(), merger)
	})
	err := func() error {
		for n := 0; ; n++ {
			if n&1023 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			rec, ok, err := rd.Next()
			if err != nil {
				return fmt.Errorf("lsmwrite: compact %s: %w", b, err)
			}
			for _, c := range merger.drainChangelog() {
				if cl != nil {
					if err := cl.writeKV(ctx, c); err != nil {
						return err
					}
				}
			}
			if !ok {
				return nil
			}
			if w != nil && (!dropDelete || rec.Kind.IsAdd()) {
				if err := w.writeKV(ctx, rec); err != nil {
					return err
				}
			}
		}
	}()
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	if err == nil && w != nil {
		err = w.closeCurrent()
	}
	if err == nil && cl != nil {
		err = cl.closeCurrent()
	}
	if err != nil {
		if w != nil {
			w.abort()
		}
		if cl != nil {
			cl.abort()
		}
		return CompactResult{}, err
	}
	res := CompactResult{Before: sectionFiles(sections)}
	if w != nil {
		res.After = w.files
		b.stats.addWritten(w.files)
	} else {
		for _, f := range res.Before {
			up, err := upgradeFile(f, outputLevel)
			if err != nil {
				return CompactResult{}, err
			}
			res.After = append(res.After, up)
		}
	}
	if cl != nil {
		res.Changelog = cl.files
	}
	return res, nil
}

// changelogRecord is a changelog record of kind from rec, with its own copy
// of the value (the merge function's buffers are reused).
func changelogRecord(kind kv.RowKind, rec kv.KeyValue) kv.KeyValue {
	return kv.KeyValue{Key: slices.Clone(rec.Key), Seq: rec.Seq, Kind: kind, Value: slices.Clone(rec.Value), Level: rec.Level}
}

// fullChangelogRewriter is Java's FullChangelogMergeTreeCompactRewriter
// (changelog-producer = full-compaction): a compaction onto the max level
// (a full compaction) compares each key's record on the max level before
// with the merged record after it and writes the difference as changelog
// files; compactions into other levels are the merge-tree rewriter's.
type fullChangelogRewriter struct {
	*mergeTreeRewriter
	maxLevel int
}

var _ CompactRewriter = (*fullChangelogRewriter)(nil)

func (r *fullChangelogRewriter) Rewrite(ctx context.Context, outputLevel int, dropDelete bool, sections [][]SortedRun) (CompactResult, error) {
	if outputLevel != r.maxLevel {
		return r.mergeTreeRewriter.Rewrite(ctx, outputLevel, dropDelete, sections)
	}
	if !dropDelete {
		return CompactResult{}, fmt.Errorf("lsmwrite: full compaction of %s keeps retract records; this is a bug", r.b)
	}
	return r.b.rewriteOrProduceChangelog(ctx, outputLevel, sections, true, true, true, r.newMerger())
}

// Upgrade moves a file onto the max level without rewriting it, reading it
// for its changelog (Java's CHANGELOG_NO_REWRITE): every key of the file is
// new on the max level.
func (r *fullChangelogRewriter) Upgrade(ctx context.Context, outputLevel int, file manifest.DataFileMeta) (CompactResult, error) {
	if outputLevel != r.maxLevel {
		return r.mergeTreeRewriter.Upgrade(ctx, outputLevel, file)
	}
	return r.b.rewriteOrProduceChangelog(ctx, outputLevel, [][]SortedRun{{{Files: []manifest.DataFileMeta{file}}}},
		false, false, true, r.newMerger())
}

func (r *fullChangelogRewriter) newMerger() *fullChangelogMerger {
	return &fullChangelogMerger{mf: r.c.mff.New(), maxLevel: r.maxLevel, equal: r.c.rowDedup}
}

// fullChangelogMerger is Java's FullChangelogMergeFunctionWrapper: the
// records of a key are merged as the reducer does (a single record is the
// result as it is); the key's record on the max level (at most one: only
// full compaction writes there) is the before image. A new key that merges
// to an add is +I, a key that merges to a retraction is -D of the before
// image, a changed key is -U/+U (none when
// changelog-producer.row-deduplicate finds the values equal). A key whose
// only record is on the max level is unchanged.
type fullChangelogMerger struct {
	mf       kv.MergeFunction
	maxLevel int
	// equal is changelog-producer.row-deduplicate's comparison, or nil.
	equal func(a, b []any) bool

	top, initial       kv.KeyValue
	hasTop, hasInitial bool
	merged             bool
	changelog          []kv.KeyValue
}

var _ changelogMerger = (*fullChangelogMerger)(nil)

// Reset implements kv.MergeFunction.
func (m *fullChangelogMerger) Reset() {
	m.mf.Reset()
	m.top, m.initial = kv.KeyValue{}, kv.KeyValue{}
	m.hasTop, m.hasInitial, m.merged = false, false, false
}

// Add implements kv.MergeFunction.
func (m *fullChangelogMerger) Add(rec kv.KeyValue) error {
	if rec.Level == m.maxLevel {
		if m.hasTop {
			return fmt.Errorf("lsmwrite: full changelog: two records of one key on the max level %d", m.maxLevel)
		}
		m.top, m.hasTop = rec, true
	}
	if !m.hasInitial {
		m.initial, m.hasInitial = rec, true
		return nil
	}
	if !m.merged {
		m.merged = true
		if err := m.mf.Add(m.initial); err != nil {
			return err
		}
	}
	return m.mf.Add(rec)
}

// Result implements kv.MergeFunction: the merged record, or none when it
// is a retraction (setResultIfNotRetract).
func (m *fullChangelogMerger) Result() (kv.KeyValue, bool, error) {
	if !m.hasInitial {
		return kv.KeyValue{}, false, nil
	}
	res := m.initial
	if m.merged {
		r, ok, err := m.mf.Result()
		if err != nil {
			return kv.KeyValue{}, false, err
		}
		if !ok {
			// Every record was ignored (ignore-delete): no result, no
			// change (a record on the max level is an add, never ignored).
			return kv.KeyValue{}, false, nil
		}
		res = r
		switch {
		case !m.hasTop:
			if res.Kind.IsAdd() {
				m.changelog = append(m.changelog, changelogRecord(kv.Insert, res))
			}
		case !res.Kind.IsAdd():
			m.changelog = append(m.changelog, changelogRecord(kv.Delete, m.top))
		case m.equal == nil || !m.equal(m.top.Value, res.Value):
			m.changelog = append(m.changelog, changelogRecord(kv.UpdateBefore, m.top), changelogRecord(kv.UpdateAfter, res))
		}
	} else if !m.hasTop && res.Kind.IsAdd() {
		m.changelog = append(m.changelog, changelogRecord(kv.Insert, res))
	}
	if !res.Kind.IsAdd() {
		return kv.KeyValue{}, false, nil
	}
	return res, true, nil
}

func (m *fullChangelogMerger) drainChangelog() []kv.KeyValue {
	out := m.changelog
	m.changelog = m.changelog[:0]
	return out
}
