package snapshot

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// manifestReadParallelism bounds the manifests read at once
// (Java: scan.manifest.parallelism defaults to the CPU count).
const manifestReadParallelism = 8

// LiveEntries merges the base and delta manifest lists of snap (Java:
// FileStoreScan in ScanMode.ALL, FileEntry.mergeEntries) and returns the
// live ADD entries: the data files a reader of snap sees, in manifest
// order. filter, when not nil, keeps only the entries of the partitions
// (serialized BinaryRow bytes, as in ManifestEntry.Partition) and buckets it
// accepts; it is applied to ADD and DELETE entries alike, so the result is
// the live files of the accepted buckets.
//
// Writers use it for the sequence numbers of a bucket, for conflict checks
// and to build the DELETE entries of an update. Changelog manifests are not
// read. Errors reading a manifest wrap manifest.ErrCorrupt or the storage
// error.
func LiveEntries(ctx context.Context, st storage.Storage, snap *Snapshot, filter func(partition []byte, bucket int32) bool) ([]manifest.ManifestEntry, error) {
	if snap == nil {
		return nil, fmt.Errorf("snapshot: live entries of a nil snapshot")
	}
	var keep func(*manifest.ManifestEntry) bool
	if filter != nil {
		keep = func(e *manifest.ManifestEntry) bool { return filter(e.Partition, int32(e.Bucket)) }
	}
	live, _, err := Scan(ctx, st, snap, ScanOptions{KeepEntry: keep})
	return live, err
}

// dataManifests returns the manifests of snap's base list followed by
// those of its delta list (Java: ManifestList.readDataManifests).
func dataManifests(ctx context.Context, st storage.Storage, snap *Snapshot) ([]manifest.ManifestFileMeta, error) {
	base, err := readManifestList(ctx, st, snap.BaseManifestList)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: base manifest list: %w", snap.ID, err)
	}
	delta, err := readManifestList(ctx, st, snap.DeltaManifestList)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: delta manifest list: %w", snap.ID, err)
	}
	return append(base, delta...), nil
}

// readManifestList reads the manifest list name (a file name in the
// manifest folder).
func readManifestList(ctx context.Context, st storage.Storage, name string) ([]manifest.ManifestFileMeta, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: empty manifest list name", ErrCorrupt)
	}
	data, err := st.ReadAll(ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read manifest list %s: %w", name, err)
	}
	return manifest.ReadManifestList(data, name)
}

// readIndexManifest reads the entries of an index manifest; nil name means
// no index files.
func readIndexManifest(ctx context.Context, st storage.Storage, name *string) ([]manifest.IndexManifestEntry, error) {
	if name == nil {
		return nil, nil
	}
	data, err := st.ReadAll(ctx, manifest.Path(*name))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read index manifest %s: %w", *name, err)
	}
	return manifest.ReadIndexManifest(data, *name)
}

// readManifests reads every manifest of metas with a bounded fan-out and
// returns their (filtered) entries, one slice per manifest, in order.
func readManifests(ctx context.Context, st storage.Storage, metas []manifest.ManifestFileMeta, filter func(partition []byte, bucket int32) bool) ([][]manifest.ManifestEntry, error) {
	out := make([][]manifest.ManifestEntry, len(metas))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(manifestReadParallelism)
	for i := range metas {
		name := metas[i].FileName
		g.Go(func() error {
			data, err := st.ReadAll(gctx, manifest.Path(name))
			if err != nil {
				return fmt.Errorf("snapshot: read manifest %s: %w", name, err)
			}
			var entries []manifest.ManifestEntry
			for e, err := range manifest.ManifestEntries(data, name) {
				if err != nil {
					return err
				}
				if filter == nil || filter(e.Partition, int32(e.Bucket)) {
					entries = append(entries, e)
				}
			}
			out[i] = entries
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// liveFromManifests merges the entries of metas in order and returns the
// live ADD entries.
func liveFromManifests(ctx context.Context, st storage.Storage, metas []manifest.ManifestFileMeta, filter func(partition []byte, bucket int32) bool) ([]manifest.ManifestEntry, error) {
	lists, err := readManifests(ctx, st, metas, filter)
	if err != nil {
		return nil, err
	}
	return mergeLive(lists)
}

// mergeLive applies lists of entries in order and returns the live ADDs.
func mergeLive(lists [][]manifest.ManifestEntry) ([]manifest.ManifestEntry, error) {
	m := manifest.NewEntryMerger()
	for _, list := range lists {
		for _, e := range list {
			if err := m.Add(e); err != nil {
				return nil, err
			}
		}
	}
	return m.LiveFiles(), nil
}
