package datafile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

type innerRec struct {
	A *int32  `parquet:"a,id(4),optional"`
	L []int64 `parquet:"l,id(5),list"`
}

type nestedRec struct {
	ID     int64            `parquet:"id,id(0)"`
	Name   *string          `parquet:"name,id(1),optional,dict"`
	Legacy []int32          `parquet:"legacy,id(2)"`
	Inner  *innerRec        `parquet:"inner,id(3),optional"`
	M      map[string]int64 `parquet:"m,id(6)"`
}

var (
	tInt64  = schema.DataType{Root: schema.TypeBigInt}
	tInt32N = schema.DataType{Root: schema.TypeInt, Nullable: true}
	tStrN   = schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}
)

func nestedCols() []datafile.Column {
	elem64 := tInt64
	elem32 := schema.DataType{Root: schema.TypeInt}
	key := schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}
	return []datafile.Column{
		{ID: 0, Name: "id", Type: tInt64},
		{ID: 1, Name: "name", Type: tStrN},
		{ID: 2, Name: "legacy", Type: schema.DataType{Root: schema.TypeArray, Elem: &elem32}},
		{ID: 3, Name: "inner", Type: schema.DataType{Root: schema.TypeRow, Nullable: true, Fields: []schema.DataField{
			{ID: 4, Name: "a", Type: tInt32N},
			{ID: 99, Name: "missing", Type: tInt32N},
			{ID: 5, Name: "l", Type: schema.DataType{Root: schema.TypeArray, Elem: &elem64}},
		}}},
		{ID: 6, Name: "m", Type: schema.DataType{Root: schema.TypeMap, Key: &key, Value: &elem64}},
	}
}

func makeNested(n int) ([]nestedRec, [][]any) {
	recs := make([]nestedRec, n)
	want := make([][]any, n)
	for i := range recs {
		r := nestedRec{ID: int64(i)}
		row := []any{int64(i), nil, []any{}, nil, schema.Map{Keys: []any{}, Values: []any{}}}
		if i%4 != 0 {
			s := fmt.Sprintf("name-%d", i%5)
			r.Name = &s
			row[1] = s
		}
		for j := range i % 3 {
			r.Legacy = append(r.Legacy, int32(i*10+j))
			row[2] = append(row[2].([]any), int32(i*10+j))
		}
		if i%5 != 0 {
			in := &innerRec{}
			inner := []any{nil, nil, []any{}}
			if i%2 == 0 {
				a := int32(-i)
				in.A = &a
				inner[0] = a
			}
			for j := range i % 4 {
				in.L = append(in.L, int64(j))
				inner[2] = append(inner[2].([]any), int64(j))
			}
			r.Inner = in
			row[3] = inner
		}
		if i%3 == 1 {
			r.M = map[string]int64{"k": int64(i)}
			row[4] = schema.Map{Keys: []any{"k"}, Values: []any{int64(i)}}
		}
		recs[i] = r
		want[i] = row
	}
	return recs, want
}

