package lsmwrite

import (
	"context"
	"fmt"
	"sort"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/lookup"
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
// key range holds the key, then the key inside it through the file's
// lookup file (internal/lookup, Java's LookupFile: the file's records in
// small blocks on local disk, built on the first lookup and kept in the
// process-wide cache lsmread's point reads share, so later statements read
// one block per file). A record the file's current deletion vector marks
// is not found there. Not safe for concurrent use; Close releases the
// lookup files held.
type LookupLevels struct {
	b      *compactBucket
	levels []SortedRun // levels[i] is level i+1, files in key order
	reader *sortedrun.Reader
	layout *lookup.Layout
	suffix string // of lookup file ids: the layout
	files  map[string]*lookup.File
}

// newLookupLevels prepares lookups into levels of bucket b. values says
// whether results carry the record's value (merge engines other than
// deduplicate, sequence.field, changelog production); otherwise only keys,
// sequence numbers, kinds and positions are kept (Java's
// PositionedKeyValueProcessor without values, ContainsValueProcessor).
func (b *compactBucket) newLookupLevels(levels *Levels, values bool) *LookupLevels {
	c := b.c
	l := &LookupLevels{b: b, levels: levels.levels, reader: c.reader, files: map[string]*lookup.File{},
		layout: &lookup.Layout{KeyTypes: c.keyTypes, ValueTypes: make([]schema.DataType, len(c.sch.Fields))}}
	for i, f := range c.sch.Fields {
		l.layout.ValueTypes[i] = f.Type.WithNullable(true)
	}
	// The id lsmread's point reads give a file read with the whole schema
	// in UTC, so both build one lookup file.
	l.suffix = fmt.Sprintf("#%d#UTC", c.sch.ID)
	if !values {
		l.reader = c.keyReader
		l.suffix += "#keys"
	}
	return l
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
	lf := l.files[f.FileName]
	if lf == nil {
		if err := checkParquet(f); err != nil {
			return LookupResult{}, false, err
		}
		sf := l.b.file(f)
		id := l.b.c.st.URL() + "/" + sf.Dir + f.FileName + l.suffix
		var err error
		lf, err = lookup.Shared.Get(ctx, id, lookup.Source{Layout: l.layout, Level: int(f.Level),
			Open: func(ctx context.Context) (kv.RecordReader, error) {
				l.b.stats.BytesRead += f.FileSize
				return l.reader.OpenKeyValues(ctx, sf)
			}})
		if err != nil {
			return LookupResult{}, false, fmt.Errorf("lsmwrite: lookup file of %s: %w", f.FileName, err)
		}
		l.files[f.FileName] = lf
	}
	rec, ok, err := lf.Find(key)
	if err != nil {
		return LookupResult{}, false, fmt.Errorf("lsmwrite: lookup in %s: %w", f.FileName, err)
	}
	if !ok {
		return LookupResult{}, false, nil
	}
	if vec := l.b.deletionVector(f.FileName); vec != nil && vec.IsDeleted(rec.Pos) {
		return LookupResult{}, false, nil
	}
	rec.KeyValue.Level = int(f.Level) // the file may have moved up since its lookup file was built
	return LookupResult{KV: rec.KeyValue, File: f.FileName, Position: rec.Pos, Level: int(f.Level)}, true, nil
}

// Close releases the lookup files the lookups used.
func (l *LookupLevels) Close() error {
	for name, lf := range l.files {
		lookup.Shared.Release(lf)
		delete(l.files, name)
	}
	return nil
}
