package snapshot

import (
	"context"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// branchRefs are the files the other branches of a table use: a branch
// shares the table's data and manifest files, so what one branch expires
// or untags another may still read. Java ignores this (deleting a tag a
// branch was created from breaks the branch); lakesql keeps every file a
// snapshot or tag of any other branch references.
type branchRefs struct {
	files    fileSet         // data files
	metadata map[string]bool // manifest lists, manifests, index manifests and files, statistics
}

// otherBranchRefs collects the references of every branch but self (main
// included when self is a branch). With no other branch it reads nothing.
func otherBranchRefs(ctx context.Context, st storage.Storage, self string) (branchRefs, error) {
	refs := branchRefs{files: fileSet{}, metadata: map[string]bool{}}
	bm := NewBranchManager(st)
	branches, err := bm.List(ctx)
	if err != nil {
		return refs, err
	}
	var names []string
	for _, b := range branches {
		if b.Name != self {
			names = append(names, b.Name)
		}
	}
	if !IsMainBranch(self) {
		names = append(names, MainBranch)
	}
	d := &fileDeletion{st: st}
	for _, name := range names {
		snaps, err := d.referencedData(ctx, bm, name, func(e *manifest.ManifestEntry) {
			refs.files[dataFileKey(e)] = struct{}{}
		})
		if err != nil {
			return refs, err
		}
		if err := d.manifestSkippingSet(ctx, snaps, refs.metadata); err != nil {
			return refs, err
		}
	}
	return refs, nil
}

// referencedData calls visit for every data file live in some snapshot or
// tag of branch name (a file may be visited more than once) and returns
// those snapshots and tagged snapshots. The files live in any snapshot are
// those live in the earliest one plus every file a later snapshot adds
// (snapshot ids of a branch are contiguous); tags are scanned each.
func (d *fileDeletion) referencedData(ctx context.Context, bm *BranchManager, name string, visit func(e *manifest.ManifestEntry)) ([]*Snapshot, error) {
	snaps, err := bm.Snapshots(name).All(ctx)
	if err != nil {
		return nil, err
	}
	tags, err := bm.Tags(name).TaggedSnapshots(ctx)
	if err != nil {
		return nil, err
	}
	visitLive := func(s *Snapshot) error {
		live, _, err := Scan(ctx, d.st, s, ScanOptions{})
		if err != nil {
			return err
		}
		for i := range live {
			visit(&live[i])
		}
		return nil
	}
	for _, s := range tags {
		if err := visitLive(s); err != nil {
			return nil, err
		}
	}
	// An expiration deletes the manifests of the snapshots it expires
	// before their snapshot files, oldest first, as Java's does: one that
	// was stopped (a crash) or is running leaves the oldest snapshots
	// without their manifest lists. Those half-expired snapshots, a prefix
	// of the list, reference nothing any more; the first whole one is then
	// read in full. A missing list after a whole snapshot is an error.
	var kept []*Snapshot
	full, prefix := true, true
	for i, s := range snaps {
		var err error
		if full || snaps[i-1].ID != s.ID-1 {
			err = visitLive(s)
		} else {
			err = d.visitEntries(ctx, s.DeltaManifestList, manifest.FileKindAdd, visit)
		}
		if err != nil {
			if prefix && i+1 < len(snaps) && isNotExist(err) {
				continue // half-expired
			}
			return nil, err
		}
		full, prefix = false, false
		kept = append(kept, s)
	}
	return append(kept, tags...), nil
}

// visitEntries calls visit for the entries of kind in the manifests of
// list.
func (d *fileDeletion) visitEntries(ctx context.Context, list string, kind manifest.FileKind, visit func(e *manifest.ManifestEntry)) error {
	ms, err := CachedManifestList(ctx, d.st, list)
	if err != nil {
		return err
	}
	for _, m := range ms {
		es, err := CachedManifest(ctx, d.st, m.FileName)
		if err != nil {
			return err
		}
		for j := range es {
			if es[j].Kind == kind {
				visit(&es[j])
			}
		}
	}
	return nil
}
