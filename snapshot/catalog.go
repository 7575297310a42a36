package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// Catalog is a warehouse laid out as Paimon's filesystem catalog (Java:
// org.apache.paimon.catalog.FileSystemCatalog): WAREHOUSE/<db>.db/<table>/
// with schema/, snapshot/, manifest/, … below the table folder. A folder is
// a table when it has a schema/ folder. Object stores have no folders, so
// CreateDatabase also writes the empty marker object
// <db>.db/.lakesql-database (Java's catalog lists only sub-folders and
// ignores it).
//
// Name resolution is case-insensitive (MySQL's names) and cached: a name
// found in a listing younger than namesTTL is trusted, a name not found
// lists again, so a table another process created is found at once, and
// one it dropped stops resolving within namesTTL (opening its schema fails
// before that). Create, drop and alter through the catalog invalidate the
// cache. The catalog is safe for concurrent use; its create and drop run
// one at a time.
type Catalog struct {
	st storage.Storage
	// clock is the store's clock: a drop marker's age is judged by it.
	clock *storage.Clock
	// ddl serializes create and drop in this process.
	ddl sync.Mutex

	names struct {
		sync.Mutex
		dbs    cachedNames
		tables map[string]*cachedNames // by stored database name
	}
}

// adoptPause is how long CREATE TABLE waits before it adopts an empty
// database folder without lakesql's marker as a database.
const adoptPause = 100 * time.Millisecond

// namesTTL bounds how long a listed name is trusted without listing again.
const namesTTL = time.Second

// cachedNames is a listing of names and when it was taken.
type cachedNames struct {
	names []string
	at    time.Time
}

func (c *cachedNames) find(name string, now time.Time) (string, bool) {
	if c.at.IsZero() || now.Sub(c.at) > namesTTL {
		return "", false
	}
	return findFold(c.names, name)
}

// The catalog layout.
const (
	// DatabaseSuffix ends the folder name of a database.
	DatabaseSuffix = ".db"
	// DatabaseMarker is the object CreateDatabase writes so an empty
	// database is listed on stores without folders.
	DatabaseMarker = ".lakesql-database"
	// DatabaseDropping is the object DROP DATABASE writes first and
	// deletes last: a CREATE TABLE that finds it (before or after writing
	// its schema) fails instead of adding a table to a database going
	// away.
	DatabaseDropping = ".lakesql-dropping"
	// DefaultDatabase is created in a new warehouse.
	DefaultDatabase = "default"
)

// NewCatalog returns the catalog of the warehouse rooted at st. It does no
// I/O.
func NewCatalog(st storage.Storage) *Catalog {
	c := &Catalog{st: st, clock: storage.NewClock(st)}
	c.names.tables = map[string]*cachedNames{}
	return c
}

// Storage is the warehouse storage.
func (c *Catalog) Storage() storage.Storage { return c.st }

// Clock is the warehouse store's clock (its probe objects go to the
// private folder, where RemoveWarehouseTemporaries deletes a crashed
// writer's).
func (c *Catalog) Clock() *storage.Clock { return c.clock }

// TableStorage is the storage rooted at the folder of table db.name (stored
// spellings).
func (c *Catalog) TableStorage(db, name string) storage.Storage {
	return c.st.Sub(db + DatabaseSuffix + "/" + name)
}

// TableLocation is the URL of a table's folder: <warehouse>/<db>.db/<table>,
// the warehouse URL's options (a query such as ?fsync=false) kept at its
// end: the URL of the table's storage.
func (c *Catalog) TableLocation(db, name string) string {
	return c.TableStorage(db, name).URL()
}

// ListDatabases lists the database names of the warehouse.
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	dirs, err := storage.ListDirs(ctx, c.st, "")
	if err != nil {
		return nil, fmt.Errorf("snapshot: list databases: %w", err)
	}
	var out []string
	for _, d := range dirs {
		if strings.HasSuffix(d, DatabaseSuffix) && len(d) > len(DatabaseSuffix) {
			out = append(out, strings.TrimSuffix(d, DatabaseSuffix))
		}
	}
	c.names.Lock()
	c.names.dbs = cachedNames{names: out, at: time.Now()}
	c.names.Unlock()
	return out, nil
}

