package datafile_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// dictCapable reports whether the writer may dictionary-encode a top-level
// column of type t (writer_dict.go: integers, INT32/INT64 decimals,
// dates, times, millisecond and microsecond timestamps, strings, binary).
func dictCapable(t schema.DataType) bool {
	switch t.Root {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt, schema.TypeDate, schema.TypeTime,
		schema.TypeChar, schema.TypeVarChar, schema.TypeBinary, schema.TypeVarBinary:
		return true
	case schema.TypeDecimal:
		return t.Precision <= 18
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return t.Precision <= 6
	}
	return false
}

// chunkEncodings returns, per column chunk of row group g, the encodings
// of its data pages.
func chunkEncodings(t *testing.T, data []byte, g int) [][]format.Encoding {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]format.Encoding
	for _, c := range pf.Metadata().RowGroups[g].Columns {
		var encs []format.Encoding
		for _, es := range c.MetaData.EncodingStats {
			if es.PageType == format.DataPage && es.Count > 0 {
				encs = append(encs, es.Encoding)
			}
		}
		out = append(out, encs)
	}
	return out
}

// batchRows reads every row of data through NextBatch, max at a time.
func batchRows(t *testing.T, data []byte, cols []datafile.Column, max int) [][]any {
	t.Helper()
	r, err := datafile.OpenParquet(bytesFile(data), cols, datafile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return readBatches(t, r, max)
}

// TestWriterDictionaryRandom writes random files whose columns start with
// few distinct values and then (at a random row) turn to random ones: the
// writer dictionary-encodes every dictionary-capable flat column (and only
// those), and the row reader and the batch reader give back exactly the
// rows written, whichever pages are dictionary-encoded.
func TestWriterDictionaryRandom(t *testing.T) {
	var cols []datafile.Column
	for _, c := range allTypeColumns() {
		switch c.Type.Root {
		case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
			continue
		}
		cols = append(cols, c)
	}
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 600 + rng.IntN(3000)
		switchAt := 520 + rng.IntN(n-520)
		pools := make([][]any, len(cols))
		for j, c := range cols {
			for len(pools[j]) < 1+rng.IntN(5) {
				if v := randomValue(rng, c.Type); v != nil {
					pools[j] = append(pools[j], v)
				}
			}
			if c.Type.Nullable {
				pools[j] = append(pools[j], nil)
			}
		}
		rows := make([][]any, n)
		for i := range rows {
			row := make([]any, len(cols))
			for j, c := range cols {
				if i < switchAt {
					row[j] = pools[j][rng.IntN(len(pools[j]))]
				} else {
					row[j] = randomValue(rng, c.Type)
				}
			}
			rows[i] = row
		}
		opts := datafile.WriterOptions{RowGroupRows: []int{0, 700, 1500}[seed%3]}
		data, _ := writeRows(t, cols, opts, rows)
		for j, encs := range chunkEncodings(t, data, 0) {
			dict := slices.Contains(encs, format.RLEDictionary)
			if want := dictCapable(cols[j].Type); dict != want {
				t.Fatalf("seed %d: column %s (%s): data page encodings %v", seed, cols[j].Name, cols[j].Type.Root, encs)
			}
		}
		_, got := readBack(t, data, cols)
		sameRows(t, got, rows)
		for _, max := range []int{1, 97, 4096} {
			sameRows(t, batchRows(t, data, cols, max), rows)
		}
	}
}

// TestWriterDictionaryFallsBack: a column chosen for a dictionary from its
// first rows that then takes many long distinct values falls back to PLAIN
// pages once its dictionary passes 1 MiB, whatever the page size in
// indexes, and reads back as written.
func TestWriterDictionaryFallsBack(t *testing.T) {
	str := schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}
	cols := []datafile.Column{{ID: 1, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)}, {ID: 2, Name: "s", Type: str}}
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 5000
	rows := make([][]any, n)
	for i := range rows {
		var s any = []string{"new", "paid"}[i%2]
		if i >= 1000 {
			s = fmt.Sprintf("%04d%s", i, strings.Repeat(string(rune('a'+rng.IntN(26))), 1000))
		}
		rows[i] = []any{int64(i), s}
	}
	data, _ := writeRows(t, cols, datafile.WriterOptions{}, rows)
	encs := chunkEncodings(t, data, 0)[1]
	if !slices.Contains(encs, format.RLEDictionary) || !slices.Contains(encs, format.Plain) {
		t.Fatalf("column s: data page encodings %v, want dictionary pages, then PLAIN", encs)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	md := pf.Metadata().RowGroups[0].Columns[1].MetaData
	// The dictionary page comes first; its entries stop growing within a
	// page's worth of values after 1 MiB (here 5 MB of distinct values).
	if dictSize := md.DataPageOffset - md.DictionaryPageOffset; md.DictionaryPageOffset == 0 || dictSize > 5<<19 {
		t.Fatalf("column s: dictionary page of %d bytes (offset %d)", dictSize, md.DictionaryPageOffset)
	}
	_, got := readBack(t, data, cols)
	sameRows(t, got, rows)
	sameRows(t, batchRows(t, data, cols, 1000), rows)
}
