package snapshot

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The live files of a snapshot (its base and delta manifests merged) depend
// only on its two manifest lists, which are immutable: they are merged once
// and cached process-wide, so planning a statement against a snapshot
// already planned costs a filter over its live files instead of a merge of
// every manifest entry (repeated point lookups, lookup joins, and tables
// with thousands of commits, whose base list is shared by the snapshots
// that follow until the next full merge).
//
// A scan through the cache gives the entries the uncached scan gives:
// manifest pruning (KeepManifest) is applied to the manifest each live
// entry came from, and KeepEntry to the live entries. The two agree
// because an ADD and the DELETE that cancels it carry the same partition,
// bucket and level, so a filter on those drops both or neither.
//
// Base and delta reuse: a commit's base list is the previous snapshot's
// base and delta manifests (until manifests are merged), so when the
// table's latest cached live set has manifests that start the new
// snapshot's, merging starts from its live files and adds only the new
// manifests' entries — a commit's first plan costs its own manifests, not
// the table's history.

// liveSet is one snapshot's merged live ADD entries.
type liveSet struct {
	key       string                      // its cache key
	metas     []manifest.ManifestFileMeta // base then delta
	entries   []manifest.ManifestEntry
	from      []int32 // index in metas of each entry's manifest
	unmatched int     // DELETE entries that matched no ADD
}

// liveCache holds recent live sets, bounded by their total entries.
type liveCache struct {
	mu         sync.Mutex
	sets       map[string]*liveSet
	latest     map[string]*liveSet // by storage URL: the last set merged
	reused     int                 // merges that started from an earlier set
	appended   int                 // of them, appends of new files only
	order      []string
	entries    int
	maxEntries int
}

// maxLiveEntries bounds the live-set cache (a data-file entry is ~1 KiB).
const maxLiveEntries = 1 << 18

var lives = &liveCache{sets: map[string]*liveSet{}, latest: map[string]*liveSet{}, maxEntries: maxLiveEntries}

func (c *liveCache) get(key string) *liveSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sets[key]
}

func (c *liveCache) put(url, key string, ls *liveSet) {
	n := len(ls.entries) + len(ls.metas) + 1
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.sets[key]; ok || n > c.maxEntries/4 {
		return
	}
	c.sets[key] = ls
	c.latest[url] = ls
	c.order = append(c.order, key)
	c.entries += n
	for c.entries > c.maxEntries && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		o := c.sets[old]
		c.entries -= len(o.entries) + len(o.metas) + 1
		delete(c.sets, old)
	}
	for u, ls := range c.latest {
		if c.sets[ls.key] != ls {
			delete(c.latest, u) // evicted (or never cached): not kept alive here
		}
	}
}

// prefixOf returns the table's latest live set when its manifests start
// metas and it has no unmatched DELETE (which a restart from its live
// files would lose), else nil.
func (c *liveCache) prefixOf(url string, metas []manifest.ManifestFileMeta) *liveSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	ls := c.latest[url]
	if ls == nil || ls.unmatched != 0 || len(ls.metas) > len(metas) {
		return nil
	}
	for i := range ls.metas {
		if ls.metas[i].FileName != metas[i].FileName {
			return nil
		}
	}
	c.reused++
	return ls
}

