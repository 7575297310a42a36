package lsmwrite

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// CompactResult is what one compaction of one bucket changes (Java:
// CompactResult): the files it removes (Before), the files that replace
// them (After, which holds an upgraded file under its old name and its new
// level), the changelog files it produced, and the index files it changed.
type CompactResult struct {
	Before    []manifest.DataFileMeta
	After     []manifest.DataFileMeta
	Changelog []manifest.DataFileMeta
	// IndexChanges are index-file changes of the bucket (deletion vectors
	// rewritten by a compaction that maintains them).
	IndexChanges []manifest.IndexManifestEntry
}

// merge appends o to r (Java CompactResult.merge).
func (r *CompactResult) merge(o CompactResult) {
	r.Before = append(r.Before, o.Before...)
	r.After = append(r.After, o.After...)
	r.Changelog = append(r.Changelog, o.Changelog...)
	r.IndexChanges = append(r.IndexChanges, o.IndexChanges...)
}

// Empty reports whether the result changes nothing.
func (r *CompactResult) Empty() bool {
	return len(r.Before) == 0 && len(r.After) == 0 && len(r.Changelog) == 0 && len(r.IndexChanges) == 0
}

// CompactRewriter rewrites the files of one compaction unit of one bucket
// (Java: CompactRewriter). It is the strategy point of compaction: the
// default merge-tree rewriter (MergeTreeCompactRewriter) merges and writes;
// a rewriter that maintains deletion vectors or produces a changelog
// (Java's LookupMergeTreeCompactRewriter, FullChangelogMergeTreeCompactRewriter)
// implements the same two calls, wrapping or replacing it, and is chosen by
// compactContext.newRewriter.
type CompactRewriter interface {
	// Rewrite merges sections (each a list of sorted runs whose key ranges
	// overlap; sections are disjoint and in key order) into new files on
	// outputLevel. dropDelete allows dropping retract records (see
	// DropDelete).
	Rewrite(ctx context.Context, outputLevel int, dropDelete bool, sections [][]SortedRun) (CompactResult, error)
	// Upgrade moves file to outputLevel (> its level) without rewriting it,
	// or rewrites it when the strategy needs to (a changelog producer).
	Upgrade(ctx context.Context, outputLevel int, file manifest.DataFileMeta) (CompactResult, error)
}

// upgradeFile is Java's DataFileMeta.upgrade: the same file on a higher
// level, every other field kept (name, sequence range, statistics, creation
// time, file source).
func upgradeFile(file manifest.DataFileMeta, level int) (manifest.DataFileMeta, error) {
	if level <= int(file.Level) {
		return file, fmt.Errorf("lsmwrite: upgrade of %s from level %d to level %d: the new level must be higher", file.FileName, file.Level, level)
	}
	file.Level = manifest.Level(level)
	return file, nil
}

// mergeTreeRewriter is Java's MergeTreeCompactRewriter: the sections are
// read as one stream (each section's runs merged by key with the table's
// merge function wrapped in the reducer, sections one after the other),
// retract records dropped when allowed, and written by a rolling writer on
// the output level with file source COMPACT.
type mergeTreeRewriter struct {
	c *compactContext
	b *compactBucket
}

var _ CompactRewriter = (*mergeTreeRewriter)(nil)

func (r *mergeTreeRewriter) Upgrade(_ context.Context, outputLevel int, file manifest.DataFileMeta) (CompactResult, error) {
	up, err := upgradeFile(file, outputLevel)
	if err != nil {
		return CompactResult{}, err
	}
	return CompactResult{Before: []manifest.DataFileMeta{file}, After: []manifest.DataFileMeta{up}}, nil
}

func (r *mergeTreeRewriter) Rewrite(ctx context.Context, outputLevel int, dropDelete bool, sections [][]SortedRun) (CompactResult, error) {
	w := newLevelWriter(r.c.spec, r.b.names, false, outputLevel, manifest.FileSourceCompact)
	rd := r.b.sectionsReader(ctx, sections, r.c.mff.NewReader)
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
	var res CompactResult
	for _, sec := range sections {
		for _, run := range sec {
			res.Before = append(res.Before, run.Files...)
		}
	}
	res.After = w.files
	r.b.stats.addWritten(w.files)
	return res, nil
}

// copyRecords writes every record of rd to w, dropping retract records when
// dropDelete is set (Java DropDeleteReader).
func (b *compactBucket) copyRecords(ctx context.Context, rd kv.RecordReader, w *rollingWriter, dropDelete bool) error {
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
		if !ok {
			return nil
		}
		if dropDelete && !rec.Kind.IsAdd() {
			continue
		}
		if err := w.writeKV(ctx, rec); err != nil {
			return err
		}
	}
}

// sectionReader reads sections one after the other, opening a section's
// files only when the previous section is exhausted (Java
// MergeTreeReaders.readerForMergeTree: a ConcatRecordReader of section
// readers, each a sort-merge of run readers, each a concatenation of file
// readers).
type sectionReader struct {
	ctx      context.Context
	b        *compactBucket
	sections [][]SortedRun
	merge    func(runs []kv.RecordReader, keyCmp kv.Comparator) *kv.SortMergeReader
	next     int
	cur      *kv.SortMergeReader
	closed   bool
}

var _ kv.RecordReader = (*sectionReader)(nil)

func (b *compactBucket) sectionsReader(ctx context.Context, sections [][]SortedRun,
	merge func(runs []kv.RecordReader, keyCmp kv.Comparator) *kv.SortMergeReader) *sectionReader {
	return &sectionReader{ctx: ctx, b: b, sections: sections, merge: merge}
}

func (s *sectionReader) Next() (kv.KeyValue, bool, error) {
	if s.closed {
		return kv.KeyValue{}, false, errors.New("lsmwrite: section reader: Next after Close")
	}
	for {
		if s.cur != nil {
			rec, ok, err := s.cur.Next()
			if err != nil || ok {
				return rec, ok, err
			}
			err = s.cur.Close()
			s.cur = nil
			if err != nil {
				return kv.KeyValue{}, false, err
			}
		}
		if s.next >= len(s.sections) {
			return kv.KeyValue{}, false, nil
		}
		sec := s.sections[s.next]
		s.next++
		runs := make([]kv.RecordReader, 0, len(sec))
		for _, run := range sec {
			files := make([]kv.RecordReader, 0, len(run.Files))
			for i := range run.Files {
				fr, err := s.b.openKeyValues(s.ctx, &run.Files[i])
				if err != nil {
					closeReaders(files)
					closeReaders(runs)
					return kv.KeyValue{}, false, err
				}
				files = append(files, fr)
			}
			runs = append(runs, kv.NewConcatReader(files...))
		}
		s.cur = s.merge(runs, s.b.c.keyCmp)
	}
}

func (s *sectionReader) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cur != nil {
		err := s.cur.Close()
		s.cur = nil
		return err
	}
	return nil
}

func closeReaders(rs []kv.RecordReader) {
	for _, r := range rs {
		_ = r.Close()
	}
}
