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

// clockProbePrefix starts the name of the empty object a CREATE writes
// (and deletes at once) to read the store's clock: ".lakesql-clock-<uuid>".
const clockProbePrefix = ".lakesql-clock-"

// storeClock is the store's clock: a marker's age is its modification
// time (the store's) against the store's now, not the local clock, which
// on another host or against an object store may be off by more than
// dropStale. The zero value is the local clock.
type storeClock struct {
	at    time.Time // the store's time of a write
	local time.Time // the local (monotonic) time of the same write
}

func (c storeClock) now() time.Time {
	if c.at.IsZero() {
		return time.Now()
	}
	return c.at.Add(time.Since(c.local))
}

// readStoreClock writes an empty probe object into the table folder st,
// takes its modification time and deletes it. A store without
// modification times, or a probe another writer deleted first, gives the
// local clock.
func readStoreClock(ctx context.Context, st storage.Storage) (storeClock, error) {
	p := clockProbePrefix + uuid.NewString()
	local := time.Now()
	if err := st.WriteAll(ctx, p, nil); err != nil {
		return storeClock{}, err
	}
	defer func() { _ = st.Delete(context.WithoutCancel(ctx), p) }()
	for obj, err := range st.List(ctx, p) {
		if err != nil {
			return storeClock{}, err
		}
		if obj.Path == p && !obj.ModTime.IsZero() {
			return storeClock{at: obj.ModTime, local: local}, nil
		}
	}
	return storeClock{}, nil
}

// markerClock reads the store's clock once, when a marker is to be judged.
type markerClock struct {
	st    storage.Storage
	clock *storeClock
}

// live says obj is a drop's marker whose drop still runs: modified less
// than dropStale ago on the store's clock (a store without modification
// times counts every marker as live).
func (m *markerClock) live(ctx context.Context, obj storage.ObjectInfo) (bool, error) {
	if !isDroppingMarker(obj.Path) {
		return false, nil
	}
	if obj.ModTime.IsZero() {
		return true, nil
	}
	if m.clock == nil {
		c, err := readStoreClock(ctx, m.st)
		if err != nil {
			return false, err
		}
		m.clock = &c
	}
	return liveAt(obj, m.clock.now()), nil
}

// liveAt says marker obj is younger than dropStale at now.
func liveAt(obj storage.ObjectInfo, now time.Time) bool {
	return obj.ModTime.IsZero() || now.Sub(obj.ModTime) < dropStale
}

// dropInProgress says the table folder st holds a live drop marker.
func dropInProgress(ctx context.Context, st storage.Storage, mc *markerClock) (bool, error) {
	for obj, err := range st.List(ctx, TableDroppingPrefix) {
		if err != nil {
			return false, err
		}
		if live, err := mc.live(ctx, obj); err != nil || live {
			return live, err
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

// clock is the store's clock as the drop's own marker, listed as obj,
// tells it (its modification time is the store's time of the last write).
func (m *droppingMarker) clock(own storage.ObjectInfo) storeClock {
	if own.ModTime.IsZero() {
		return storeClock{}
	}
	return storeClock{at: own.ModTime, local: m.wrote}
}

// remove deletes the marker, also when the drop's context is done.
func (m *droppingMarker) remove(ctx context.Context) error {
	err := m.st.Delete(context.WithoutCancel(ctx), m.path)
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		return err
	}
	return nil
}
