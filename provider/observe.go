package provider

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/lsmread"
)

// noteScan adds a planned scan's figures to the statement running under
// ctx (its slow-query log line reports them).
func noteScan(ctx context.Context, p *lsmread.Plan) {
	st := metrics.StatementFrom(ctx)
	if st == nil {
		return
	}
	s := p.Stats
	st.AddScan(metrics.ScanFigures{
		FilesTotal: s.FilesTotal, FilesPruned: s.FilesPruned,
		ManifestsTotal: s.ManifestsTotal, ManifestsPruned: s.ManifestsPruned,
		BucketsPruned: s.BucketsPruned, Splits: s.Splits, Partitions: s.PartitionsScanned,
	})
}

// chargeRow counts a row a writing statement buffers against its memory
// limit (metrics.Statement.Charge); only when the statement has one.
func chargeRow(ctx context.Context, row []any) error {
	st := metrics.StatementFrom(ctx)
	if st == nil || st.Limit <= 0 {
		return nil
	}
	if err := st.Charge(metrics.RowSize(row)); err != nil {
		return fmt.Errorf("lakesql: %w (%d bytes)", err, st.Limit)
	}
	return nil
}

// rowSampler returns what a scan calls with each row it produces: it
// samples row sizes for the statement's memory accounting, when the
// statement has a limit (else it does nothing).
func rowSampler(ctx context.Context) func(row []any) {
	st := metrics.StatementFrom(ctx)
	if st == nil || st.Limit <= 0 {
		return func([]any) {}
	}
	var n atomic.Int64
	return func(row []any) { st.SampleRow(n.Add(1), row) }
}