// ListTables lists the table names of database db (stored spelling):
// sub-folders with a schema file (Java: FileSystemCatalog's
// tableExistsInFileSystem, schema-0 first). A folder holding only a
// schema/ folder (a dropped table's, until its empty folders go) is not a
// table.
func (c *Catalog) ListTables(ctx context.Context, db string) ([]string, error) {
	dbDir := db + DatabaseSuffix
	dirs, err := storage.ListDirs(ctx, c.st, dbDir)
	if err != nil {
		return nil, fmt.Errorf("snapshot: list tables of %s: %w", db, err)
	}
	var out []string
	for _, d := range dirs {
		ok, err := hasSchemaFile(ctx, c.st.Sub(dbDir+"/"+d))
		if err != nil {
			return nil, fmt.Errorf("snapshot: list tables of %s: %w", db, err)
		}
		if ok {
			out = append(out, d)
		}
	}
	c.names.Lock()
	c.names.tables[db] = &cachedNames{names: out, at: time.Now()}
	c.names.Unlock()
	return out, nil
}

// hasSchemaFile says the folder st holds a schema file of the main
// branch: schema-0, or another when that one is gone.
func hasSchemaFile(ctx context.Context, st storage.Storage) (bool, error) {
	sm := NewSchemaManager(st, "")
	if ok, err := st.Exists(ctx, sm.Path(0)); err != nil || ok {
		return ok, err
	}
	for obj, err := range st.List(ctx, schemaDirName+"/"+schemaPrefix) {
		if err != nil {
			return false, err
		}
		if _, ok := ParseSchemaFileName(strings.TrimPrefix(obj.Path, schemaDirName+"/")); ok {
			return true, nil
		}
	}
	return false, nil
}

// ResolveDatabase returns the stored spelling of database name, matched
// case-insensitively; an unknown name is a *schema.ChangeError wrapping
// ErrDatabaseNotFound.
func (c *Catalog) ResolveDatabase(ctx context.Context, name string) (string, error) {
	c.names.Lock()
	real, ok := c.names.dbs.find(name, time.Now())
	c.names.Unlock()
	if ok {
		return real, nil
	}
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return "", err
	}
	if real, ok := findFold(dbs, name); ok {
		return real, nil
	}
	return "", nameErr(ErrDatabaseNotFound, name, "database %s does not exist", name)
}

// ResolveTable returns the stored spelling of table name in database db
// (the stored spelling), matched case-insensitively; ok is false when there
// is no such table.
func (c *Catalog) ResolveTable(ctx context.Context, db, name string) (string, bool, error) {
	c.names.Lock()
	var real string
	var ok bool
	if l := c.names.tables[db]; l != nil {
		real, ok = l.find(name, time.Now())
	}
	c.names.Unlock()
	if ok {
		return real, true, nil
	}
	names, err := c.ListTables(ctx, db)
	if err != nil {
		return "", false, err
	}
	real, ok = findFold(names, name)
	return real, ok, nil
}

// findFold finds name in names, ignoring case.
func findFold(names []string, name string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}

// RemoveEmptyFolders removes the folders of database db (stored
// spelling) that hold no file, the database's own folder included when it
// is empty: what a writer that raced a DROP TABLE or DROP DATABASE leaves
// on local storage after taking its files back. Files are never touched.
func (c *Catalog) RemoveEmptyFolders(ctx context.Context, db string) {
	removeEmptyDirs(ctx, c.st, db+DatabaseSuffix)
}

// Forget drops the cached listings, so the next resolution lists again (a
// table was dropped under the catalog's feet).
func (c *Catalog) Forget() {
	c.names.Lock()
	defer c.names.Unlock()
	c.names.dbs = cachedNames{}
	clear(c.names.tables)
}

// CheckName validates a database or table name: a single path element that
// Paimon's catalogs accept, at most schema.MaxNameLength characters.
func CheckName(kind, name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return changeErr(schema.ErrInvalidSchema, "empty %s name", kind)
	case utf8.RuneCountInString(name) > schema.MaxNameLength:
		return nameErr(schema.ErrNameTooLong, name, "%s name %s is longer than %d characters", kind, name, schema.MaxNameLength)
	case strings.ContainsAny(name, "/\\$\x00"), strings.HasPrefix(name, "."):
		return changeErr(schema.ErrInvalidSchema, "%s name %q: Paimon %s names cannot contain '/', '\\' or '$' or start with '.'", kind, name, kind)
	}
	return nil
}

