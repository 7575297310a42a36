package lsmwrite

import (
	"context"
	"sort"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// LookupStrategy says what a table's compaction looks up and why (Java
// org.apache.paimon.lookup.LookupStrategy): a key of a level-0 record is
// looked up in the deeper levels to produce a changelog (changelog-producer
// = lookup), to mark the older row deleted (deletion vectors), or to drop
// the record when the key exists (first-row).
type LookupStrategy struct {
	NeedLookup       bool
	IsFirstRow       bool
	ProduceChangelog bool
	DeletionVector   bool
}

// LookupStrategyOf reads the strategy of a primary-key table's options
// (CoreOptions.lookupStrategy).
func LookupStrategyOf(core *schema.CoreOptions, o schema.Options) (LookupStrategy, error) {
	force, err := o.ForceLookup()
	if err != nil {
		return LookupStrategy{}, err
	}
	s := LookupStrategy{
		IsFirstRow:       core.MergeEngine == schema.MergeEngineFirstRow,
		ProduceChangelog: core.ChangelogProducer == schema.ChangelogProducerLookup,
		DeletionVector:   core.DeletionVectorsEnabled,
	}
	s.NeedLookup = s.ProduceChangelog || s.DeletionVector || s.IsFirstRow || force
	return s, nil
}

// LookupResult is a record found by LookupLevels.Lookup: the live version of
// a key in the shallowest level searched (Java PositionedKeyValue). KV.Value
// is nil when the lookup does not read values (see lookupValues).
type LookupResult struct {
	KV       kv.KeyValue
	File     string // data file name
	Position int64  // row position in the file
	Level    int
}

// LookupLevels finds keys in the levels >= 1 of one bucket (Java
// LookupLevels): for each level from the start level down, the file whose
// key range holds the key, then the key inside it, with the file's deletion
// vector applied, so a result is the key's live version.
//
// Java builds a local lookup file per data file; lakesql reads each data
// file forward with a cursor instead: the keys of one compaction arrive in
// ascending order (its sections are key-ordered), so every file is read at
// most once per compaction, and only the files whose key range holds a
// looked-up key are opened. A key smaller than the previous one reopens the
// file. Not safe for concurrent use; Close releases the open files.
type LookupLevels struct {
	b       *compactBucket
	levels  []SortedRun // levels[i] is level i+1, files in key order
	reader  *sortedrun.Reader
	cursors map[string]*lookupCursor
}

// lookupCursor reads one data file forward.
type lookupCursor struct {
	rd   *sortedrun.KeyValueReader
	cur  kv.KeyValue
	has  bool // cur holds a record
	done bool // the file is exhausted
	last []any
}

// newLookupLevels prepares lookups into levels of bucket b. values says
// whether results carry the record's value (merge engines other than
// deduplicate, sequence.field, changelog production); otherwise only keys,
// sequence numbers, kinds and positions are read.
func (b *compactBucket) newLookupLevels(levels *Levels, values bool) *LookupLevels {
	r := b.c.reader
	if !values {
		r = b.c.keyReader
	}
	return &LookupLevels{b: b, levels: levels.levels, reader: r, cursors: map[string]*lookupCursor{}}
}

// Lookup returns the live version of key in the shallowest level >=
// startLevel that holds it.
func (l *LookupLevels) Lookup(ctx context.Context, key []any, startLevel int) (LookupResult, bool, error) {
	for level := max(startLevel, 1); level <= len(l.levels); level++ {
		files := l.levels[level-1].Files
		if len(files) == 0 {
			continue
		}
		// The first file whose max key is >= key.
		var berr error
		i := sort.Search(len(files), func(i int) bool {
			if berr != nil {
				return true
			}
			k, err := l.b.bounds(ctx, &files[i])
			if err != nil {
				berr = err
				return true
			}
			return l.b.c.keyCmp(k[1], key) >= 0
		})
		if berr != nil {
			return LookupResult{}, false, berr
		}
		if i == len(files) {
			continue
		}
		f := &files[i]
		k, err := l.b.bounds(ctx, f)
		if err != nil {
			return LookupResult{}, false, err
		}
		if l.b.c.keyCmp(k[0], key) > 0 {
			continue
		}
		res, ok, err := l.lookupFile(ctx, f, key)
		if err != nil {
			return LookupResult{}, false, err
		}
		if ok {
			return res, true, nil
		}
	}
	return LookupResult{}, false, nil
}

func (l *LookupLevels) lookupFile(ctx context.Context, f *manifest.DataFileMeta, key []any) (LookupResult, bool, error) {
	cmp := l.b.c.keyCmp
	c := l.cursors[f.FileName]
	if c != nil && c.last != nil && cmp(key, c.last) < 0 {
		_ = c.rd.Close()
		c = nil
	}
	if c == nil {
		if err := checkParquet(f); err != nil {
			return LookupResult{}, false, err
		}
		rd, err := l.reader.OpenKeyValuesDV(ctx, l.b.file(f), l.b.deletionVector(f.FileName))
		if err != nil {
			return LookupResult{}, false, err
		}
		l.b.stats.BytesRead += f.FileSize
		c = &lookupCursor{rd: rd}
		l.cursors[f.FileName] = c
	}
	c.last = key
	for !c.done {
		if !c.has {
			rec, ok, err := c.rd.Next()
			if err != nil {
				return LookupResult{}, false, err
			}
			if !ok {
				c.done = true
				break
			}
			c.cur, c.has = rec, true
		}
		d := cmp(c.cur.Key, key)
		if d < 0 {
			c.has = false
			continue
		}
		if d > 0 {
			return LookupResult{}, false, nil
		}
		return LookupResult{KV: c.cur, File: f.FileName, Position: c.rd.Position(), Level: int(f.Level)}, true, nil
	}
	return LookupResult{}, false, nil
}

// Close closes the files the lookups opened.
func (l *LookupLevels) Close() error {
	var first error
	for name, c := range l.cursors {
		if err := c.rd.Close(); err != nil && first == nil {
			first = err
		}
		delete(l.cursors, name)
	}
	return first
}
