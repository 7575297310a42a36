package metrics

import (
	"errors"
	"sync/atomic"
)

// A statement's memory: what it holds in memory while it runs, counted
// where lakesql sees it — the rows a writing statement buffers for its
// commit (Charge, at their value size) and the rows go-mysql-server's
// sorting, grouping, DISTINCT and join operators keep (Cached, at the
// average size of the rows the statement's scans produced, sampled by
// SampleRow). A statement whose Limit is set fails with ErrMemoryLimit when
// the total exceeds it.

// ErrMemoryLimit is returned when a statement exceeds its memory limit.
var ErrMemoryLimit = errors.New("metrics: statement memory limit exceeded")

// statementMemory is embedded in Statement.
type statementMemory struct {
	// Limit is the statement's memory limit in bytes (0: none); set before
	// the statement runs.
	Limit   int64
	charged atomic.Int64
	cached  atomic.Int64 // rows kept by the engine's operators
	sampled atomic.Int64 // bytes of the sampled rows
	samples atomic.Int64
}

// Charge adds n bytes the statement holds; past the limit it returns
// ErrMemoryLimit.
func (s *Statement) Charge(n int64) error {
	if s == nil {
		return nil
	}
	used := s.charged.Add(n)
	if s.Limit > 0 && used+s.cachedBytes() > s.Limit {
		return ErrMemoryLimit
	}
	return nil
}

// Cached counts one more row kept by an operator of the engine and returns
// the statement's memory then.
func (s *Statement) Cached() int64 {
	s.cached.Add(1)
	return s.MemoryUsed()
}

// rowOverhead is what a row held as GMS values costs beyond its values'
// bytes (the slice, the boxed values).
const rowOverhead = 64

// sampleEvery samples one row of this many.
const sampleEvery = 64

// SampleRow samples the size of the n-th row a scan of the statement
// produced (every sampleEvery-th row is measured).
func (s *Statement) SampleRow(n int64, row []any) {
	if s == nil || n%sampleEvery != 0 {
		return
	}
	s.sampled.Add(RowSize(row))
	s.samples.Add(1)
}

// RowSize is the approximate in-memory size of a row of values.
func RowSize(row []any) int64 {
	n := int64(rowOverhead + 16*len(row))
	for _, v := range row {
		switch x := v.(type) {
		case string:
			n += int64(len(x))
		case []byte:
			n += int64(len(x))
		}
	}
	return n
}

func (s *Statement) cachedBytes() int64 {
	rows := s.cached.Load()
	if rows == 0 {
		return 0
	}
	avg := int64(rowOverhead)
	if k := s.samples.Load(); k > 0 {
		avg = s.sampled.Load() / k
	}
	return rows * avg
}

// MemoryUsed is the statement's memory as counted so far.
func (s *Statement) MemoryUsed() int64 {
	if s == nil {
		return 0
	}
	return s.charged.Load() + s.cachedBytes()
}
