package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/lakesql/lakesql/internal/storage"
)

// The warehouse follows Paimon's filesystem catalog layout:
// WAREHOUSE/<db>.db/<table>/{schema,snapshot,manifest,...}. A folder is a table
// when it has a schema/ folder.

const dbSuffix = ".db"

// dirMaker is the optional storage capability to create an empty folder, so a
// new database is visible to Java catalogs before it has tables.
type dirMaker interface {
	MkdirAll(ctx context.Context, dir string) error
}

// dirLister is the optional storage capability to list the immediate
// sub-folders of a folder without listing every file below it.
type dirLister interface {
	ListDirs(ctx context.Context, dir string) ([]string, error)
}

// listDirs returns the names of the immediate sub-folders of dir ("" = root).
func listDirs(ctx context.Context, st storage.Storage, dir string) ([]string, error) {
	if dl, ok := st.(dirLister); ok {
		return dl.ListDirs(ctx, dir)
	}
	prefix := dir
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	seen := map[string]bool{}
	for obj, err := range st.List(ctx, prefix) {
		if err != nil {
			return nil, err
		}
		rest := strings.TrimPrefix(obj.Path, prefix)
		if i := strings.IndexByte(rest, '/'); i > 0 {
			seen[rest[:i]] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

func mkdirAll(ctx context.Context, st storage.Storage, dir string) error {
	if dm, ok := st.(dirMaker); ok {
		return dm.MkdirAll(ctx, dir)
	}
	return nil
}

// listDatabases returns the database names of the warehouse.
func listDatabases(ctx context.Context, st storage.Storage) ([]string, error) {
	dirs, err := listDirs(ctx, st, "")
	if err != nil {
		return nil, fmt.Errorf("provider: list databases: %w", err)
	}
	var out []string
	for _, d := range dirs {
		if strings.HasSuffix(d, dbSuffix) && len(d) > len(dbSuffix) {
			out = append(out, strings.TrimSuffix(d, dbSuffix))
		}
	}
	return out, nil
}

// listTables returns the table names of a database: sub-folders with a schema/ folder.
func listTables(ctx context.Context, st storage.Storage, db string) ([]string, error) {
	dbDir := db + dbSuffix
	dirs, err := listDirs(ctx, st, dbDir)
	if err != nil {
		return nil, fmt.Errorf("provider: list tables of %s: %w", db, err)
	}
	var out []string
	for _, d := range dirs {
		sub, err := listDirs(ctx, st, dbDir+"/"+d)
		if err != nil {
			return nil, err
		}
		for _, s := range sub {
			if s == "schema" {
				out = append(out, d)
				break
			}
		}
	}
	return out, nil
}