// EnsureDefaultDatabase creates DefaultDatabase when the warehouse has no
// database; created says whether it did.
func (c *Catalog) EnsureDefaultDatabase(ctx context.Context) (created bool, err error) {
	dbs, err := c.ListDatabases(ctx)
	if err != nil || len(dbs) > 0 {
		return false, err
	}
	if err := c.createDatabaseFiles(ctx, DefaultDatabase); err != nil {
		return false, err
	}
	return true, nil
}

func (c *Catalog) createDatabaseFiles(ctx context.Context, name string) error {
	dir := name + DatabaseSuffix
	if dm, ok := c.st.(storage.DirMaker); ok {
		if err := dm.MkdirAll(ctx, dir); err != nil {
			return fmt.Errorf("snapshot: create database %s: %w", name, err)
		}
	}
	if err := c.st.WriteAll(ctx, dir+"/"+DatabaseMarker, nil); err != nil {
		return fmt.Errorf("snapshot: create database %s: %w", name, err)
	}
	c.Forget()
	return nil
}

// CreateDatabase creates database name (its folder and marker); an existing
// one is a *schema.ChangeError wrapping ErrDatabaseExists unless
// ifNotExists.
func (c *Catalog) CreateDatabase(ctx context.Context, name string, ifNotExists bool) error {
	if err := CheckName("database", name); err != nil {
		return err
	}
	c.ddl.Lock()
	defer c.ddl.Unlock()
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return err
	}
	if _, ok := findFold(dbs, name); ok {
		if ifNotExists {
			return nil
		}
		return nameErr(ErrDatabaseExists, name, "database %s already exists", name)
	}
	return c.createDatabaseFiles(ctx, name)
}

// DropDatabase drops database name and every table in it (every object
// below <name>.db/, each table's schema/ first, so an interrupted drop
// never leaves a half-deleted table that still looks like a table). A
// missing database is an error wrapping ErrDatabaseNotFound unless
// ifExists.
//
// The marker goes first: a CREATE TABLE in the database (of this process
// or another) that finds the marker gone after writing its schema takes
// its table back (CreateTable), so a drop racing creates leaves neither
// tables nor schema-less folders behind.
func (c *Catalog) DropDatabase(ctx context.Context, name string, ifExists bool) error {
	c.ddl.Lock()
	defer c.ddl.Unlock()
	defer c.Forget()
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return err
	}
	real, ok := findFold(dbs, name)
	if !ok {
		if ifExists {
			return nil
		}
		return nameErr(ErrDatabaseNotFound, name, "database %s does not exist", name)
	}
	dbDir := real + DatabaseSuffix
	dropping := dbDir + "/" + DatabaseDropping
	if err := c.st.WriteAll(ctx, dropping, nil); err != nil {
		return fmt.Errorf("snapshot: drop database %s: %w", real, err)
	}
	if err := c.st.Delete(ctx, dbDir+"/"+DatabaseMarker); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("snapshot: drop database %s: %w", real, err)
	}
	tables, err := c.ListTables(ctx, real)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := c.dropTableFiles(ctx, real, t); err != nil {
			return fmt.Errorf("snapshot: drop database %s: table %s: %w", real, t, err)
		}
	}
	// Everything else, the dropping object last.
	dbSt := c.st.Sub(dbDir)
	var paths []string
	for obj, err := range dbSt.List(ctx, "") {
		if err != nil {
			return fmt.Errorf("snapshot: drop database %s: %w", real, err)
		}
		if obj.Path != DatabaseDropping {
			paths = append(paths, obj.Path)
		}
	}
	for _, p := range paths {
		if err := dbSt.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return fmt.Errorf("snapshot: drop database %s: %w", real, err)
		}
	}
	if err := c.st.Delete(ctx, dropping); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("snapshot: drop database %s: %w", real, err)
	}
	removeEmptyDirs(ctx, c.st, dbDir)
	return nil
}

// deleteAll deletes every object below prefix.
func deleteAll(ctx context.Context, st storage.Storage, prefix string) error {
	var paths []string
	for obj, err := range st.List(ctx, prefix) {
		if err != nil {
			return err
		}
		paths = append(paths, obj.Path)
	}
	for _, path := range paths {
		if err := st.Delete(ctx, path); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return err
		}
	}
	return nil
}

