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
