package snapshot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// TagManager reads and writes the tags of one branch (Java:
// org.apache.paimon.utils.TagManager), files tag/tag-<name>. Safe for
// concurrent use.
//
// Creating or deleting a tag here only writes or removes the tag file. Java
// also notifies tag callbacks and, on delete, removes data files no longer
// referenced by any snapshot or tag; that cleanup belongs to expiration.
type TagManager struct {
	st     storage.Storage
	branch string
	dir    string
}

// NewTagManager returns the tag manager of branch ("" or MainBranch for
// the main branch) of the table rooted at st.
func NewTagManager(st storage.Storage, branch string) *TagManager {
	if IsMainBranch(branch) {
		branch = MainBranch
	}
	return &TagManager{st: st, branch: branch, dir: TagDir(branch)}
}

// Path returns the path of tag name, relative to the table root.
func (m *TagManager) Path(name string) string { return join(m.dir, TagFileName(name)) }

// List returns the names of all tags, sorted.
func (m *TagManager) List(ctx context.Context) ([]string, error) {
	var names []string
	err := listNames(ctx, m.st, m.dir, tagPrefix, func(name string, _ storage.ObjectInfo) {
		if n, ok := ParseTagFileName(name); ok {
			names = append(names, n)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: list tags of branch %s: %w", m.branch, err)
	}
	slices.Sort(names)
	return names, nil
}

// Exists reports whether tag name exists.
func (m *TagManager) Exists(ctx context.Context, name string) (bool, error) {
	if err := ValidateTagName(name); err != nil {
		return false, err
	}
	ok, err := m.st.Exists(ctx, m.Path(name))
	if err != nil {
		return false, fmt.Errorf("snapshot: check tag %q: %w", name, err)
	}
	return ok, nil
}

// Get reads tag name; a missing tag gives an error wrapping
// ErrTagNotFound.
func (m *TagManager) Get(ctx context.Context, name string) (*Tag, error) {
	if err := ValidateTagName(name); err != nil {
		return nil, err
	}
	p := m.Path(name)
	data, err := m.st.ReadAll(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, fmt.Errorf("%w: tag %q of branch %s", ErrTagNotFound, name, m.branch)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
	}
	t, err := DecodeTag(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return t, nil
}

// Create tags snapshot s as name. With a retention time the tag records it
// and createTime (local wall-clock time, see LocalDateTime); without one
// it is the plain snapshot JSON, as Java writes it. An existing tag gives
// an error wrapping ErrTagExists; the create is atomic
// (Storage.CreateIfNotExists), so of two racing creators one wins.
func (m *TagManager) Create(ctx context.Context, name string, s *Snapshot, retained *time.Duration, createTime time.Time) error {
	if err := ValidateTagName(name); err != nil {
		return err
	}
	data, err := EncodeTag(NewTag(s, retained, createTime))
	if err != nil {
		return err
	}
	err = m.st.CreateIfNotExists(ctx, m.Path(name), data)
	if errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("%w: tag %q of branch %s", ErrTagExists, name, m.branch)
	}
	if err != nil {
		return fmt.Errorf("snapshot: create tag %q: %w", name, err)
	}
	return nil
}

// Delete removes the tag file; a missing tag gives an error wrapping
// ErrTagNotFound.
func (m *TagManager) Delete(ctx context.Context, name string) error {
	if err := ValidateTagName(name); err != nil {
		return err
	}
	err := m.st.Delete(ctx, m.Path(name))
	if errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("%w: tag %q of branch %s", ErrTagNotFound, name, m.branch)
	}
	if err != nil {
		return fmt.Errorf("snapshot: delete tag %q: %w", name, err)
	}
	return nil
}

// NamedTag is a tag with its name.
type NamedTag struct {
	Name string
	*Tag
}

// All reads every tag, sorted by name (the rows of $tags). Tags deleted
// between listing and reading are skipped.
func (m *TagManager) All(ctx context.Context) ([]NamedTag, error) {
	names, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]NamedTag, 0, len(names))
	for _, name := range names {
		t, err := m.Get(ctx, name)
		if errors.Is(err, ErrTagNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, NamedTag{Name: name, Tag: t})
	}
	return out, nil
}
