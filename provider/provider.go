package provider

import (
	"context"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// Options configure a Provider.
type Options struct {
	// ReadOnly rejects DDL and DML.
	ReadOnly bool
	// Compactor runs the automatic compaction after each commit (the
	// server's background workers). nil: a compactor without workers,
	// which compacts inside the committing statement.
	Compactor *lsmwrite.AutoCompactor
	// TableDefaults are options every new table gets unless its CREATE
	// TABLE sets the key (WithTableDefaults).
	TableDefaults map[string]string
	// Maintainer, when set, runs each table's maintenance (snapshot and
	// partition expiration, automatic tags) after each commit.
	Maintainer *lsmwrite.Maintainer
}

// DefaultDatabase is created in a new warehouse.
const DefaultDatabase = snapshot.DefaultDatabase

// Provider is the GMS DatabaseProvider over a Paimon warehouse: the
// snapshot.Catalog (Paimon's filesystem-catalog layout,
// WAREHOUSE/<db>.db/<table>/) seen through go-mysql-server.
type Provider struct {
	st   storage.Storage
	cat  *snapshot.Catalog
	opts Options

	// handles are the long-lived table handles, by handleKey (handles.go).
	handles struct {
		sync.RWMutex
		m map[string]*handle
	}
	// points are the prepared plans of point queries (point_plan.go).
	points pointPlans
	// stats are the PRIMARY-index statistics by table handle (stats_histogram.go).
	stats statCache
}

var _ sql.DatabaseProvider = (*Provider)(nil)

// New returns a provider over the warehouse st, creating the default
// database when the warehouse has none.
func New(ctx context.Context, st storage.Storage, opts Options) (*Provider, error) {
	if opts.Compactor == nil {
		opts.Compactor = lsmwrite.NewAutoCompactor(lsmwrite.AutoOptions{})
	}
	p := &Provider{st: st, cat: snapshot.NewCatalog(st), opts: opts}
	p.handles.m = map[string]*handle{}
	var err error
	if opts.ReadOnly {
		_, err = p.cat.ListDatabases(ctx)
	} else {
		_, err = p.cat.EnsureDefaultDatabase(ctx)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Storage is the warehouse storage.
func (p *Provider) Storage() storage.Storage { return p.st }

// Catalog is the warehouse catalog.
func (p *Provider) Catalog() *snapshot.Catalog { return p.cat }

// Database implements sql.DatabaseProvider.
func (p *Provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	real, err := p.cat.ResolveDatabase(ctx, name)
	if err != nil {
		return nil, catalogError(err)
	}
	return p.database(real), nil
}

// HasDatabase implements sql.DatabaseProvider.
func (p *Provider) HasDatabase(ctx *sql.Context, name string) bool {
	_, err := p.Database(ctx, name)
	return err == nil
}

// AllDatabases implements sql.DatabaseProvider.
func (p *Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	dbs, err := p.cat.ListDatabases(ctx)
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
	return &Database{p: p, name: name}
}
