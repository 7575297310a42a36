package provider

import (
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// BatchScanVar is the session variable that makes a table scan's rows
// straight from the column batches of the splits that need no merge (1, the
// default) or reads every split row by row (0).
const BatchScanVar = "lakesql_batch_scan"

func batchScan(ctx *sql.Context) bool { return switchOn(ctx, BatchScanVar) }

// appendBatchRows appends the selected rows of b, as GMS rows of the
// column types ts, to rows. Each value is converted once: BIGINT, INT,
// DOUBLE and string vectors are GMS's values as they are and are boxed a
// column at a time (Vector.Box: one allocation per column, not per value);
// other columns go through toSQL. The rows of one batch share one backing
// array, each capped to its own columns.
func appendBatchRows(ts []*schema.DataType, b *lsmread.Batch, rows [][]any) ([][]any, error) {
	batchRowsCalls.Add(1)
	n, w := b.Rows(), len(ts)
	if n == 0 {
		return rows, nil
	}
	// cols holds column c's boxed entries at [c*b.Len, (c+1)*b.Len).
	cols := make([]any, w*b.Len)
	for c := range ts {
		col := cols[c*b.Len : (c+1)*b.Len]
		vec := &b.Cols[c]
		vec.Box(col)
		if k := vec.Kind(); k != lsmread.VectorAny && k != lsmread.VectorDecimal64 {
			continue // GMS's values as they are
		}
		for i, v := range col {
			if v == nil {
				continue
			}
			x, err := toSQL(ts[c], v)
			if err != nil {
				return rows, err
			}
			col[i] = x
		}
	}
	vals := make([]any, n*w)
	for k := 0; k < n; k++ {
		i := k
		if b.Sel != nil {
			i = int(b.Sel[k])
		}
		row := vals[k*w : (k+1)*w : (k+1)*w]
		for c := range row {
			row[c] = cols[c*b.Len+i]
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// batchRowsCalls counts the batches appendBatchRows converted (tests).
var batchRowsCalls atomic.Int64

// InstallBatchScanVariable registers lakesql_batch_scan (session and
// global, default ON).
func InstallBatchScanVariable() {
	installBatchScanVar.Do(func() {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{switchVariable(BatchScanVar)})
	})
}
