package snapshot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// OrphanResult says what orphan-file cleaning found (and deleted unless it
// was a dry run).
type OrphanResult struct {
	Files int   // files deleted (or, in a dry run, that would be)
	Bytes int64 // their total size
	// Paths are the files, relative to the table root (at most 1000).
	Paths []string
}

// maxOrphanPaths bounds OrphanResult.Paths.
const maxOrphanPaths = 1000

// RemoveOrphanFiles deletes the files of the table that no snapshot, tag or
// long-lived changelog of any branch references and that were last
// modified before olderThan (Java: LocalOrphanFilesClean.clean): data,
// changelog and extra files in the bucket folders, manifests, manifest
// lists, index manifests, index and statistics files, stray files in
// the snapshot and changelog folders of every branch (see usedFiles for
// what counts as referenced), the clock probes earlier lakesql versions
// left at the top of the table folder, and the local store's hidden temporary
// files in any folder of the table (Java deletes those of the folders it
// lists, as they are unreferenced; lakesql also those of the schema, tag
// and branch folders). Every branch must have a schema, else nothing is
// deleted. olderThan guards files being written right now (the default
// of the procedure is a day ago).
func RemoveOrphanFiles(ctx context.Context, st storage.Storage, olderThan time.Time, dryRun bool) (OrphanResult, error) {
	var res OrphanResult
	ts, err := NewSchemaManager(st, "").Latest(ctx)
	if err != nil {
		return res, err
	}
	branches := []string{MainBranch}
	bs, err := NewBranchManager(st).List(ctx)
	if err != nil {
		return res, err
	}
	for _, b := range bs {
		if _, ok, err := NewSchemaManager(st, b.Name).LatestID(ctx); err != nil {
			return res, err
		} else if !ok {
			return res, fmt.Errorf("%w: branch %q has no schema: orphan-file cleaning aborted, check the branch by hand", ErrInvalidConfig, b.Name)
		}
		branches = append(branches, b.Name)
	}
	old := func(info storage.ObjectInfo) bool { return info.ModTime.Before(olderThan) }
	remove := func(info storage.ObjectInfo) {
		res.Files++
		res.Bytes += info.Size
		if len(res.Paths) < maxOrphanPaths {
			res.Paths = append(res.Paths, info.Path)
		}
		if !dryRun {
			_ = st.Delete(ctx, info.Path)
		}
	}

	// Stray files in the snapshot and changelog folders.
	for _, b := range branches {
		for _, dir := range []struct{ dir, prefix string }{{SnapshotDir(b), snapshotPrefix}, {ChangelogDir(b), changelogPrefix}} {
			err := listNames(ctx, st, dir.dir, "", func(name string, info storage.ObjectInfo) {
				if !strings.HasPrefix(name, dir.prefix) && name != EarliestHint && name != LatestHint && old(info) {
					remove(info)
				}
			})
			if err != nil {
				return res, err
			}
		}
	}

	// Temporary files a writer killed before publishing left anywhere in
	// the table (schema, tag, branch folders too): nothing references
	// them, and the guard keeps the ones being written.
	var dirs []string
	for info, err := range storage.ListTemps(ctx, st, "") {
		if err != nil {
			return res, err
		}
		if old(info) {
			remove(info)
			if i := strings.LastIndexByte(info.Path, '/'); i > 0 {
				dirs = append(dirs, info.Path[:i])
			}
		}
	}

	// Candidates: the files of the manifest, index and statistics folders
	// and of the bucket folders.
	nParts := len(ts.PartitionKeys)
	var candidates []storage.ObjectInfo
	for info, err := range st.List(ctx, "") {
		if err != nil {
			return res, err
		}
		if isPaimonFile(info.Path, nParts) && old(info) {
			candidates = append(candidates, info)
		} else if strings.HasPrefix(info.Path, legacyClockProbePrefix) && old(info) {
			remove(info)
		}
	}
	var used used
	if len(candidates) > 0 {
		if used, err = usedFilesSettled(ctx, st, branches); err != nil {
			return res, err
		}
	}
	for _, info := range candidates {
		if used.names[baseName(info.Path)] {
			continue
		}
		remove(info)
		if i := strings.LastIndexByte(info.Path, '/'); i > 0 {
			dirs = append(dirs, info.Path[:i])
		}
	}
	if !dryRun {
		for _, dir := range dirs {
			if strings.HasPrefix(dir, "bucket-") || strings.Contains(dir, "=") {
				// The bucket folder, then its partition folders.
				top, _, _ := strings.Cut(dir, "/")
				removeEmptyDirs(ctx, st, top)
			}
		}
	}
	return res, nil
}

