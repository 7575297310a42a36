package provider

import (
	"github.com/dolthub/go-mysql-server/sql"
)

var _ sql.StatisticsTable = (*Table)(nil)

// RowCount implements sql.StatisticsTable: the snapshot's record count
// (retract records included, so an estimate). The join planner uses it.
func (t *Table) RowCount(ctx *sql.Context) (uint64, bool, error) {
	snap, err := t.lt.ResolveSnapshot(ctx, t.tt)
	if err != nil || snap == nil || snap.TotalRecordCount < 0 {
		return 0, false, nil
	}
	return uint64(snap.TotalRecordCount), false, nil
}

// DataLength implements sql.StatisticsTable: an estimate from the row
// count (the file sizes would need the manifests).
func (t *Table) DataLength(ctx *sql.Context) (uint64, error) {
	n, _, err := t.RowCount(ctx)
	return n * 64, err
}

// StatsProvider is the planner's statistics: lakesql tables answer with
// their PRIMARY-index histogram (stats_histogram.go), everything else (and
// ANALYZE TABLE) with GMS's in-memory provider it wraps.
type StatsProvider struct {
	sql.StatsProvider
}

// NewStatsProvider wraps GMS's statistics provider fallback.
func NewStatsProvider(fallback sql.StatsProvider) *StatsProvider {
	return &StatsProvider{StatsProvider: fallback}
}

// GetTableStats implements sql.StatsProvider.
func (s *StatsProvider) GetTableStats(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, error) {
	if t, ok := table.(*Table); ok {
		st, err := t.primaryStatistic(ctx)
		if err != nil {
			return nil, mapError(err)
		}
		if st != nil {
			return []sql.Statistic{st}, nil
		}
		return nil, nil
	}
	return s.StatsProvider.GetTableStats(ctx, db, table)
}
