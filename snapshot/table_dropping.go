package snapshot

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/storage"
)

// A table drop writes a marker object of its own in the table folder
// before it deletes the schema files and deletes it last. A CREATE TABLE
// of the same name that finds a live marker waits until the drop is done:
// else the drop's sweep, which runs after the schemas are gone, would
// delete the files the new table's first commits write (issue 12).
const (
	// TableDroppingPrefix starts the name of a drop's marker object,
	// ".lakesql-dropping-<uuid>", at the top of the table folder.
	TableDroppingPrefix = ".lakesql-dropping-"
	// dropRefresh is how often a drop rewrites its marker while it
	// sweeps, so a waiting CREATE can tell a live drop from a crashed one.
	dropRefresh = 2 * time.Second
	// dropStale is the age after which a marker is a crashed drop's: a
	// CREATE no longer waits for it and deletes it with the leftovers.
	dropStale = 30 * time.Second
	// dropPoll is how often a waiting CREATE looks again.
	dropPoll = 20 * time.Millisecond
)

// isDroppingMarker says p (relative to a table) is a drop's marker.
func isDroppingMarker(p string) bool { return strings.HasPrefix(p, TableDroppingPrefix) }

// liveMarker says obj is a drop's marker whose drop still runs: modified
// less than dropStale ago on the store's clock (clock: its modification
// time is the store's, and the store's clock may be off the local one by
// more than dropStale). A store without modification times counts every
// marker as live.
func liveMarker(ctx context.Context, clock *storage.Clock, obj storage.ObjectInfo) bool {
	if !isDroppingMarker(obj.Path) {
		return false
	}
	return obj.ModTime.IsZero() || clock.Now(ctx).Sub(obj.ModTime) < dropStale
}

// dropInProgress says the table folder st holds a live drop marker.
func dropInProgress(ctx context.Context, st storage.Storage, clock *storage.Clock) (bool, error) {
	for obj, err := range st.List(ctx, TableDroppingPrefix) {
		if err != nil {
			return false, err
		}
		if liveMarker(ctx, clock, obj) {
			return true, nil
		}
	}
	return false, nil
}

// droppingMarker is one drop's marker: written before the schemas are
// deleted, refreshed while the drop sweeps, deleted last.
type droppingMarker struct {
	st    storage.Storage
	path  string
	wrote time.Time
}

func writeDroppingMarker(ctx context.Context, st storage.Storage) (*droppingMarker, error) {
	m := &droppingMarker{st: st, path: TableDroppingPrefix + uuid.NewString()}
	wrote := time.Now()
	if err := st.WriteAll(ctx, m.path, nil); err != nil {
		return nil, err
	}
	m.wrote = wrote
	return m, nil
}

// refresh rewrites the marker when it is older than dropRefresh.
func (m *droppingMarker) refresh(ctx context.Context) error {
	if time.Since(m.wrote) < dropRefresh {
		return nil
	}
	wrote := time.Now()
	if err := m.st.WriteAll(ctx, m.path, nil); err != nil {
		return err
	}
	m.wrote = wrote
	return nil
}

// remove deletes the marker, also when the drop's context is done.
func (m *droppingMarker) remove(ctx context.Context) error {
	err := m.st.Delete(context.WithoutCancel(ctx), m.path)
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		return err
	}
	return nil
}
