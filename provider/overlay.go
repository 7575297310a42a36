package provider

import (
	"errors"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// pending returns the current transaction's buffered writes to t, or nil.
func (t *Table) pending(ctx *sql.Context) *kv.PendingWrites {
	tx, ok := ctx.GetTransaction().(*Transaction)
	if !ok || tx == nil || !tx.hasPending(t) {
		return nil
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	return tx.tables[t.txKey()].pending
}

// overlayRows reads t as the transaction sees it: the committed rows merged
// with the transaction's own pending writes (read-your-writes,
// lsmread.Table.ReadPending, streamed). The table's predicate (pushed
// filters, index lookups) applies to the merged rows: a lookup join relies
// on it alone.
func (t *Table) overlayRows(ctx *sql.Context, pending *kv.PendingWrites) (sql.RowIter, error) {
	tx, _ := ctx.GetTransaction().(*Transaction)
	spec := lsmread.ScanSpec{TimeTravel: t.tt, ReadOptimized: t.ro, Filter: t.filter, Projection: t.cols, TimeZone: sessionZone(ctx)}
	var it lsmread.RowIterator
	var p *lsmread.Plan
	var err error
	func() {
		tx.mu.Lock() // the records are read under the transaction's lock
		defer tx.mu.Unlock()
		it, p, err = t.lt.ReadPending(ctx, spec, pending)
	}()
	if errors.Is(err, kv.ErrSpilled) {
		return nil, spilledRead(t.name, err)
	}
	if err != nil {
		return nil, mapError(err)
	}
	t.noteRead(ctx, p)
	types := make([]*schema.DataType, 0, len(t.sch.Fields))
	if t.cols == nil {
		for i := range t.sch.Fields {
			types = append(types, &t.sch.Fields[i].Type)
		}
	} else {
		for _, c := range t.cols {
			types = append(types, &t.sch.Fields[t.sch.FieldIndex(c)].Type)
		}
	}
	return &overlayIter{it: it, types: types}, nil
}

// overlayIter converts ReadPending's rows to GMS rows.
type overlayIter struct {
	it    lsmread.RowIterator
	types []*schema.DataType
}

// Next implements sql.RowIter.
func (o *overlayIter) Next(*sql.Context) (sql.Row, error) {
	row, err := o.it.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, mapError(err)
	}
	// A new row: rows of the transaction's own records must not change.
	out := make(sql.Row, len(row))
	for i, v := range row {
		if out[i], err = toSQL(o.types[i], v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Close implements sql.RowIter.
func (o *overlayIter) Close(*sql.Context) error { return o.it.Close() }

// spilledRead is the error (1235) of a read of table name in a transaction
// whose writes to it spilled (more than write-buffer-size, kv.ErrSpilled)
// that the spill file cannot answer within write-buffer-size: a read
// needing more than write-buffer-size of the spilled records (cause). Key
// lookups (INSERT IGNORE, ON DUPLICATE KEY UPDATE) use the spill file's key
// index and do not fail.
func spilledRead(name string, cause error) error {
	return mapError(fmt.Errorf("lakesql: reading table %s in the transaction that wrote more than its write-buffer-size to it is not supported yet for this statement (commit first, or raise 'write-buffer-size'): %w", name, cause))
}