// deleteTableFiles deletes a table folder: it writes its dropping marker
// (table_dropping.go), deletes the schema files, of the main branch and of
// every branch (the table stops being a table, and a commit racing the
// drop sees its schema gone: commit_table_check.go), then everything else
// but the live markers (hidden temporary files included), then the folders left empty, then its marker. A
// CREATE of the same name waits for the marker to go.
//
// A listing is not a snapshot of the folder (the local store reads each
// sub-folder when its walk gets there), so the sweep's listing can hold
// the files of a table created again after it began (by a CREATE that
// looked for a drop just before the marker was written, by another
// engine, or schema-(N+1) of an ALTER) without that table's schema. The
// sweep deletes what it listed only when no schema exists after the
// listing ended; else that table is dropped too, schemas first, and the
// folder listed again: nothing is deleted from a table that has a schema.
func deleteTableFiles(ctx context.Context, st storage.Storage, clock *storage.Clock) (err error) {
	m, err := writeDroppingMarker(ctx, st)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := m.remove(ctx); err == nil {
			err = rerr
		}
	}()
	var schemas []string
	for obj, err := range st.List(ctx, "") {
		if err != nil {
			return err
		}
		if isSchemaPath(obj.Path) {
			schemas = append(schemas, obj.Path)
		}
	}
	for round := 0; ; round++ {
		if err := deletePaths(ctx, st, schemas, nil); err != nil {
			return err
		}
		var paths []string
		var markers []storage.ObjectInfo
		schemas = schemas[:0]
		for obj, err := range st.List(ctx, "") {
			if err != nil {
				return err
			}
			switch {
			case isSchemaPath(obj.Path):
				schemas = append(schemas, obj.Path)
			case obj.Path == m.path:
			case isDroppingMarker(obj.Path):
				markers = append(markers, obj)
			default:
				paths = append(paths, obj.Path)
			}
		}
		for _, mk := range markers {
			if !liveMarker(ctx, clock, mk) { // other running drops' markers stay
				paths = append(paths, mk.Path)
			}
		}
		// The hidden temporary files too (the local store's), listed after
		// the schemas were deleted: a commit that checked its table before
		// that staged its snapshot file before its check, and must not
		// link it into place after the drop — into the table created again
		// under the name, whose readers would find the manifests this drop
		// deletes (issue 12). Without its temporary file its link fails.
		for obj, err := range storage.ListTemps(ctx, st, "") {
			if err != nil {
				return err
			}
			paths = append(paths, obj.Path)
		}
		if len(schemas) == 0 {
			// A schema folder made after the walk began is not in it.
			if schemas, err = schemaFiles(ctx, st); err != nil {
				return err
			}
		}
		if len(schemas) > 0 {
			if round >= dropRounds {
				return fmt.Errorf("snapshot: the table was created again %d times while it was dropped", round+1)
			}
			continue
		}
		if err := deletePaths(ctx, st, paths, m); err != nil {
			return err
		}
		break
	}
	removeEmptyDirs(ctx, st, "")
	if err := m.remove(ctx); err != nil {
		return err
	}
	removeEmptyDirs(ctx, st, "") // the table's own folder, now empty
	return nil
}

// dropRounds bounds how often a drop lists the folder again because a
// table was created there while it ran.
const dropRounds = 10

// deletePaths deletes paths of the table folder st; a missing one is no
// error. With m, the drop's marker is refreshed as it goes.
func deletePaths(ctx context.Context, st storage.Storage, paths []string, m *droppingMarker) error {
	for _, p := range paths {
		if m != nil {
			if err := m.refresh(ctx); err != nil {
				return err
			}
		}
		if err := st.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return err
		}
	}
	return nil
}

// schemaFiles lists the schema files of the table folder st, of the main
// branch and of every branch.
func schemaFiles(ctx context.Context, st storage.Storage) ([]string, error) {
	var out []string
	for _, prefix := range []string{schemaDirName + "/", branchDirName + "/"} {
		for obj, err := range st.List(ctx, prefix) {
			if err != nil {
				return nil, err
			}
			if isSchemaPath(obj.Path) {
				out = append(out, obj.Path)
			}
		}
	}
	return out, nil
}

