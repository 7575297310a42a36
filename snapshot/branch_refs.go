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
	if len(names) == 0 {
		return refs, nil
	}
	if !IsMainBranch(self) {
		names = append(names, MainBranch)
	}
	d := &fileDeletion{st: st}
	for _, name := range names {
		if err := refs.addBranch(ctx, d, bm, name); err != nil {
			return refs, err
		}
	}
	return refs, nil
}

// addBranch adds what branch name references: the files live in its
// earliest snapshot plus every file a later snapshot adds (a file live in
// any snapshot of the branch is one of these), the files of its tags, and
// the metadata files of all of them.
func (r *branchRefs) addBranch(ctx context.Context, d *fileDeletion, bm *BranchManager, name string) error {
	sm := bm.Snapshots(name)
	snaps, err := sm.All(ctx)
	if err != nil {
		return err
	}
	tags, err := bm.Tags(name).TaggedSnapshots(ctx)
	if err != nil {
		return err
	}
	addLive := func(s *Snapshot) error {
		live, err := d.liveFiles(ctx, s)
		if err != nil {
			return err
		}
		for k := range live {
			r.files[k] = struct{}{}
		}
		return nil
	}
	for _, s := range tags {
		if err := addLive(s); err != nil {
			return err
		}
	}
	for i, s := range snaps {
		if i == 0 || snaps[i-1].ID != s.ID-1 {
			if err := addLive(s); err != nil {
				return err
			}
			continue
		}
		ms, err := CachedManifestList(ctx, d.st, s.DeltaManifestList)
		if err != nil {
			return err
		}
		for _, m := range ms {
			es, err := CachedManifest(ctx, d.st, m.FileName)
			if err != nil {
				return err
			}
			for j := range es {
				if es[j].Kind == manifest.FileKindAdd {
					r.files[dataFileKey(&es[j])] = struct{}{}
				}
			}
		}
	}
	return d.manifestSkippingSet(ctx, append(snaps, tags...), r.metadata)
}
