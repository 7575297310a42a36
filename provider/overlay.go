package provider

import (
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/lsmread"
)

// pendingOps returns the current transaction's buffered writes to t.
func (t *Table) pendingOps(ctx *sql.Context) []txOp {
	tx, ok := ctx.GetTransaction().(*Transaction)
	if !ok || tx == nil {
		return nil
	}
	return tx.pending(t)
}

// overlayRows reads t as the transaction sees it: the committed rows merged
// with the transaction's own pending writes (read-your-writes). It reads
// every column without pushdown, so a pending write can change whether a
// committed row matches a filter.
func (t *Table) overlayRows(ctx *sql.Context, ops []txOp) (sql.RowIter, error) {
	p, err := t.lt.Plan(ctx, lsmread.ScanSpec{TimeTravel: t.tt, ReadOptimized: t.ro})
	if err != nil {
		return nil, mapError(err)
	}
	t.noteRead(ctx, p)
	r, err := p.NewReader()
	if err != nil {
		return nil, mapError(err)
	}
	var rows [][]any
	pk := len(t.sch.PrimaryKeys) > 0
	idx := keyIndexes(t.sch)
	byKey := map[string][]txOp{}
	var order []string
	// Append tables: the pending inserts, and how many copies of each
	// committed row the transaction deleted.
	var deleted map[string]int
	if !pk {
		net := netAppendOps(t.sch, ops)
		ops = ops[:0:0]
		for _, op := range net {
			if op.kind.IsAdd() {
				ops = append(ops, op)
				continue
			}
			if deleted == nil {
				deleted = map[string]int{}
			}
			deleted[keyString(t.sch, idx, op.row)]++
		}
	}
	if pk {
		for _, op := range ops {
			k := keyString(t.sch, idx, op.row)
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], op)
		}
	}
	for _, split := range p.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			return nil, mapError(err)
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return nil, mapError(err)
			}
			if pk {
				k := keyString(t.sch, idx, row)
				if kops, ok := byKey[k]; ok {
					delete(byKey, k)
					merged, ok, err := t.overlayKey(row, kops)
					if err != nil {
						it.Close()
						return nil, err
					}
					if ok {
						rows = append(rows, merged)
					}
					continue
				}
			} else if deleted != nil {
				k := keyString(t.sch, idx, row)
				if deleted[k] > 0 {
					deleted[k]--
					continue
				}
			}
			rows = append(rows, row)
		}
		it.Close()
	}
	if pk {
		for _, k := range order {
			kops, ok := byKey[k]
			if !ok {
				continue
			}
			merged, ok, err := t.overlayKey(nil, kops)
			if err != nil {
				return nil, err
			}
			if ok {
				rows = append(rows, merged)
			}
		}
	} else {
		for _, op := range ops {
			rows = append(rows, op.row)
		}
	}
	proj := make([]int, 0, len(t.sch.Fields))
	if t.cols == nil {
		for i := range t.sch.Fields {
			proj = append(proj, i)
		}
	} else {
		for _, c := range t.cols {
			proj = append(proj, t.sch.FieldIndex(c))
		}
	}
	out := make([]sql.Row, 0, len(rows))
	for _, row := range rows {
		// The scan's predicate (pushed filters, index lookups) applies to
		// the merged rows: a lookup join relies on it alone.
		if t.filter != nil && lsmread.Test(t.filter, func(f int) (any, bool) { return row[f], true }) != lsmread.True {
			continue
		}
		sr := make(sql.Row, len(proj))
		for i, j := range proj {
			v, err := toSQL(&t.sch.Fields[j].Type, row[j])
			if err != nil {
				return nil, err
			}
			sr[i] = v
		}
		out = append(out, sr)
	}
	return sql.RowsToRowIter(out...), nil
}
