package snapshot

import (
	"context"
	"fmt"
	"sync"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Manifest files are immutable once written (every commit writes files under
// new names), so decoded manifests are cached process-wide by location. This
// makes repeated planning — point lookups, lookup joins, key checks of
// INSERT IGNORE — cost a snapshot read instead of a manifest decode.
//
// The cache holds at most maxEntries decoded records (SetManifestCacheEntries;
// DefaultManifestCacheEntries) and evicts the oldest files first. Cached
// slices are shared and must not be modified. Lookups count in
// lakesql_manifest_cache_{hits,misses}_total.
type manifestCache struct {
	mu         sync.Mutex
	files      map[string]cachedManifest
	order      []string
	entries    int
	maxEntries int
}

type cachedManifest struct {
	lists   []manifest.ManifestFileMeta
	entries []manifest.ManifestEntry
	index   []manifest.IndexManifestEntry
	n       int
}

// DefaultManifestCacheEntries is the default bound of the decoded-manifest
// cache, in records (about 1 KiB each for a data-file entry).
const DefaultManifestCacheEntries = 1 << 20

var manifests = &manifestCache{files: map[string]cachedManifest{}, maxEntries: DefaultManifestCacheEntries}

// SetManifestCacheEntries bounds the process-wide decoded-manifest cache to
// n records (0 disables it), evicting what no longer fits.
func SetManifestCacheEntries(n int) {
	c := manifests
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxEntries = max(n, 0)
	c.evictLocked()
}

func (c *manifestCache) get(key string) (cachedManifest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.files[key]
	if ok {
		metrics.ManifestCacheHits.Inc()
	} else {
		metrics.ManifestCacheMisses.Inc()
	}
	return m, ok
}

func (c *manifestCache) put(key string, m cachedManifest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.files[key]; ok || m.n > c.maxEntries/4 {
		return
	}
	c.files[key] = m
	c.order = append(c.order, key)
	c.entries += m.n
	c.evictLocked()
}

func (c *manifestCache) evictLocked() {
	for c.entries > c.maxEntries && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.entries -= c.files[old].n
		delete(c.files, old)
	}
}

func cacheKey(st storage.Storage, name string) string { return st.URL() + "|" + name }

// cachedRead returns what get finds in the cached record of name, or
// reads and decodes the file and caches it with set.
func cachedRead[T any](ctx context.Context, st storage.Storage, name, what string,
	decode func(data []byte, name string) ([]T, error), get func(cachedManifest) []T, set func([]T) cachedManifest) ([]T, error) {
	key := cacheKey(st, name)
	if m, ok := manifests.get(key); ok {
		return get(m), nil
	}
	data, err := st.ReadAll(ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read %s %s: %w", what, name, err)
	}
	out, err := decode(data, name)
	if err != nil {
		return nil, err
	}
	m := set(out)
	m.n = len(out) + 1
	manifests.put(key, m)
	return out, nil
}

// CachedManifestList reads (or finds cached) a manifest list.
func CachedManifestList(ctx context.Context, st storage.Storage, name string) ([]manifest.ManifestFileMeta, error) {
	return cachedRead(ctx, st, name, "manifest list", manifest.ReadManifestList,
		func(m cachedManifest) []manifest.ManifestFileMeta { return m.lists },
		func(v []manifest.ManifestFileMeta) cachedManifest { return cachedManifest{lists: v} })
}

// CachedManifest reads (or finds cached) a manifest file.
func CachedManifest(ctx context.Context, st storage.Storage, name string) ([]manifest.ManifestEntry, error) {
	return cachedRead(ctx, st, name, "manifest", manifest.ReadManifest,
		func(m cachedManifest) []manifest.ManifestEntry { return m.entries },
		func(v []manifest.ManifestEntry) cachedManifest { return cachedManifest{entries: v} })
}

// CachedIndexManifest reads (or finds cached) an index manifest.
func CachedIndexManifest(ctx context.Context, st storage.Storage, name string) ([]manifest.IndexManifestEntry, error) {
	return cachedRead(ctx, st, name, "index manifest", manifest.ReadIndexManifest,
		func(m cachedManifest) []manifest.IndexManifestEntry { return m.index },
		func(v []manifest.IndexManifestEntry) cachedManifest { return cachedManifest{index: v} })
}
