package snapshot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// SchemaManager reads and commits the schema versions of one branch (Java:
// org.apache.paimon.schema.SchemaManager), files schema/schema-<id>.
// Schema files are immutable once written, so decoded schemas are cached by
// id for the life of the manager. Safe for concurrent use; cached schemas
// are shared and must not be modified.
//
// A long-lived manager (in a table handle) also remembers the latest id it
// saw: LatestID then checks that schema-latest exists and schema-(latest+1)
// does not (two existence checks) instead of listing schema/. When the
// latest id goes down (the table was dropped and created again under the
// same name), the decoded schemas are forgotten.
type SchemaManager struct {
	st     storage.Storage
	branch string
	dir    string

	mu struct {
		sync.Mutex
		cache  map[schema.SchemaID]*schema.TableSchema
		latest schema.SchemaID
		known  bool
		// confirmed: the schema folder's version (storage.DirWatcher)
		// read before the files last confirmed latest; while the
		// version is the same, latest is still the newest schema.
		confirmed    uint64
		hasConfirmed bool
	}
}

// NewSchemaManager returns the schema manager of branch ("" or MainBranch
// for the main branch) of the table rooted at st.
func NewSchemaManager(st storage.Storage, branch string) *SchemaManager {
	if IsMainBranch(branch) {
		branch = MainBranch
	}
	m := &SchemaManager{st: st, branch: branch, dir: SchemaDir(branch)}
	m.mu.cache = map[schema.SchemaID]*schema.TableSchema{}
	return m
}

// Path returns the path of schema id, relative to the table root.
func (m *SchemaManager) Path(id schema.SchemaID) string { return join(m.dir, SchemaFileName(id)) }

// Schema reads schema id; a missing one gives an error wrapping
// ErrSchemaNotFound.
func (m *SchemaManager) Schema(ctx context.Context, id schema.SchemaID) (*schema.TableSchema, error) {
	m.mu.Lock()
	s, ok := m.mu.cache[id]
	m.mu.Unlock()
	if ok {
		return s, nil
	}
	p := m.Path(id)
	data, err := m.st.ReadAll(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, fmt.Errorf("%w: schema %d of branch %s (%s)", ErrSchemaNotFound, id, m.branch, m.location(p))
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
	}
	s, err = schema.DecodeTableSchema(data)
	if errors.Is(err, schema.ErrUnsupportedType) {
		return nil, fmt.Errorf("snapshot: %s: %w", p, err) // well-formed, not corrupt
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("%w: %s holds schema id %d", ErrCorrupt, p, s.ID)
	}
	m.mu.Lock()
	if c, ok := m.mu.cache[id]; ok {
		s = c
	} else {
		m.mu.cache[id] = s
	}
	m.mu.Unlock()
	return s, nil
}

// location is the URL of p (relative to the table): errors name the table
// ("…/<db>.db/<table>/schema/schema-0"), so the one mapping to MySQL's
// errors can tell a table dropped under a statement (1146) from a lost
// file (sqlengine/vanished.go).
func (m *SchemaManager) location(p string) string {
	u := m.st.URL()
	if i := strings.IndexByte(u, '?'); i >= 0 { // file:///wh?fsync=false
		u = u[:i]
	}
	return strings.TrimSuffix(u, "/") + "/" + p
}

// List returns the ids of all schema files, ascending.
func (m *SchemaManager) List(ctx context.Context) ([]schema.SchemaID, error) {
	var ids []schema.SchemaID
	err := listNames(ctx, m.st, m.dir, schemaPrefix, func(name string, _ storage.ObjectInfo) {
		if id, ok := ParseSchemaFileName(name); ok {
			ids = append(ids, id)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: list schemas of branch %s: %w", m.branch, err)
	}
	slices.Sort(ids)
	return ids, nil
}

// LatestID returns the largest schema id; ok is false when there is no
// schema (no table).
func (m *SchemaManager) LatestID(ctx context.Context) (id schema.SchemaID, ok bool, err error) {
	var version uint64
	watched := false
	if w, ok := m.st.(storage.DirWatcher); ok {
		version, watched = w.DirVersion(ctx, m.dir)
	}
	m.mu.Lock()
	last, known := m.mu.latest, m.mu.known
	confirmed := known && watched && m.mu.hasConfirmed && m.mu.confirmed == version
	m.mu.Unlock()
	if confirmed {
		return last, true, nil
	}
	if known {
		cur, err := m.st.Exists(ctx, m.Path(last))
		if err != nil {
			return 0, false, fmt.Errorf("snapshot: check schema %d: %w", last, err)
		}
		if cur {
			next, err := m.st.Exists(ctx, m.Path(last+1))
			if err != nil {
				return 0, false, fmt.Errorf("snapshot: check schema %d: %w", last+1, err)
			}
			if !next {
				m.confirm(last, version, watched)
				return last, true, nil
			}
		}
	}
	ids, err := m.List(ctx)
	if err != nil {
		return 0, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(ids) == 0 {
		m.mu.known, m.mu.hasConfirmed = false, false
		clear(m.mu.cache)
		return 0, false, nil
	}
	id = ids[len(ids)-1]
	if m.mu.known && id < m.mu.latest {
		clear(m.mu.cache) // re-created: the cached schemas are another table's
	}
	m.mu.latest, m.mu.known = id, true
	m.mu.confirmed, m.mu.hasConfirmed = version, watched
	return id, true, nil
}

// confirm records that the files showed last as the newest schema after
// the folder's version was read.
func (m *SchemaManager) confirm(last schema.SchemaID, version uint64, watched bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.known && m.mu.latest == last {
		m.mu.confirmed, m.mu.hasConfirmed = version, watched
	}
}

// Latest reads the schema with the largest id; ErrSchemaNotFound when there
// is none.
func (m *SchemaManager) Latest(ctx context.Context) (*schema.TableSchema, error) {
	id, ok, err := m.LatestID(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: branch %s has no schema (%s)", ErrSchemaNotFound, m.branch, m.location(m.dir+"/"))
	}
	return m.Schema(ctx, id)
}

// Commit writes ts as schema-<ts.ID>, atomically and only if that file does
// not exist yet (Storage.CreateIfNotExists). When another writer created
// it first the error wraps ErrConflict: re-read the latest schema, re-apply
// the change and retry with the next id.
func (m *SchemaManager) Commit(ctx context.Context, ts *schema.TableSchema) error {
	if ts.ID < 0 {
		return fmt.Errorf("snapshot: commit schema: negative id %d", ts.ID)
	}
	data, err := schema.EncodeTableSchema(ts)
	if err != nil {
		return fmt.Errorf("snapshot: commit schema %d: %w", ts.ID, err)
	}
	p := m.Path(ts.ID)
	err = m.st.CreateIfNotExists(ctx, p, data)
	if errors.Is(err, storage.ErrExist) {
		return fmt.Errorf("%w: schema %d of branch %s already exists", ErrConflict, ts.ID, m.branch)
	}
	if err != nil {
		return fmt.Errorf("snapshot: commit schema %d: %w", ts.ID, err)
	}
	// Cache a private copy (the caller keeps ts): the bytes just written.
	if written, err := schema.DecodeTableSchema(data); err == nil {
		m.mu.Lock()
		m.mu.cache[ts.ID] = written
		m.mu.Unlock()
	}
	return nil
}
