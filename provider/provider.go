package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
)

// Options configure a Provider.
type Options struct {
	// ReadOnly rejects DDL and DML.
	ReadOnly bool
	// Compactor runs the automatic compaction after each commit (the
	// server's background workers). nil: a compactor without workers,
	// which compacts inside the committing statement.
	Compactor *lsmwrite.AutoCompactor
}

// DefaultDatabase is created in a new warehouse.
const DefaultDatabase = "default"

// Provider is the GMS DatabaseProvider over a Paimon warehouse laid out as
// Paimon's filesystem catalog (WAREHOUSE/<db>.db/<table>/).
type Provider struct {
	st   storage.Storage
	opts Options
	mu   sync.Mutex
}

var _ sql.DatabaseProvider = (*Provider)(nil)

// New returns a provider over the warehouse st, creating the default
// database when the warehouse has none.
func New(ctx context.Context, st storage.Storage, opts Options) (*Provider, error) {
	if opts.Compactor == nil {
		opts.Compactor = lsmwrite.NewAutoCompactor(lsmwrite.AutoOptions{})
	}
	p := &Provider{st: st, opts: opts}
	dbs, err := listDatabases(ctx, st)
	if err != nil {
		return nil, err
	}
	if len(dbs) == 0 && !opts.ReadOnly {
		if err := mkdirAll(ctx, st, DefaultDatabase+dbSuffix); err != nil {
			return nil, fmt.Errorf("provider: create database %s: %w", DefaultDatabase, err)
		}
		// Object stores have no empty folders: the marker makes the new
		// database visible (Java catalogs ignore the file).
		if err := st.WriteAll(ctx, DefaultDatabase+dbSuffix+"/"+DatabaseMarker, nil); err != nil {
			return nil, fmt.Errorf("provider: create database %s: %w", DefaultDatabase, err)
		}
	}
	return p, nil
}

// Storage is the warehouse storage.
func (p *Provider) Storage() storage.Storage { return p.st }

// Database implements sql.DatabaseProvider.
func (p *Provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	dbs, err := listDatabases(ctx, p.st)
	if err != nil {
		return nil, err
	}
	for _, d := range dbs {
		if strings.EqualFold(d, name) {
			return p.database(d), nil
		}
	}
	return nil, sql.ErrDatabaseNotFound.New(name)
}

// HasDatabase implements sql.DatabaseProvider.
func (p *Provider) HasDatabase(ctx *sql.Context, name string) bool {
	_, err := p.Database(ctx, name)
	return err == nil
}

// AllDatabases implements sql.DatabaseProvider.
func (p *Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	dbs, err := listDatabases(ctx, p.st)
	if err != nil {
		ctx.GetLogger().Warnf("lakesql: list databases: %v", err)
		return nil
	}
	out := make([]sql.Database, 0, len(dbs))
	for _, d := range dbs {
		out = append(out, p.database(d))
	}
	return out
}

func (p *Provider) database(name string) *Database {
	return &Database{p: p, name: name, st: p.st.Sub(name + dbSuffix)}
}
