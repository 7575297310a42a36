package provider

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// BatchScan is a planned read of a table as column batches (the Arrow
// Flight SQL endpoint streams plain scans from it without building rows):
// Splits are read with Reader.ReadBatches, and each batch holds Fields, in
// order.
type BatchScan struct {
	Plan   *lsmread.Plan
	Reader *lsmread.Reader
	Fields []schema.DataField
}

// BatchScan plans the table's scan (its projection, pushed filters, time
// travel and $ro) for a columnar read. It refuses a table with writes
// pending in the session's transaction, whose rows only the row path
// merges in.
func (t *Table) BatchScan(ctx *sql.Context) (*BatchScan, error) {
	if t.pending(ctx) != nil {
		return nil, fmt.Errorf("lakesql: table %s has uncommitted writes in this transaction", t.name)
	}
	spec := t.scanSpec()
	spec.TimeZone = sessionZone(ctx)
	p, err := t.lt.Plan(ctx, spec)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
	}
	noteScan(ctx, p)
	r, err := p.NewReader()
	if err != nil {
		return nil, mapError(err)
	}
	fields := p.Schema.Fields
	if p.Spec.Projection != nil {
		if fields, err = p.Schema.ProjectedFields(p.Spec.Projection); err != nil {
			return nil, mapError(err)
		}
	}
	return &BatchScan{Plan: p, Reader: r, Fields: fields}, nil
}

// Filtered reports whether filters were pushed into the scan: its batches
// then hold only rows that pass them, and the engine's own filter over the
// scan may still drop some (the scan's filter is a superset).
func (t *Table) Filtered() bool { return t.filter != nil }
