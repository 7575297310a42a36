package snapshot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// Branch describes one branch of a table, a row of $branches.
type Branch struct {
	// Name is the branch name (the <name> of branch/branch-<name>).
	Name string
	// CreateTime approximates when the branch was created. Java's
	// BranchesTable reports the modification time of the directory
	// branch/branch-<name>; object stores have no directories, so this is
	// the earliest modification time of the files inside it (the schema
	// files copied when the branch was created).
	CreateTime time.Time
}

// BranchManager lists the branches of a table (Java:
// FileSystemBranchManager) and hands out the managers of a branch's own
// snapshot, schema, tag and consumer directories. A branch shares the
// manifests and data files of the table root. Safe for concurrent use.
type BranchManager struct {
	st storage.Storage
}

// NewBranchManager returns the branch manager of the table rooted at st.
func NewBranchManager(st storage.Storage) *BranchManager { return &BranchManager{st: st} }

// List returns every branch (besides main), sorted by name.
func (m *BranchManager) List(ctx context.Context) ([]Branch, error) {
	byName := map[string]time.Time{}
	prefix := branchDirName + "/" + branchPrefix
	for info, err := range m.st.List(ctx, prefix) {
		if err != nil {
			return nil, fmt.Errorf("snapshot: list branches: %w", err)
		}
		rest := strings.TrimPrefix(info.Path, branchDirName+"/")
		dir, _, nested := strings.Cut(rest, "/")
		if !nested {
			continue // a file, not a directory
		}
		name, ok := ParseBranchDirName(dir)
		if !ok {
			continue
		}
		if t, seen := byName[name]; !seen || info.ModTime.Before(t) {
			byName[name] = info.ModTime
		}
	}
	out := make([]Branch, 0, len(byName))
	for name, t := range byName {
		out = append(out, Branch{Name: name, CreateTime: t})
	}
	slices.SortFunc(out, func(a, b Branch) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Exists reports whether branch name exists (MainBranch always exists).
func (m *BranchManager) Exists(ctx context.Context, name string) (bool, error) {
	if IsMainBranch(name) {
		return true, nil
	}
	if err := ValidateBranchName(name); err != nil {
		return false, err
	}
	for _, err := range m.st.List(ctx, BranchDir(name)+"/") {
		if err != nil {
			return false, fmt.Errorf("snapshot: check branch %q: %w", name, err)
		}
		return true, nil
	}
	return false, nil
}

// Check returns an error wrapping ErrBranchNotFound when branch name does
// not exist.
func (m *BranchManager) Check(ctx context.Context, name string) error {
	ok, err := m.Exists(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrBranchNotFound, name)
	}
	return nil
}

// Snapshots returns the snapshot manager of branch name.
func (m *BranchManager) Snapshots(name string) *SnapshotManager {
	return NewSnapshotManager(m.st, name)
}

// Tags returns the tag manager of branch name.
func (m *BranchManager) Tags(name string) *TagManager { return NewTagManager(m.st, name) }

// Consumers returns the consumer manager of branch name.
func (m *BranchManager) Consumers(name string) *ConsumerManager {
	return NewConsumerManager(m.st, name)
}

// Schemas returns the schema manager of branch name.
func (m *BranchManager) Schemas(name string) *SchemaManager { return NewSchemaManager(m.st, name) }
