package metrics

import (
	"context"
	"sync/atomic"
)

// Statement collects what one statement's scans planned and pruned, for
// its slow-query log line, and the memory it holds (statement_memory.go).
// The server attaches one to the context a statement runs under
// (WithStatement); the provider adds every scan it plans (AddScan). Safe
// for concurrent use (parallel scans of a join).
type Statement struct {
	statementMemory
	Scans           atomic.Int64
	FilesTotal      atomic.Int64
	FilesPruned     atomic.Int64
	ManifestsTotal  atomic.Int64
	ManifestsPruned atomic.Int64
	BucketsPruned   atomic.Int64
	Splits          atomic.Int64
	Partitions      atomic.Int64
}

type statementKey struct{}

// WithStatement returns ctx carrying s.
func WithStatement(ctx context.Context, s *Statement) context.Context {
	return context.WithValue(ctx, statementKey{}, s)
}

// StatementFrom is the Statement ctx carries, or nil.
func StatementFrom(ctx context.Context) *Statement {
	s, _ := ctx.Value(statementKey{}).(*Statement)
	return s
}

// ScanFigures are one planned scan's figures (lsmread.PlanStats).
type ScanFigures struct {
	FilesTotal, FilesPruned         int
	ManifestsTotal, ManifestsPruned int
	BucketsPruned, Splits           int
	Partitions                      int // partitions scanned
}

// AddScan adds one planned scan.
func (s *Statement) AddScan(f ScanFigures) {
	if s == nil {
		return
	}
	s.Scans.Add(1)
	s.FilesTotal.Add(int64(f.FilesTotal))
	s.FilesPruned.Add(int64(f.FilesPruned))
	s.ManifestsTotal.Add(int64(f.ManifestsTotal))
	s.ManifestsPruned.Add(int64(f.ManifestsPruned))
	s.BucketsPruned.Add(int64(f.BucketsPruned))
	s.Splits.Add(int64(f.Splits))
	s.Partitions.Add(int64(f.Partitions))
}