// isSchemaPath says p (relative to a table) is a schema file of the main
// branch or of a branch.
func isSchemaPath(p string) bool {
	if rest, ok := strings.CutPrefix(p, branchDirName+"/"); ok {
		if _, after, ok := strings.Cut(rest, "/"); ok {
			p = after // branch/branch-x/schema/... -> schema/...
		}
	}
	return strings.HasPrefix(p, schemaDirName+"/")
}

// dropTableFiles deletes table db.name (stored spellings) under the
// commit lock of its main branch: no commit of this process runs while
// its files are deleted, and the ones waiting find the table gone.
func (c *Catalog) dropTableFiles(ctx context.Context, db, name string) error {
	st := c.TableStorage(db, name)
	_, unlock := LockCommits(ctx, []string{CommitLockKey(st, MainBranch)})
	defer unlock()
	return deleteTableFiles(ctx, st, c.clock)
}

// clearLeftovers deletes what a folder that is not a table holds (the
// files a writer of a dropped table wrote after the drop, the marker of a
// crashed drop), so a table created there starts clean. It lists first and
// deletes only what it listed; a schema file among them, or found after
// the listing ended, means another writer is creating the table right now:
// ErrTableExists (a listing is not a snapshot: it can hold the files of a
// table created after it began, without that table's schema folder, and
// every file of a table is written after its schema-0). While a drop of
// the folder runs (a live dropping marker) it waits for the drop to end:
// the drop deletes what it finds after the schemas, which would include
// the new table's files.
func clearLeftovers(ctx context.Context, st storage.Storage, clock *storage.Clock, name string) error {
	var paths []string
	for {
		paths = paths[:0]
		busy := false
		for obj, err := range st.List(ctx, "") {
			if err != nil {
				return err
			}
			if isSchemaPath(obj.Path) {
				return nameErr(ErrTableExists, name, "table %s already exists", name)
			}
			if !busy {
				busy = liveMarker(ctx, clock, obj)
			}
			paths = append(paths, obj.Path)
		}
		if !busy {
			// Again after the schemas were seen gone: a drop that deleted
			// them wrote its marker before, and it shows now unless that
			// drop has ended.
			var err error
			if busy, err = dropInProgress(ctx, st, clock); err != nil {
				return err
			}
		}
		if !busy {
			break
		}
		if err := waitDropPoll(ctx, name); err != nil {
			return err
		}
	}
	if len(paths) > 0 {
		if schemas, err := schemaFiles(ctx, st); err != nil {
			return err
		} else if len(schemas) > 0 {
			return nameErr(ErrTableExists, name, "table %s already exists", name)
		}
		if err := deletePaths(ctx, st, paths, nil); err != nil {
			return err
		}
	}
	removeEmptyDirs(ctx, st, "")
	return nil
}

// waitDropPoll waits dropPoll, or until ctx ends: then the error says
// table name is being dropped.
func waitDropPoll(ctx context.Context, name string) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("table %s is being dropped: %w", name, context.Cause(ctx))
	case <-time.After(dropPoll):
		return nil
	}
}

// awaitDrop waits while a drop of the table folder st runs: a CREATE
// whose look for a drop came just before another server's drop wrote its
// marker committed its schema into a folder being dropped. That drop
// drops the new table too (whole, schemas first) or leaves it; either way
// the table's first statements do not run while the drop sweeps (a
// statement that did would fail with 1146 and take its files back).
func awaitDrop(ctx context.Context, st storage.Storage, clock *storage.Clock, name string) error {
	for {
		busy, err := dropInProgress(ctx, st, clock)
		if err != nil || !busy {
			return err
		}
		if err := waitDropPoll(ctx, name); err != nil {
			return err
		}
	}
}

