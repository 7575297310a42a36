package datafile_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime/metrics"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// TestZstdWriterEncoderMemory: writing many small zstd files one after the
// other allocates a bounded amount per file, whatever the file: the
// writers share pooled encoders with a one-page window. With a codec per
// writer and zstd's default 8 MB window, each file with a page larger than
// a zstd block (128 kB) allocated a fresh encoder and its history buffer
// (and every writer still open held one). The files read back.
func TestZstdWriterEncoderMemory(t *testing.T) {
	cols := []datafile.Column{
		{ID: 0, Name: "k", Type: schema.DataType{Root: schema.TypeBigInt}},
		{ID: 1, Name: "s", Type: schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const rows = 4000 // a string page of about 150 kB: larger than a zstd block
	write := func(seed int) []byte {
		var buf bytes.Buffer
		w, err := datafile.NewParquetWriter(&buf, cols, datafile.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if err := w.Write([]any{int64(i), fmt.Sprintf("%d-%x-%x", seed, rng.Uint64(), rng.Uint64()%1000)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	write(0) // the first file makes the shared encoder
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	const files = 20
	var last []byte
	for i := range files {
		last = write(i + 1)
	}
	metrics.Read(s)
	per := (s[0].Value.Uint64() - before) / files
	t.Logf("%d kB allocated per file of %d kB", per>>10, len(last)>>10)
	// 0.8 MB per file with the shared encoders; 9 MB with an encoder per
	// writer (its history buffer sized by zstd's default 8 MB window).
	if per > 4<<20 {
		t.Errorf("%d MB allocated per file: encoders are not shared or keep zstd's default window", per>>20)
	}
	r, err := datafile.OpenParquet(bytesFile(last), cols, datafile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	batch := make([][]any, 512)
	n := 0
	for {
		m, err := r.Next(batch)
		if err != nil {
			break
		}
		for _, row := range batch[:m] {
			if row[0] != int64(n) {
				t.Fatalf("row %d reads back as %v", n, row)
			}
			n++
		}
	}
	if n != rows {
		t.Fatalf("%d rows read back, want %d", n, rows)
	}
}
