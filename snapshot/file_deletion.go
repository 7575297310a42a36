package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// CleanStats count what a maintenance operation (expiration, tag deletion,
// orphan-file cleaning) deleted.
type CleanStats struct {
	DataFiles      int   // data files (and their extra files)
	ChangelogFiles int   // changelog files
	MetadataFiles  int   // manifests, manifest lists, index manifests, statistics
	IndexFiles     int   // deletion-vector and HASH index files
	BytesFreed     int64 // sizes recorded in the metadata of the deleted files
	// FailedDeletes counts files that could not be deleted; they stay as
	// orphans (remove_orphan_files deletes them later), as in Java.
	FailedDeletes int
	// FirstError is the first failed delete, for the log.
	FirstError error
}

func (s *CleanStats) Add(o CleanStats) {
	s.DataFiles += o.DataFiles
	s.ChangelogFiles += o.ChangelogFiles
	s.MetadataFiles += o.MetadataFiles
	s.IndexFiles += o.IndexFiles
	s.BytesFreed += o.BytesFreed
	s.FailedDeletes += o.FailedDeletes
	if s.FirstError == nil {
		s.FirstError = o.FirstError
	}
}

// fileDeletion deletes the files of snapshots that are being dropped (Java:
// FileDeletionBase, SnapshotDeletion, TagDeletion, ChangelogDeletion).
// Deletes are quiet: a missing file is fine and a failed delete is counted
// and skipped, so an interrupted run can be repeated.
type fileDeletion struct {
	st    storage.Storage
	paths *filePaths
	stats CleanStats
}

func newFileDeletion(st storage.Storage, paths *filePaths) *fileDeletion {
	return &fileDeletion{st: st, paths: paths}
}

func isNotExist(err error) bool { return errors.Is(err, storage.ErrNotExist) }

// remove deletes one file quietly; ok is false when the delete failed.
func (d *fileDeletion) remove(ctx context.Context, f filePath) bool {
	if err := deleteFile(ctx, d.st, f); err != nil {
		d.stats.FailedDeletes++
		if d.stats.FirstError == nil {
			d.stats.FirstError = fmt.Errorf("snapshot: delete %s: %w", f.path, err)
		}
		return false
	}
	return true
}

func (d *fileDeletion) removeMetadata(ctx context.Context, name string, size int64) {
	if d.remove(ctx, filePath{path: manifestPath(name)}) {
		d.stats.MetadataFiles++
		d.stats.BytesFreed += size
	}
}

// dataFileKey identifies a data file within a table: Java compares
// (partition, bucket, file name).
func dataFileKey(e *manifest.ManifestEntry) string {
	return string(e.Partition) + "\x00" + strconv.Itoa(int(e.Bucket)) + "\x00" + e.File.FileName
}

// fileSet is a set of data files by dataFileKey.
type fileSet map[string]struct{}

func (s fileSet) has(e *manifest.ManifestEntry) bool { _, ok := s[dataFileKey(e)]; return ok }

// tryManifestList reads a manifest list; a list that cannot be read (an
// interrupted earlier run deleted it) reads as empty, as in Java.
func (d *fileDeletion) tryManifestList(ctx context.Context, name string) []manifest.ManifestFileMeta {
	if name == "" {
		return nil
	}
	ms, err := CachedManifestList(ctx, d.st, name)
	if err != nil {
		return nil
	}
	return ms
}

// cleanUnusedDataFiles deletes the data files that the manifests of list
// (a delta list) DELETE and do not ADD back (an upgraded file keeps its
// name and is not deleted), unless skip keeps them. When a manifest cannot
// be read nothing is deleted.
func (d *fileDeletion) cleanUnusedDataFiles(ctx context.Context, list string, skip func(e *manifest.ManifestEntry) bool) error {
	type cand struct {
		e     *manifest.ManifestEntry
		order int
	}
	byPath := map[string]cand{}
	n := 0
	for _, m := range d.tryManifestList(ctx, list) {
		es, err := CachedManifest(ctx, d.st, m.FileName)
		if err != nil {
			return nil // Java: cancel the deletion when a manifest is unreadable
		}
		for i := range es {
			e := &es[i]
			f, _, err := d.paths.dataFile(e)
			if err != nil {
				return err
			}
			switch e.Kind {
			case manifest.FileKindAdd:
				delete(byPath, f.path)
			case manifest.FileKindDelete:
				byPath[f.path] = cand{e: e, order: n}
				n++
			}
		}
	}
	ordered := make([]*manifest.ManifestEntry, n)
	for _, c := range byPath {
		ordered[c.order] = c.e
	}
	for _, e := range ordered {
		if e == nil || skip != nil && skip(e) {
			continue
		}
		d.removeDataFile(ctx, e, false)
	}
	return nil
}

func (d *fileDeletion) removeDataFile(ctx context.Context, e *manifest.ManifestEntry, changelog bool) {
	f, extras, err := d.paths.dataFile(e)
	if err != nil {
		d.stats.FailedDeletes++
		return
	}
	if !d.remove(ctx, f) {
		return
	}
	if changelog {
		d.stats.ChangelogFiles++
	} else {
		d.stats.DataFiles++
	}
	d.stats.BytesFreed += e.File.FileSize
	for _, x := range extras {
		d.remove(ctx, x)
	}
}

