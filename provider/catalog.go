package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/storage"
)

// The warehouse follows Paimon's filesystem catalog layout:
// WAREHOUSE/<db>.db/<table>/{schema,snapshot,manifest,...}. A folder is a table
// when it has a schema/ folder.

const dbSuffix = ".db"

// listDirs returns the names of the immediate sub-folders of dir ("" = root).
func listDirs(ctx context.Context, st storage.Storage, dir string) ([]string, error) {
	return storage.ListDirs(ctx, st, dir)
}

func mkdirAll(ctx context.Context, st storage.Storage, dir string) error {
	if dm, ok := st.(storage.DirMaker); ok {
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