// CreateTable creates table name in database db with the columns, keys,
// options and comment of in (schema.NewTableSchema assigns the field ids;
// in is not modified) as schema-0, written atomically. 'connector' must be
// paimon and is dropped; 'path' is accepted only when it names the table's
// own location and is dropped. The default database of a new warehouse has
// no objects yet (so is not listed): its first table creates it. An
// existing table is a *schema.ChangeError wrapping ErrTableExists unless
// ifNotExists.
func (c *Catalog) CreateTable(ctx context.Context, db, name string, in *schema.TableSchema, ifNotExists bool) error {
	if err := CheckName("table", name); err != nil {
		return err
	}
	realDB, err := c.ResolveDatabase(ctx, db)
	if err != nil && errors.Is(err, ErrDatabaseNotFound) && db == DefaultDatabase {
		realDB, err = DefaultDatabase, nil
	}
	if err != nil {
		return err
	}
	opts, err := c.tableOptions(realDB, name, in.Options)
	if err != nil {
		return err
	}
	spec := *in
	spec.Options = opts
	ts, err := schema.NewTableSchema(&spec)
	if err != nil {
		return err
	}
	c.ddl.Lock()
	defer c.ddl.Unlock()
	defer c.Forget()
	// The database again, listed afresh under the lock: a DROP DATABASE
	// may have run since it resolved.
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return err
	}
	if _, ok := findFold(dbs, realDB); !ok && realDB != DefaultDatabase {
		return nameErr(ErrDatabaseNotFound, db, "database %s does not exist", db)
	}
	marker := realDB + DatabaseSuffix + "/" + DatabaseMarker
	dropping := realDB + DatabaseSuffix + "/" + DatabaseDropping
	hadMarker, err := c.st.Exists(ctx, marker)
	if err != nil {
		return fmt.Errorf("snapshot: create table %s.%s: %w", realDB, name, err)
	}
	if gone, err := c.st.Exists(ctx, dropping); err != nil {
		return fmt.Errorf("snapshot: create table %s.%s: %w", realDB, name, err)
	} else if gone {
		return nameErr(ErrDatabaseNotFound, db, "database %s is being dropped", db)
	}
	tables, err := c.ListTables(ctx, realDB)
	if err != nil {
		return err
	}
	exists := func() error {
		if ifNotExists {
			return nil
		}
		return nameErr(ErrTableExists, name, "table %s already exists", name)
	}
	if existing, ok := findFold(tables, name); ok {
		if ifNotExists {
			return nil
		}
		return nameErr(ErrTableExists, existing, "table %s already exists", existing)
	}
	if !hadMarker && len(tables) == 0 && realDB != DefaultDatabase {
		// No marker and no table: a database another engine created
		// (an empty folder: it gets the marker now), or what a writer
		// racing a DROP DATABASE left behind (files or folders: not a
		// database).
		for _, err := range c.st.List(ctx, realDB+DatabaseSuffix+"/") {
			if err != nil {
				return fmt.Errorf("snapshot: create table %s.%s: %w", realDB, name, err)
			}
			return nameErr(ErrDatabaseNotFound, db, "database %s does not exist (its folder holds files of dropped tables only)", db)
		}
		if sub, err := storage.ListDirs(ctx, c.st, realDB+DatabaseSuffix); err != nil {
			return fmt.Errorf("snapshot: create table %s.%s: %w", realDB, name, err)
		} else if len(sub) > 0 {
			return nameErr(ErrDatabaseNotFound, db, "database %s does not exist (its folder holds folders of dropped tables only)", db)
		}
		// An empty folder may also be a dropped database's, between a
		// racing writer removing its table folder and the database
		// folder: it must still be there a moment later.
		time.Sleep(adoptPause)
		if dbs, err := c.ListDatabases(ctx); err != nil {
			return err
		} else if _, ok := findFold(dbs, realDB); !ok {
			return nameErr(ErrDatabaseNotFound, db, "database %s does not exist", db)
		}
		if err := c.createDatabaseFiles(ctx, realDB); err != nil {
			return err
		}
		hadMarker = true
	}
	tst := c.TableStorage(realDB, name)
	if err := clearLeftovers(ctx, tst, c.clock, name); err != nil {
		if errors.Is(err, ErrTableExists) {
			return exists()
		}
		return fmt.Errorf("snapshot: create table %s.%s: clear the files of a dropped table: %w", realDB, name, err)
	}
	// Stamped after any wait for a drop: a statement that started before
	// the CREATE finds this schema younger than itself (vanished.go).
	ts.TimeMillis = time.Now().UnixMilli()
	if err := NewSchemaManager(tst, "").Commit(ctx, ts); err != nil {
		if errors.Is(err, ErrConflict) {
			return exists()
		}
		if gone, xerr := c.st.Exists(ctx, dropping); xerr == nil && gone { // a DROP DATABASE deleted the schema's temp file
			_ = deleteTableFiles(context.WithoutCancel(ctx), tst, c.clock)
			return nameErr(ErrDatabaseNotFound, db, "database %s was dropped while the table was created", db)
		}
		return fmt.Errorf("snapshot: create table %s.%s: %w", realDB, name, err)
	}
	// A DROP DATABASE of another process writes the dropping object and
	// deletes the marker before it lists the tables, and deletes the
	// dropping object last: when neither shows now, the drop either has
	// not started (it will list this table) or finished before this
	// schema could be listed, and then the marker is gone too (for a
	// database that had one). Else the table is taken back.
	droppingNow, err1 := c.st.Exists(ctx, dropping)
	markerNow, err2 := c.st.Exists(ctx, marker)
	if err1 == nil && err2 == nil && (droppingNow || (hadMarker && !markerNow)) {
		ctx := context.WithoutCancel(ctx)
		_ = deleteTableFiles(ctx, tst, c.clock)
		removeEmptyDirs(ctx, c.st, realDB+DatabaseSuffix+"/"+name)
		removeEmptyDirs(ctx, c.st, realDB+DatabaseSuffix)
		return nameErr(ErrDatabaseNotFound, db, "database %s was dropped while the table was created", db)
	}
	// The table is created: waiting for a drop is a courtesy to its first
	// statements, and its end (the statement killed, a storage error)
	// changes nothing.
	_ = awaitDrop(ctx, tst, c.clock, name)
	return nil
}