// legacyClockProbePrefix starts the name of the empty probe object lakesql
// before the warehouse's one store clock (storage.Clock, whose probes go to
// the private folder) wrote at the top of a table folder to read the
// store's time, ".lakesql-clock-<uuid>": one whose CREATE TABLE was killed
// before deleting it is an orphan.
const legacyClockProbePrefix = ".lakesql-clock-"

// used are the names of the files some snapshot, tag or long-lived
// changelog of a table references (file names carry a UUID, so a name
// identifies a file; matching names, as Java does, does not depend on
// partition paths computed with today's options).
type used struct {
	names map[string]bool
}

// usedFiles collects what every branch references. Metadata files count
// when any snapshot, tag or changelog lists them (as in Java); data files
// when they are live in a snapshot or tag, or belong to a changelog (the
// changelog files of a snapshot, the files a long-lived changelog's
// snapshot added). A file only dead manifest entries mention (added and
// deleted before the earliest snapshot, kept by a tag a rollback removed)
// is not used: Java keeps such files, lakesql deletes them.
// usedFilesSettled is usedFiles, scanned again when a file it reads is
// gone: an expiration running meanwhile deletes the manifests of the
// snapshots it expires before their snapshot files, so a scan can list a
// snapshot whose manifests just went. The scan is repeated (the expired
// snapshot is no longer listed then) a few times before a missing file is
// taken for what it is, a broken table.
func usedFilesSettled(ctx context.Context, st storage.Storage, branches []string) (used, error) {
	for attempt := 0; ; attempt++ {
		u, err := usedFiles(ctx, st, branches)
		if err == nil || !isNotExist(err) || attempt == 10 {
			return u, err
		}
		select {
		case <-ctx.Done():
			return u, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
		}
	}
}

func usedFiles(ctx context.Context, st storage.Storage, branches []string) (used, error) {
	u := used{names: map[string]bool{}}
	visit := func(e *manifest.ManifestEntry) {
		u.names[e.File.FileName] = true
		for _, x := range e.File.ExtraFiles {
			u.names[x] = true
		}
	}
	d := &fileDeletion{st: st}
	bm := NewBranchManager(st)
	for _, b := range branches {
		snaps, err := d.referencedData(ctx, bm, b, visit)
		if err != nil {
			return u, err
		}
		logs, err := NewChangelogManager(st, b).All(ctx)
		if err != nil {
			return u, err
		}
		for _, c := range logs {
			if err := d.visitEntries(ctx, c.DeltaManifestList, manifest.FileKindAdd, visit); err != nil && !isNotExist(err) {
				return u, err
			}
		}
		for _, s := range append(snaps, logs...) {
			if s.ChangelogManifestList != nil {
				if err := d.visitEntries(ctx, *s.ChangelogManifestList, manifest.FileKindAdd, visit); err != nil && !isNotExist(err) {
					return u, err
				}
			}
			if err := d.metadataNames(ctx, s, u.names); err != nil {
				return u, err
			}
		}
	}
	return u, nil
}

// isPaimonFile reports whether path (relative to the table root) is a file
// orphan cleaning considers: manifest/<f>, index/<f>, statistics/<f>, or
// <k=v>/…/bucket-<n>/<f> with one k=v folder per partition key.
func isPaimonFile(path string, nParts int) bool {
	parts := strings.Split(path, "/")
	if len(parts) == 2 && (parts[0] == manifest.ManifestDir || parts[0] == dv.IndexDir || parts[0] == StatisticsDir) {
		return true
	}
	if len(parts) != nParts+2 || !strings.HasPrefix(parts[nParts], "bucket-") {
		return false
	}
	for _, p := range parts[:nParts] {
		if !strings.Contains(p, "=") {
			return false
		}
	}
	return true
}

// metadataNames adds the names of the metadata files snapshot s
// references to names (Java: OrphanFilesClean.collectWithoutDataFile):
// its manifest lists and their manifests, its index manifest and index
// files, its statistics file. Missing lists are skipped.
func (d *fileDeletion) metadataNames(ctx context.Context, s *Snapshot, names map[string]bool) error {
	lists := []string{s.DeltaManifestList, s.BaseManifestList}
	if s.ChangelogManifestList != nil {
		lists = append(lists, *s.ChangelogManifestList)
	}
	for _, list := range lists {
		if list == "" {
			continue
		}
		names[list] = true
		ms, err := CachedManifestList(ctx, d.st, list)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		for _, m := range ms {
			names[m.FileName] = true
		}
	}
	if s.IndexManifest != nil && *s.IndexManifest != "" {
		es, err := CachedIndexManifest(ctx, d.st, *s.IndexManifest)
		if err != nil && !isNotExist(err) {
			return err
		}
		if err == nil {
			names[*s.IndexManifest] = true
			for _, e := range es {
				names[e.IndexFile.FileName] = true
			}
		}
	}
	if s.Statistics != nil {
		names[*s.Statistics] = true
	}
	return nil
}