func writeNested(t testing.TB, recs []nestedRec, rowsPerGroup int64) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[nestedRec](&buf, parquet.MaxRowsPerRowGroup(rowsPerGroup), parquet.PageBufferSize(512))
	if _, err := w.Write(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Nulls and empties at every nesting level, a legacy unannotated repeated
// field, a ROW field missing from the file, dictionary-encoded strings, many
// small pages and several row groups.
func TestNestedAndNullsSynthetic(t *testing.T) {
	recs, want := makeNested(1000)
	data := writeNested(t, recs, 300)
	r, err := datafile.OpenParquet(bytesFile(data), nestedCols(), datafile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.RowGroups()) != 4 {
		t.Fatalf("%d row groups, want 4", len(r.RowGroups()))
	}
	got := readAll(t, r, 37)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := renderRow(got[i]), renderRow(want[i]); g != w {
			t.Fatalf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// Row group selection and Position, for deletion vectors.
func TestRowGroupSelectionAndPosition(t *testing.T) {
	recs, _ := makeNested(1000)
	data := writeNested(t, recs, 300)
	cols := nestedCols()[:2]
	r, err := datafile.OpenParquet(bytesFile(data), cols, datafile.ReadOptions{RowGroups: []int{1, 3}, BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	groups := r.RowGroups()
	if groups[1].FirstRow != 300 || groups[3].FirstRow != 900 || groups[3].NumRows != 100 {
		t.Fatalf("row groups %+v", groups)
	}
	if s := groups[1].Stats[0]; s.Min != int64(300) || s.Max != int64(599) || s.NullCount != 0 {
		t.Fatalf("id stats of group 1: %+v", s)
	}
	if r.Position() != 300 {
		t.Fatalf("initial position %d, want 300", r.Position())
	}
	buf := make([][]any, 100)
	var seen []int64
	for {
		pos := r.Position()
		n, err := r.Next(buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n > 64 {
			t.Fatalf("batch of %d rows above BatchSize", n)
		}
		for i, row := range buf[:n] {
			if row[0].(int64) != pos+int64(i) {
				t.Fatalf("row id %v at position %d", row[0], pos+int64(i))
			}
			seen = append(seen, row[0].(int64))
		}
	}
	if len(seen) != 400 || seen[0] != 300 || seen[299] != 599 || seen[300] != 900 {
		t.Fatalf("read ids %d..., %d rows", seen[:3], len(seen))
	}
	if r.Position() != 1000 {
		t.Fatalf("final position %d", r.Position())
	}
	fs := r.FileStats()
	if fs[0].Min != int64(0) || fs[0].Max != int64(999) || fs[1].NullCount != 250 || fs[1].Min != "name-0" || fs[1].Max != "name-4" {
		t.Fatalf("file stats %+v", fs)
	}
}

func TestTypeMismatch(t *testing.T) {
	recs, _ := makeNested(10)
	data := writeNested(t, recs, 300)
	_, err := datafile.OpenParquet(bytesFile(data), []datafile.Column{{ID: 1, Name: "name", Type: tInt64}}, datafile.ReadOptions{})
	if !errors.Is(err, datafile.ErrTypeMismatch) {
		t.Fatalf("STRING read as BIGINT: %v", err)
	}
	_, err = datafile.OpenParquet(bytesFile(data), []datafile.Column{{ID: 3, Name: "inner", Type: tInt64}}, datafile.ReadOptions{})
	if !errors.Is(err, datafile.ErrTypeMismatch) {
		t.Fatalf("ROW read as BIGINT: %v", err)
	}
}

// Truncated and bit-flipped files fail with ErrCorrupt, never panic.
func TestCorruptFiles(t *testing.T) {
	recs, _ := makeNested(200)
	data := writeNested(t, recs, 64)
	for _, cut := range []int{0, 4, 11, len(data) / 2, len(data) - 9, len(data) - 1} {
		_, err := datafile.OpenParquet(bytesFile(data[:cut]), nestedCols(), datafile.ReadOptions{})
		if !errors.Is(err, datafile.ErrCorrupt) {
			t.Errorf("truncated at %d: %v, want ErrCorrupt", cut, err)
		}
	}
	for i := 4; i < len(data)-8; i += 7 {
		d := bytes.Clone(data)
		d[i] ^= 0x5a
		readCorrupt(d)
	}
}

// readCorrupt reads a possibly corrupt file to the end; it must not panic.
func readCorrupt(data []byte) {
	r, err := datafile.OpenParquet(bytesFile(data), nestedCols(), datafile.ReadOptions{})
	if err != nil {
		return
	}
	defer r.Close()
	r.RowGroups()
	r.FileStats()
	buf := make([][]any, 64)
	for range 10000 {
		if _, err := r.Next(buf); err != nil {
			return
		}
	}
}

// FuzzOpenParquet: random bytes give errors, not panics. parquet-go may
// panic on garbage; the package recovers at its boundary and returns an error
// wrapping ErrCorrupt.
func FuzzOpenParquet(f *testing.F) {
	recs, _ := makeNested(50)
	f.Add(writeNested(f, recs, 16))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		readCorrupt(data)
	})
}