// tableOptions checks the catalog options of a new table: 'connector' must
// be paimon and 'path' the table's own location; both are dropped, the
// other options are kept.
func (c *Catalog) tableOptions(db, name string, in schema.Options) (schema.Options, error) {
	out := schema.Options{}
	for k, v := range in {
		switch k {
		case "connector":
			if !strings.EqualFold(strings.TrimSpace(v), "paimon") {
				return nil, changeErr(schema.ErrUnsupportedChange, "'connector' = '%s': lakesql creates Paimon tables only", v)
			}
			continue
		case "path":
			if err := c.checkTablePath(db, name, v); err != nil {
				return nil, err
			}
			continue
		}
		out[k] = v
	}
	return out, nil
}

// checkTablePath accepts a 'path' option only when it is where the table
// lives anyway: Paimon's filesystem catalog finds tables by their folder
// under the warehouse and has no pointer to a table elsewhere.
func (c *Catalog) checkTablePath(db, name, path string) error {
	want := c.TableLocation(db, name)
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		s = strings.TrimSuffix(s, "/")
		if i := strings.Index(s, "?"); i >= 0 { // file:///x?fsync=false
			s = s[:i]
		}
		if strings.HasPrefix(s, "/") {
			s = "file://" + s
		}
		return s
	}
	if norm(path) == norm(want) {
		return nil
	}
	return changeErr(schema.ErrUnsupportedChange,
		"cannot create table at path %s: lakesql keeps tables in Paimon's filesystem catalog layout, where table %s.%s lives at %s; a table at another location cannot be registered (drop the 'path' option, or start lakesql on the warehouse that contains that path)",
		path, db, name, want)
}

// resolve returns the stored spellings of database db and table name, or a
// *schema.ChangeError wrapping ErrDatabaseNotFound or ErrTableNotFound.
func (c *Catalog) resolve(ctx context.Context, db, name string) (string, string, error) {
	realDB, err := c.ResolveDatabase(ctx, db)
	if err != nil {
		return "", "", err
	}
	real, ok, err := c.ResolveTable(ctx, realDB, name)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", nameErr(ErrTableNotFound, name, "table %s does not exist", name)
	}
	return realDB, real, nil
}

// DropTable deletes table name of database db: every file of its folder
// (schema/ first). A missing table is an error wrapping ErrTableNotFound
// unless ifExists.
func (c *Catalog) DropTable(ctx context.Context, db, name string, ifExists bool) error {
	realDB, err := c.ResolveDatabase(ctx, db)
	if err != nil {
		return err
	}
	c.ddl.Lock()
	defer c.ddl.Unlock()
	defer c.Forget()
	tables, err := c.ListTables(ctx, realDB)
	if err != nil {
		return err
	}
	real, ok := findFold(tables, name)
	if !ok {
		if ifExists {
			return nil
		}
		return nameErr(ErrTableNotFound, name, "table %s does not exist", name)
	}
	if err := c.dropTableFiles(ctx, realDB, real); err != nil {
		return fmt.Errorf("snapshot: drop table %s.%s: %w", realDB, real, err)
	}
	return nil
}

