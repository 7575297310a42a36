package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// Branch operations (Java: FileSystemBranchManager). A branch is the
// folder branch/branch-<name>/ with its own schema/, snapshot/ and tag/
// folders; it shares the table's manifest and data files.

// CreateBranch creates branch name from the handle's branch (Java:
// FileSystemBranchManager.createBranch). Without a tag the branch is empty:
// it gets copies of the schemas up to the latest one. From a tag it gets a
// copy of the tag, of the tagged snapshot (the tag's snapshot JSON when the
// snapshot has expired) and of the schemas up to the snapshot's; it then
// starts at that snapshot. An existing branch gives ErrBranchExists.
func (t *Table) CreateBranch(ctx context.Context, name, fromTag string) error {
	if err := ValidateBranchName(name); err != nil {
		return err
	}
	if ok, err := t.branches.Exists(ctx, name); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("%w: %q", ErrBranchExists, name)
	}
	if fromTag == "" {
		id, ok, err := t.schemas.LatestID(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: the table has no schema", ErrSchemaNotFound)
		}
		return t.copySchemas(ctx, name, id)
	}
	tag, err := t.tags.Get(ctx, fromTag)
	if err != nil {
		return err
	}
	if err := t.copySchemas(ctx, name, tag.SchemaID); err != nil {
		return err
	}
	tagData, err := t.store.ReadAll(ctx, t.tags.Path(fromTag))
	if err != nil {
		return fmt.Errorf("snapshot: read tag %q: %w", fromTag, err)
	}
	if err := t.store.WriteAll(ctx, TagPath(name, fromTag), tagData); err != nil {
		return fmt.Errorf("snapshot: create branch %q: %w", name, err)
	}
	snapData, err := t.store.ReadAll(ctx, t.snapshots.Path(tag.ID))
	if isNotExist(err) {
		snapData, err = EncodeSnapshot(&tag.Snapshot)
	}
	if err != nil {
		return fmt.Errorf("snapshot: create branch %q: %w", name, err)
	}
	if err := t.store.WriteAll(ctx, SnapshotPath(name, tag.ID), snapData); err != nil {
		return fmt.Errorf("snapshot: create branch %q: %w", name, err)
	}
	return nil
}

// copySchemas copies schema-0 … schema-upto (those that exist) of the
// handle's branch into branch name.
func (t *Table) copySchemas(ctx context.Context, name string, upto schema.SchemaID) error {
	for id := schema.SchemaID(0); id <= upto; id++ {
		data, err := t.store.ReadAll(ctx, t.schemas.Path(id))
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("snapshot: create branch %q: %w", name, err)
		}
		if err := t.store.WriteAll(ctx, SchemaPath(name, id), data); err != nil {
			return fmt.Errorf("snapshot: create branch %q: %w", name, err)
		}
	}
	return nil
}

// DeleteBranch removes every file of branch name (Java:
// FileSystemBranchManager.dropBranch). Data and manifest files only the
// branch used stay as orphans for orphan-file cleaning. A branch that is
// the table's scan.fallback-branch is refused, as in Java.
func (t *Table) DeleteBranch(ctx context.Context, name string) error {
	if IsMainBranch(name) {
		return fmt.Errorf("%w: the main branch cannot be deleted", ErrInvalidName)
	}
	if err := t.branches.Check(ctx, name); err != nil {
		return err
	}
	if ts, err := t.schemas.Latest(ctx); err == nil && strings.TrimSpace(ts.Options[schema.OptScanFallbackBranch]) == name {
		return fmt.Errorf("%w: branch %q is the table's 'scan.fallback-branch'; reset that option before deleting the branch", ErrInvalidConfig, name)
	}
	var paths []string
	for info, err := range t.store.List(ctx, BranchDir(name)+"/") {
		if err != nil {
			return fmt.Errorf("snapshot: delete branch %q: %w", name, err)
		}
		paths = append(paths, info.Path)
	}
	for _, p := range paths {
		if err := t.store.Delete(ctx, p); err != nil && !isNotExist(err) {
			return fmt.Errorf("snapshot: delete branch %q: %w", name, err)
		}
	}
	removeEmptyDirs(ctx, t.store, BranchDir(name))
	return nil
}

// FastForward makes the handle's branch (main) what branch name is (Java:
// FileSystemBranchManager.fastForward): from the branch's earliest
// snapshot E on, the snapshots, the schemas from E's schema on and the tags
// of snapshots from E on are replaced by the branch's. The branch must
// have a snapshot. Data files of the replaced snapshots stay as orphans.
func (t *Table) FastForward(ctx context.Context, name string) error {
	switch {
	case IsMainBranch(name):
		return fmt.Errorf("%w: branch name %q cannot be fast-forwarded", ErrInvalidName, name)
	case name == t.branch:
		return fmt.Errorf("%w: fast-forward from the current branch %q is not allowed", ErrInvalidName, name)
	}
	if err := t.branches.Check(ctx, name); err != nil {
		return err
	}
	defer lockMaintenance(t.store, t.branch)()
	bs := NewSnapshotManager(t.store, name)
	first, err := bs.Earliest(ctx)
	if errors.Is(err, ErrSnapshotNotFound) {
		return fmt.Errorf("%w: cannot fast-forward branch %q: it has no snapshot", ErrSnapshotNotFound, name)
	}
	if err != nil {
		return err
	}
	var doomed []string
	ids, err := t.snapshots.List(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id >= first.ID {
			doomed = append(doomed, t.snapshots.Path(id))
		}
	}
	schemaIDs, err := t.schemas.List(ctx)
	if err != nil {
		return err
	}
	for _, id := range schemaIDs {
		if id >= first.SchemaID {
			doomed = append(doomed, t.schemas.Path(id))
		}
	}
	tags, err := t.tags.All(ctx)
	if err != nil {
		return err
	}
	for _, tg := range tags {
		if tg.ID >= first.ID {
			doomed = append(doomed, t.tags.Path(tg.Name))
		}
	}
	if err := t.snapshots.deleteHint(ctx, LatestHint); err != nil {
		return err
	}
	for _, p := range doomed {
		if err := t.store.Delete(ctx, p); err != nil && !isNotExist(err) {
			return fmt.Errorf("snapshot: fast-forward: %w", err)
		}
	}
	for _, dirs := range [][2]string{
		{SnapshotDir(name), SnapshotDir(t.branch)},
		{SchemaDir(name), SchemaDir(t.branch)},
		{TagDir(name), TagDir(t.branch)},
	} {
		if err := copyDir(ctx, t.store, dirs[0], dirs[1]); err != nil {
			return fmt.Errorf("snapshot: fast-forward %q: %w", name, err)
		}
	}
	return nil
}

// copyDir copies the files directly inside folder from into folder to,
// replacing files of the same name (Java: FileIO.copyFiles).
func copyDir(ctx context.Context, st storage.Storage, from, to string) error {
	var names []string
	err := listNames(ctx, st, from, "", func(name string, _ storage.ObjectInfo) {
		if !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	})
	if err != nil {
		return err
	}
	for _, n := range names {
		data, err := st.ReadAll(ctx, join(from, n))
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := st.WriteAll(ctx, join(to, n), data); err != nil {
			return err
		}
	}
	return nil
}

// removeEmptyDirs removes dir and the empty folders below it where the
// storage has folders (local); object stores have none.
func removeEmptyDirs(ctx context.Context, st storage.Storage, dir string) {
	if r, ok := st.(storage.EmptyDirRemover); ok {
		_ = r.RemoveEmptyDirs(ctx, dir)
	}
}
