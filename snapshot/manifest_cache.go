package snapshot

import (
	"context"
	"fmt"
	"sync"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Manifest files are immutable once written (every commit writes files under
// new names), so decoded manifests are cached process-wide by location. This
// makes repeated planning — point lookups, lookup joins, key checks of
// INSERT IGNORE — cost a snapshot read instead of a manifest decode.
//
// The cache holds at most maxCachedEntries decoded records and evicts the
// oldest files first. Cached slices are shared and must not be modified.
type manifestCache struct {
	mu      sync.Mutex
	files   map[string]cachedManifest
	order   []string
	entries int
}

type cachedManifest struct {
	lists   []manifest.ManifestFileMeta
	entries []manifest.ManifestEntry
	index   []manifest.IndexManifestEntry
	n       int
}

const maxCachedEntries = 1 << 20

var manifests = &manifestCache{files: map[string]cachedManifest{}}

func (c *manifestCache) get(key string) (cachedManifest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.files[key]
	return m, ok
}

func (c *manifestCache) put(key string, m cachedManifest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.files[key]; ok || m.n > maxCachedEntries/4 {
		return
	}
	c.files[key] = m
	c.order = append(c.order, key)
	c.entries += m.n
	for c.entries > maxCachedEntries && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.entries -= c.files[old].n
		delete(c.files, old)
	}
}

func cacheKey(st storage.Storage, name string) string { return st.URL() + "|" + name }

// CachedManifestList reads (or finds cached) a manifest list.
func CachedManifestList(ctx context.Context, st storage.Storage, name string) ([]manifest.ManifestFileMeta, error) {
	key := cacheKey(st, name)
	if m, ok := manifests.get(key); ok {
		return m.lists, nil
	}
	data, err := st.ReadAll(ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read manifest list %s: %w", name, err)
	}
	ms, err := manifest.ReadManifestList(data, name)
	if err != nil {
		return nil, err
	}
	manifests.put(key, cachedManifest{lists: ms, n: len(ms) + 1})
	return ms, nil
}

// CachedManifest reads (or finds cached) a manifest file.
func CachedManifest(ctx context.Context, st storage.Storage, name string) ([]manifest.ManifestEntry, error) {
	key := cacheKey(st, name)
	if m, ok := manifests.get(key); ok {
		return m.entries, nil
	}
	data, err := st.ReadAll(ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read manifest %s: %w", name, err)
	}
	es, err := manifest.ReadManifest(data, name)
	if err != nil {
		return nil, err
	}
	manifests.put(key, cachedManifest{entries: es, n: len(es) + 1})
	return es, nil
}

// CachedIndexManifest reads (or finds cached) an index manifest.
func CachedIndexManifest(ctx context.Context, st storage.Storage, name string) ([]manifest.IndexManifestEntry, error) {
	key := cacheKey(st, name)
	if m, ok := manifests.get(key); ok {
		return m.index, nil
	}
	data, err := st.ReadAll(ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read index manifest %s: %w", name, err)
	}
	es, err := manifest.ReadIndexManifest(data, name)
	if err != nil {
		return nil, err
	}
	manifests.put(key, cachedManifest{index: es, n: len(es) + 1})
	return es, nil
}
