package dv_test

import (
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/dv"
)

// benchDV builds a DV over a 1M-row file with about 10% of rows deleted.
func benchDV(b *testing.B, bitmap64 bool) (dv.DeletionVector, []byte, dv.Range) {
	r := rand.New(rand.NewPCG(1, 2))
	d := dv.New(bitmap64)
	for range 100_000 {
		if _, err := d.Delete(r.Int64N(1_000_000)); err != nil {
			b.Fatal(err)
		}
	}
	data, ranges, err := dv.WriteIndexFile([]dv.NamedDV{{FileName: "f", DV: d}}, bitmap64)
	if err != nil {
		b.Fatal(err)
	}
	return d, data, ranges[0]
}

func BenchmarkReadAll(b *testing.B) {
	for _, bitmap64 := range []bool{false, true} {
		name := map[bool]string{false: "32", true: "64"}[bitmap64]
		b.Run(name, func(b *testing.B) {
			_, data, r := benchDV(b, bitmap64)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := dv.ReadAll(data, []dv.Range{r}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSkipBatches walks 1M rows in batches of 1024, collecting the
// deleted positions of each batch with one iterator.
func BenchmarkSkipBatches(b *testing.B) {
	for _, bitmap64 := range []bool{false, true} {
		name := map[bool]string{false: "32", true: "64"}[bitmap64]
		b.Run(name, func(b *testing.B) {
			d, _, _ := benchDV(b, bitmap64)
			buf := make([]int64, 0, 1024)
			for b.Loop() {
				it := d.Iterator()
				n := 0
				for start := int64(0); start < 1_000_000; start += 1024 {
					buf = it.AppendUntil(buf[:0], start+1024)
					n += len(buf)
				}
				if int64(n) != d.Cardinality() {
					b.Fatal(n)
				}
			}
		})
	}
}

func BenchmarkIsDeleted(b *testing.B) {
	for _, bitmap64 := range []bool{false, true} {
		name := map[bool]string{false: "32", true: "64"}[bitmap64]
		b.Run(name, func(b *testing.B) {
			d, _, _ := benchDV(b, bitmap64)
			for b.Loop() {
				n := 0
				for p := range int64(1_000_000) {
					if d.IsDeleted(p) {
						n++
					}
				}
				if int64(n) != d.Cardinality() {
					b.Fatal(n)
				}
			}
		})
	}
}