// deleteAddedFiles deletes every file the manifests of list ADD (the
// changelog files of a changelog manifest list).
func (d *fileDeletion) deleteAddedFiles(ctx context.Context, list string) {
	for _, m := range d.tryManifestList(ctx, list) {
		es, err := CachedManifest(ctx, d.st, m.FileName)
		if err != nil {
			continue // Java ignores unreadable changelog manifests
		}
		for i := range es {
			if es[i].Kind == manifest.FileKindAdd {
				d.removeDataFile(ctx, &es[i], true)
			}
		}
	}
}

// liveFiles returns the data files live in snap.
func (d *fileDeletion) liveFiles(ctx context.Context, snap *Snapshot) (fileSet, error) {
	live, _, err := Scan(ctx, d.st, snap, ScanOptions{})
	if err != nil {
		return nil, err
	}
	out := make(fileSet, len(live))
	for i := range live {
		out[dataFileKey(&live[i])] = struct{}{}
	}
	return out, nil
}

// manifestSkippingSet adds the metadata files the snapshots use to into:
// base and delta manifest lists and their manifests, the index manifest
// and its index files, statistics (Java: FileDeletionBase; the changelog
// list is each snapshot's own and is not protected). Unlike the data-file
// scans it fails on any unreadable file: then nothing may be deleted.
func (d *fileDeletion) manifestSkippingSet(ctx context.Context, snaps []*Snapshot, into map[string]bool) error {
	return d.manifestSkippingSetOf(ctx, snaps, into, false)
}

// manifestSkippingSetOf is manifestSkippingSet; with gone, lists and index
// manifests that no longer exist are skipped instead of failing (Java:
// ChangelogDeletion.manifestSkippingSet, for long-lived changelogs whose
// lists went with their snapshots).
func (d *fileDeletion) manifestSkippingSetOf(ctx context.Context, snaps []*Snapshot, into map[string]bool, gone bool) error {
	for _, s := range snaps {
		for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
			if list == "" || gone && !d.listExists(ctx, list) {
				continue
			}
			into[list] = true
			ms, err := CachedManifestList(ctx, d.st, list)
			if err != nil {
				return err
			}
			for _, m := range ms {
				into[m.FileName] = true
			}
		}
		if s.IndexManifest != nil && *s.IndexManifest != "" {
			es, err := CachedIndexManifest(ctx, d.st, *s.IndexManifest)
			switch {
			case gone && isNotExist(err):
			case err != nil:
				return err
			default:
				into[*s.IndexManifest] = true
				for _, e := range es {
					into[e.IndexFile.FileName] = true
				}
			}
		}
		if s.Statistics != nil {
			into[*s.Statistics] = true
		}
	}
	return nil
}

// cleanUnusedManifestList deletes the manifests of list and list itself
// unless skipping holds them; deleted manifests join skipping.
func (d *fileDeletion) cleanUnusedManifestList(ctx context.Context, list string, size *int64, skipping map[string]bool) {
	if list == "" {
		return
	}
	for _, m := range d.tryManifestList(ctx, list) {
		if !skipping[m.FileName] {
			d.removeMetadata(ctx, m.FileName, m.FileSize)
			skipping[m.FileName] = true
		}
	}
	if !skipping[list] {
		var n int64
		if size != nil {
			n = *size
		}
		d.removeMetadata(ctx, list, n)
	}
}

// cleanUnusedManifests deletes the metadata files of snap that skipping
// does not hold: its manifest lists (and manifests) when dataLists, its
// changelog list when changelog, its index manifest and the index files
// it lists, and its statistics file (Java:
// FileDeletionBase.cleanUnusedManifests).
func (d *fileDeletion) cleanUnusedManifests(ctx context.Context, snap *Snapshot, skipping map[string]bool, dataLists, changelog bool) error {
	if dataLists {
		d.cleanUnusedManifestList(ctx, snap.BaseManifestList, snap.BaseManifestListSize, skipping)
		d.cleanUnusedManifestList(ctx, snap.DeltaManifestList, snap.DeltaManifestListSize, skipping)
	}
	if changelog && snap.ChangelogManifestList != nil {
		d.cleanUnusedManifestList(ctx, *snap.ChangelogManifestList, snap.ChangelogManifestListSize, skipping)
	}
	if snap.IndexManifest != nil && *snap.IndexManifest != "" {
		es, err := CachedIndexManifest(ctx, d.st, *snap.IndexManifest)
		switch {
		case isNotExist(err):
		case err != nil:
			return err
		default:
			for i := range es {
				if skipping[es[i].IndexFile.FileName] {
					continue
				}
				f, err := d.paths.indexFile(&es[i])
				if err != nil {
					return err
				}
				if d.remove(ctx, f) {
					d.stats.IndexFiles++
					d.stats.BytesFreed += es[i].IndexFile.FileSize
				}
			}
			if !skipping[*snap.IndexManifest] {
				d.removeMetadata(ctx, *snap.IndexManifest, 0)
			}
		}
	}
	if snap.Statistics != nil && !skipping[*snap.Statistics] {
		if d.remove(ctx, filePath{path: StatisticsDir + "/" + *snap.Statistics}) {
			d.stats.MetadataFiles++
		}
	}
	return nil
}
