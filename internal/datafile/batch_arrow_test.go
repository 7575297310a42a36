package datafile_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

func sampleVectors(n int) (ints, strs datafile.Vector) {
	ints.Reset(schema.AtomicType(schema.TypeBigInt), n)
	strs.Reset(schema.StringType(), n)
	for i := range n {
		if i%7 == 3 {
			ints.SetNull(i)
			strs.SetNull(i)
			continue
		}
		ints.Int64[i] = int64(i) * 3
		strs.Str[i] = fmt.Sprintf("s%d", i)
	}
	return ints, strs
}

// TestVectorArrow: a typed vector and its Arrow array hold the same values
// and NULLs.
func TestVectorArrow(t *testing.T) {
	ints, strs := sampleVectors(100)
	a := ints.Arrow().(*array.Int64)
	s := strs.Arrow().(*array.String)
	if a.Len() != 100 || s.Len() != 100 || a.NullN() != 14 || s.NullN() != 14 {
		t.Fatalf("lengths %d %d, nulls %d %d", a.Len(), s.Len(), a.NullN(), s.NullN())
	}
	for i := range 100 {
		if a.IsNull(i) != ints.IsNull(i) || s.IsNull(i) != strs.IsNull(i) {
			t.Fatalf("entry %d: null mismatch", i)
		}
		if !a.IsNull(i) && (a.Value(i) != ints.Int64[i] || s.Value(i) != strs.Str[i]) {
			t.Fatalf("entry %d: %d %q, want %d %q", i, a.Value(i), s.Value(i), ints.Int64[i], strs.Str[i])
		}
	}
	var any datafile.Vector
	any.Reset(schema.DecimalType(10, 2), 3)
	if any.Arrow() != nil {
		t.Error("a boxed vector converted to Arrow")
	}
}

// BenchmarkVectorFill fills a 1024-row BIGINT and STRING batch with the
// native typed vectors (what NextBatch does per page run) and converts it to
// Arrow; BenchmarkArrowBuilder appends the same values through arrow-go's
// builders. Per value, ns/op / 2048.
func BenchmarkVectorFill(b *testing.B) {
	strs := make([]string, 1024)
	for i := range strs {
		strs[i] = fmt.Sprintf("customer-%04d", i)
	}
	var iv, sv datafile.Vector
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			iv.Reset(schema.AtomicType(schema.TypeBigInt), 1024)
			sv.Reset(schema.StringType(), 1024)
			for i := range 1024 {
				if i%11 == 0 {
					iv.SetNull(i)
					sv.SetNull(i)
					continue
				}
				iv.Int64[i] = int64(i)
				sv.Str[i] = strs[i]
			}
		}
	})
	b.Run("native+arrow", func(b *testing.B) {
		for b.Loop() {
			iv.Reset(schema.AtomicType(schema.TypeBigInt), 1024)
			sv.Reset(schema.StringType(), 1024)
			for i := range 1024 {
				if i%11 == 0 {
					iv.SetNull(i)
					sv.SetNull(i)
					continue
				}
				iv.Int64[i] = int64(i)
				sv.Str[i] = strs[i]
			}
			iv.Arrow().Release()
			sv.Arrow().Release()
		}
	})
	b.Run("arrow-builder", func(b *testing.B) {
		mem := memory.NewGoAllocator()
		ib := array.NewInt64Builder(mem)
		sb := array.NewStringBuilder(mem)
		for b.Loop() {
			for i := range 1024 {
				if i%11 == 0 {
					ib.AppendNull()
					sb.AppendNull()
					continue
				}
				ib.Append(int64(i))
				sb.Append(strs[i])
			}
			ib.NewArray().Release()
			sb.NewArray().Release()
		}
	})
}