// LatestSchema returns the latest schema of table db.name and the table's
// stored spelling.
func (c *Catalog) LatestSchema(ctx context.Context, db, name string) (*schema.TableSchema, string, error) {
	realDB, real, err := c.resolve(ctx, db, name)
	if err != nil {
		return nil, "", err
	}
	ts, err := NewSchemaManager(c.TableStorage(realDB, real), "").Latest(ctx)
	if err != nil {
		return nil, "", err
	}
	return ts, real, nil
}

// schemaCommitRetries bounds the re-apply loop of AlterTable.
const schemaCommitRetries = 5

// AlterTable applies changes (schema.ApplySchemaChanges) to the latest
// schema of table db.name and commits it as schema-(N+1). When another
// writer commits schema-(N+1) first, the changes are re-applied to the new
// latest schema, a few times; after that the error is a *schema.ChangeError
// wrapping ErrSchemaConflict.
func (c *Catalog) AlterTable(ctx context.Context, db, name string, changes []schema.SchemaChange) error {
	realDB, real, err := c.resolve(ctx, db, name)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		// A fresh manager per attempt: its cache must not hide the winner.
		sm := NewSchemaManager(c.TableStorage(realDB, real), "")
		latest, err := sm.Latest(ctx)
		if errors.Is(err, ErrSchemaNotFound) { // dropped since it resolved
			c.Forget()
			return nameErr(ErrTableNotFound, name, "table %s does not exist", name)
		}
		if err != nil {
			return err
		}
		ns, err := schema.ApplySchemaChanges(latest, changes)
		if err != nil {
			return err
		}
		ns.ID = latest.ID + 1
		ns.TimeMillis = time.Now().UnixMilli()
		// The table it read must still be the table: a drop and a CREATE
		// of the name by another server since it read schema-N would
		// otherwise get schema-(N+1) made of the old table's columns.
		if err := checkTableIdentity(ctx, sm.st, sm.Path(latest.ID), latest.ID, latest.TimeMillis); errors.Is(err, ErrTableDropped) {
			c.Forget()
			return nameErr(ErrTableNotFound, name, "table %s was dropped while it was altered", name)
		}
		err = sm.Commit(ctx, ns)
		if err == nil {
			// A DROP TABLE deletes the schema files first: when the base
			// schema is gone now, or is another table's (dropped and
			// created again meanwhile), the drop may have listed the table
			// before this one was written, or this one landed in the new
			// table; it is taken back while the file is still its own.
			if xerr := checkTableIdentity(ctx, sm.st, sm.Path(latest.ID), latest.ID, latest.TimeMillis); errors.Is(xerr, ErrTableDropped) {
				dctx := context.WithoutCancel(ctx)
				if data, rerr := sm.st.ReadAll(dctx, sm.Path(ns.ID)); rerr == nil {
					if mine, eerr := schema.EncodeTableSchema(ns); eerr == nil && bytes.Equal(data, mine) {
						_ = sm.st.Delete(dctx, sm.Path(ns.ID))
					}
				}
				c.Forget()
				return nameErr(ErrTableNotFound, name, "table %s was dropped while it was altered", name)
			}
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			return fmt.Errorf("snapshot: alter table %s.%s: %w", realDB, real, err)
		}
		if attempt+1 >= schemaCommitRetries {
			return changeErr(ErrSchemaConflict, "alter table %s.%s: schema-%d was committed concurrently %d times in a row; retry the statement", realDB, real, ns.ID, schemaCommitRetries)
		}
	}
}

// changeErr and nameErr build the *schema.ChangeError values the catalog
// returns, so the GMS boundary maps them like the schema rules' own.
func changeErr(kind error, format string, args ...any) error {
	return &schema.ChangeError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func nameErr(kind error, name, format string, args ...any) error {
	return &schema.ChangeError{Kind: kind, Name: name, Msg: fmt.Sprintf(format, args...)}
}
