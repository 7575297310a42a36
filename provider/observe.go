package provider

import (
	"context"

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
		BucketsPruned: s.BucketsPruned, Splits: s.Splits,
	})
}
