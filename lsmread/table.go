package lsmread

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// Table is a readable Paimon table: the long-lived snapshot.Table handle
// (storage, managers, live-files scan) of one branch. It is cheap to create
// and safe for concurrent use.
type Table struct {
	handle    *snapshot.Table
	store     storage.Storage
	branch    string
	snapshots *snapshot.SnapshotManager
	schemas   *snapshot.SchemaManager
	tags      *snapshot.TagManager
	branches  *snapshot.BranchManager
	// resolveExternal opens data files recorded with an absolute
	// _EXTERNAL_PATH; nil means storage.Open.
	resolveExternal func(ctx context.Context, url string) (storage.File, error)
}

// OpenTable returns the table rooted at st on branch ("" or "main" is the
// main branch).
func OpenTable(st storage.Storage, branch string) *Table {
	return FromHandle(snapshot.OpenTable(st, branch))
}

// FromHandle reads through an open table handle.
func FromHandle(h *snapshot.Table) *Table {
	return &Table{
		handle:    h,
		store:     h.Storage(),
		branch:    h.BranchName(),
		snapshots: h.Snapshots(),
		schemas:   h.Schemas(),
		tags:      h.Tags(),
		branches:  h.Branches(),
	}
}

// Handle is the table's snapshot.Table handle.
func (t *Table) Handle() *snapshot.Table { return t.handle }

// WithExternalResolver returns a copy of t that opens files recorded with an
// absolute external path through open (tests map Java's external folders
// onto local copies with it).
func (t *Table) WithExternalResolver(open func(ctx context.Context, url string) (storage.File, error)) *Table {
	c := *t
	c.resolveExternal = open
	return &c
}

// Branch returns another branch of the same table.
func (t *Table) Branch(ctx context.Context, name string) (*Table, error) {
	if name == "" || snapshot.IsMainBranch(name) {
		m := OpenTable(t.store, snapshot.MainBranch)
		m.resolveExternal = t.resolveExternal
		return m, nil
	}
	ok, err := t.branches.Exists(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: branch %q", ErrNotFound, name)
	}
	b := OpenTable(t.store, name)
	b.resolveExternal = t.resolveExternal
	return b, nil
}

// source is where the sorted-run reader opens the table's files.
func (t *Table) source() sortedrun.Source {
	return sortedrun.Source{Store: t.store, Schemas: t.schemas, OpenExternal: t.resolveExternal}
}

// Storage is the table's storage (rooted at the table directory).
func (t *Table) Storage() storage.Storage { return t.store }

// BranchName is the table's branch.
func (t *Table) BranchName() string { return t.branch }

// Snapshots is the snapshot manager of the table's branch.
func (t *Table) Snapshots() *snapshot.SnapshotManager { return t.snapshots }

// Schemas is the schema manager of the table's branch.
func (t *Table) Schemas() *snapshot.SchemaManager { return t.schemas }

// Tags is the tag manager of the table's branch.
func (t *Table) Tags() *snapshot.TagManager { return t.tags }

// Branches is the branch manager of the table.
func (t *Table) Branches() *snapshot.BranchManager { return t.branches }

// LatestSchema is the newest schema of the branch.
func (t *Table) LatestSchema(ctx context.Context) (*schema.TableSchema, error) {
	return t.schemas.Latest(ctx)
}

// TimeTravel says which snapshot to read. At most one field may be set; the
// zero value reads the latest snapshot.
type TimeTravel struct {
	SnapshotID snapshot.SnapshotID
	Tag        string
	// TimeMillis reads the latest snapshot committed at or before this time
	// (epoch milliseconds).
	TimeMillis *int64
}

func (tt TimeTravel) count() int {
	n := 0
	if tt.SnapshotID != 0 {
		n++
	}
	if tt.Tag != "" {
		n++
	}
	if tt.TimeMillis != nil {
		n++
	}
	return n
}

// ResolveSnapshot returns the snapshot tt names, or nil for an empty table
// read at latest. Unknown snapshots and tags give errors wrapping
// ErrNotFound that name them.
func (t *Table) ResolveSnapshot(ctx context.Context, tt TimeTravel) (*snapshot.Snapshot, error) {
	if tt.count() > 1 {
		return nil, fmt.Errorf("%w: more than one of snapshot, tag and timestamp given", ErrInvalidScan)
	}
	switch {
	case tt.SnapshotID != 0:
		s, err := t.snapshots.Snapshot(ctx, tt.SnapshotID)
		if err != nil {
			if errors.Is(err, snapshot.ErrSnapshotNotFound) {
				return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
			}
			return nil, err
		}
		return s, nil
	case tt.Tag != "":
		tag, err := t.tags.Get(ctx, tt.Tag)
		if err != nil {
			if errors.Is(err, snapshot.ErrTagNotFound) {
				return nil, fmt.Errorf("%w: tag %q", ErrNotFound, tt.Tag)
			}
			return nil, err
		}
		return &tag.Snapshot, nil
	case tt.TimeMillis != nil:
		s, err := t.snapshots.EarlierOrEqualTime(ctx, *tt.TimeMillis)
		if err != nil {
			if errors.Is(err, snapshot.ErrSnapshotNotFound) {
				return nil, fmt.Errorf("%w: no snapshot at or before time %d (epoch ms): %w", ErrNotFound, *tt.TimeMillis, err)
			}
			return nil, err
		}
		return s, nil
	}
	s, err := t.snapshots.Latest(ctx)
	if err != nil {
		if errors.Is(err, snapshot.ErrSnapshotNotFound) {
			return nil, nil
		}
		return nil, err
	}
	return s, nil
}