// cachedLiveSet returns snap's live set, merging it on a miss.
func cachedLiveSet(ctx context.Context, st storage.Storage, snap *Snapshot) (*liveSet, error) {
	key := st.URL() + "|" + snap.BaseManifestList + "|" + snap.DeltaManifestList
	if ls := lives.get(key); ls != nil {
		metrics.ManifestCacheHits.Inc()
		return ls, nil
	}
	ls := &liveSet{key: key}
	for _, list := range []string{snap.BaseManifestList, snap.DeltaManifestList} {
		ms, err := CachedManifestList(ctx, st, list)
		if err != nil {
			return nil, err
		}
		ls.metas = append(ls.metas, ms...)
	}
	prev := lives.prefixOf(st.URL(), ls.metas)
	first := 0 // the first manifest to merge
	if prev != nil {
		first = len(prev.metas)
	}
	read := make([][]manifest.ManifestEntry, len(ls.metas))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(manifestScanParallelism)
	for i := first; i < len(ls.metas); i++ {
		name := ls.metas[i].FileName
		g.Go(func() error {
			es, err := CachedManifest(gctx, st, name)
			read[i] = es
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if prev != nil && appendOnly(prev, read[first:]) {
		// Only new files, none already live: the merge is prev's live
		// files followed by the new ones (the merger keeps insertion
		// order), without re-inserting prev's files into a merger.
		n := len(prev.entries)
		for _, es := range read[first:] {
			n += len(es)
		}
		ls.entries = make([]manifest.ManifestEntry, len(prev.entries), n)
		copy(ls.entries, prev.entries)
		ls.from = make([]int32, len(prev.from), n)
		copy(ls.from, prev.from)
		for mi := first; mi < len(read); mi++ {
			for i := range read[mi] {
				ls.entries = append(ls.entries, read[mi][i])
				ls.from = append(ls.from, int32(mi))
			}
		}
		lives.mu.Lock()
		lives.appended++
		lives.mu.Unlock()
		lives.put(st.URL(), key, ls)
		return ls, nil
	}
	m := manifest.NewEntryMerger()
	from := map[manifest.FileIdentifier]int32{}
	if prev != nil {
		for i := range prev.entries {
			if err := m.Add(prev.entries[i]); err != nil {
				return nil, err
			}
			from[prev.entries[i].Identifier()] = prev.from[i]
		}
	}
	for mi, es := range read {
		for i := range es {
			if err := m.Add(es[i]); err != nil {
				return nil, err
			}
			if es[i].Kind == manifest.FileKindAdd {
				from[es[i].Identifier()] = int32(mi)
			}
		}
	}
	ls.entries = m.LiveFiles()
	ls.unmatched = m.Len() - len(ls.entries)
	ls.from = make([]int32, len(ls.entries))
	for i := range ls.entries {
		ls.from[i] = from[ls.entries[i].Identifier()]
	}
	lives.put(st.URL(), key, ls)
	return ls, nil
}

// appendOnly reports whether the new manifests' entries only add files
// that are neither live in prev nor added twice: merging them into prev's
// live files then appends them. Anything else (a DELETE, a duplicate ADD,
// which the merger reports as corrupt) takes the merger.
func appendOnly(prev *liveSet, read [][]manifest.ManifestEntry) bool {
	byName := map[string]*manifest.ManifestEntry{}
	for _, es := range read {
		for i := range es {
			e := &es[i]
			if e.Kind != manifest.FileKindAdd {
				return false
			}
			if _, dup := byName[e.File.FileName]; dup {
				return false
			}
			byName[e.File.FileName] = e
		}
	}
	if len(byName) == 0 {
		return true
	}
	for i := range prev.entries {
		if e, ok := byName[prev.entries[i].File.FileName]; ok && e.Identifier() == prev.entries[i].Identifier() {
			return false
		}
	}
	return true
}

// scan filters the live set as Scan filters a snapshot's manifests.
func (ls *liveSet) scan(opts ScanOptions) ([]manifest.ManifestEntry, ScanStats) {
	stats := ScanStats{ManifestsTotal: len(ls.metas), UnmatchedDeletes: ls.unmatched}
	var keepMeta []bool
	if opts.KeepManifest != nil {
		keepMeta = make([]bool, len(ls.metas))
		for i := range ls.metas {
			keepMeta[i] = opts.KeepManifest(&ls.metas[i])
			if !keepMeta[i] {
				stats.ManifestsPruned++
			}
		}
	}
	out := make([]manifest.ManifestEntry, 0, len(ls.entries))
	for i := range ls.entries {
		if keepMeta != nil && !keepMeta[ls.from[i]] {
			continue
		}
		if opts.KeepEntry != nil && !opts.KeepEntry(&ls.entries[i]) {
			continue
		}
		out = append(out, ls.entries[i])
	}
	return out, stats
}
