package datafile_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

func dt(root schema.TypeRoot, nullable bool) schema.DataType {
	return schema.DataType{Root: root, Nullable: nullable}
}

func decT(p, s int, nullable bool) schema.DataType {
	return schema.DataType{Root: schema.TypeDecimal, Precision: p, Scale: s, Nullable: nullable}
}

func tsT(root schema.TypeRoot, p int, nullable bool) schema.DataType {
	return schema.DataType{Root: root, Precision: p, Nullable: nullable}
}

func ptrT(t schema.DataType) *schema.DataType { return &t }

// allTypeColumns has every primitive type, nullable and not, and nested
// types with nullable and required parts at every level.
func allTypeColumns() []datafile.Column {
	prim := []schema.DataType{
		dt(schema.TypeBoolean, false), dt(schema.TypeTinyInt, false), dt(schema.TypeSmallInt, false),
		dt(schema.TypeInt, false), dt(schema.TypeBigInt, false), dt(schema.TypeFloat, false), dt(schema.TypeDouble, false),
		decT(5, 2, false), decT(18, 4, false), decT(30, 2, false), decT(38, 10, false),
		{Root: schema.TypeChar, Length: 5}, {Root: schema.TypeVarChar, Length: schema.MaxLength},
		{Root: schema.TypeBinary, Length: 4}, {Root: schema.TypeVarBinary, Length: schema.MaxLength},
		dt(schema.TypeDate, false), tsT(schema.TypeTime, 3, false),
	}
	for _, p := range []int{0, 3, 6, 9} {
		prim = append(prim, tsT(schema.TypeTimestamp, p, false), tsT(schema.TypeLocalZonedTimestamp, p, false))
	}
	var cols []datafile.Column
	id := 0
	for _, t := range prim {
		for _, nullable := range []bool{false, true} {
			t := t
			t.Nullable = nullable
			cols = append(cols, datafile.Column{ID: id, Name: fmt.Sprintf("c%d", id), Type: t})
			id++
		}
	}
	str := schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}
	i32n := dt(schema.TypeInt, true)
	rowT := schema.DataType{Root: schema.TypeRow, Nullable: true, Fields: []schema.DataField{
		{ID: 100, Name: "a", Type: dt(schema.TypeInt, false)},
		{ID: 101, Name: "b", Type: schema.DataType{Root: schema.TypeArray, Nullable: true, Elem: ptrT(dt(schema.TypeDouble, true))}},
		{ID: 102, Name: "c", Type: str},
	}}
	nested := []schema.DataType{
		{Root: schema.TypeArray, Nullable: true, Elem: ptrT(i32n)},
		{Root: schema.TypeArray, Nullable: false, Elem: ptrT(dt(schema.TypeBigInt, false))},
		{Root: schema.TypeArray, Nullable: true, Elem: &schema.DataType{Root: schema.TypeArray, Nullable: true, Elem: ptrT(str)}},
		{Root: schema.TypeMap, Nullable: true, Key: ptrT(str), Value: ptrT(rowT)},
		{Root: schema.TypeMap, Nullable: true, Key: ptrT(dt(schema.TypeInt, false)), Value: ptrT(decT(30, 3, true))},
		{Root: schema.TypeMultiset, Nullable: true, Elem: ptrT(str)},
		rowT,
		{Root: schema.TypeRow, Nullable: false, Fields: []schema.DataField{
			{ID: 110, Name: "x", Type: tsT(schema.TypeTimestamp, 9, true)},
			{ID: 111, Name: "m", Type: schema.DataType{Root: schema.TypeMap, Nullable: true, Key: ptrT(dt(schema.TypeInt, false)), Value: ptrT(str)}},
		}},
	}
	for _, t := range nested {
		cols = append(cols, datafile.Column{ID: id, Name: fmt.Sprintf("c%d", id), Type: t})
		id++
	}
	return cols
}

// randomValue draws a value of t (nil with some probability when nullable),
// already normalized to what the file stores (timestamps at their precision).
func randomValue(rng *rand.Rand, t schema.DataType) any {
	if t.Nullable && rng.IntN(5) == 0 {
		return nil
	}
	switch t.Root {
	case schema.TypeBoolean:
		return rng.IntN(2) == 0
	case schema.TypeTinyInt:
		return int8(rng.IntN(256) - 128)
	case schema.TypeSmallInt:
		return int16(rng.IntN(65536) - 32768)
	case schema.TypeInt:
		return int32(rng.Uint32())
	case schema.TypeBigInt:
		return int64(rng.Uint64())
	case schema.TypeFloat:
		return float32(rng.NormFloat64() * 1e3)
	case schema.TypeDouble:
		return rng.NormFloat64() * 1e6
	case schema.TypeDecimal:
		digits := rng.IntN(t.Precision) + 1
		var sb strings.Builder
		sb.WriteByte(byte('1' + rng.IntN(9)))
		for i := 1; i < digits; i++ {
			sb.WriteByte(byte('0' + rng.IntN(10)))
		}
		u, _ := new(big.Int).SetString(sb.String(), 10)
		if rng.IntN(2) == 0 {
			u.Neg(u)
		}
		if u.IsInt64() {
			return schema.Decimal{Compact: u.Int64(), Scale: int32(t.Scale)}
		}
		return schema.Decimal{Big: u, Scale: int32(t.Scale)}
	case schema.TypeChar, schema.TypeVarChar:
		words := []string{"", "a", "héllo", "Two roads diverged in a wood", "日本語", "zz"}
		return fmt.Sprintf("%s%d", words[rng.IntN(len(words))], rng.IntN(100))
	case schema.TypeBinary, schema.TypeVarBinary:
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	case schema.TypeDate:
		return schema.Date(rng.IntN(200000) - 100000)
	case schema.TypeTime:
		return schema.Time(rng.IntN(86400000))
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		ts := schema.Timestamp{Millis: rng.Int64N(8e12) - 4e12, NanoOfMilli: int32(rng.IntN(1000000))}
		switch {
		case t.Precision <= 3:
			ts.NanoOfMilli = 0
		case t.Precision <= 6:
			ts.NanoOfMilli -= ts.NanoOfMilli % 1000
		}
		return ts
	case schema.TypeArray:
		n := rng.IntN(4)
		out := make([]any, n)
		for i := range out {
			out[i] = randomValue(rng, *t.Elem)
		}
		return out
	case schema.TypeMap, schema.TypeMultiset:
		kt, vt := t.Key, t.Value
		if t.Root == schema.TypeMultiset {
			kt, vt = t.Elem, &schema.DataType{Root: schema.TypeInt}
		}
		k := *kt
		k.Nullable = false
		n := rng.IntN(3)
		m := schema.Map{Keys: make([]any, n), Values: make([]any, n)}
		for i := 0; i < n; i++ {
			m.Keys[i] = randomValue(rng, k)
			m.Values[i] = randomValue(rng, *vt)
		}
		return m
	case schema.TypeRow:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = randomValue(rng, f.Type)
		}
		return out
	}
	panic(fmt.Sprintf("type %d", t.Root))
}

func randomRows(seed uint64, cols []datafile.Column, n int) [][]any {
	rng := rand.New(rand.NewPCG(seed, 7))
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = randomValue(rng, c.Type)
		}
		rows[i] = row
	}
	return rows
}

func readBack(t *testing.T, data []byte, cols []datafile.Column) (*datafile.ParquetReader, [][]any) {
	t.Helper()
	r, err := datafile.OpenParquet(bytesFile(data), cols, datafile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, readAll(t, r, 333)
}

func sameRows(t *testing.T, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(want))
	}
	for i := range want {
		if a, b := renderRow(got[i]), renderRow(want[i]); a != b {
			t.Fatalf("row %d:\nread  %s\nwrote %s", i, a, b)
		}
	}
}

// footerImpliedStats is what Java's ParquetSimpleStatsExtractor derives from
// a written file's footer under each column's stats mode.
func footerImpliedStats(r *datafile.ParquetReader, cols []datafile.Column, modes []string) []datafile.ColumnStats {
	fs := r.FileStats()
	for i, c := range cols {
		switch c.Type.Root {
		case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
			fs[i] = datafile.ColumnStats{NullCount: -1}
			continue
		}
		if f, ok := fs[i].Min.(float64); ok && (math.IsNaN(f) || math.IsNaN(fs[i].Max.(float64))) {
			// parquet-mr drops NaN bounds when reading a footer.
			fs[i].Min, fs[i].Max = nil, nil
		}
		if f, ok := fs[i].Min.(float32); ok && (math.IsNaN(float64(f)) || math.IsNaN(float64(fs[i].Max.(float32)))) {
			fs[i].Min, fs[i].Max = nil, nil
		}
		m := datafile.DefaultStatsMode
		if modes != nil {
			m, _ = datafile.ParseStatsMode(modes[i])
		}
		fs[i] = m.Apply(fs[i])
	}
	return fs
}

func TestWriterRoundTripAllTypes(t *testing.T) {
	cols := allTypeColumns()
	rows := randomRows(1, cols, 3000)
	// Edge values in the first rows.
	edge := make([]any, len(cols))
	copy(edge, rows[0])
	for j, c := range cols {
		switch c.Type.Root {
		case schema.TypeDecimal:
			max := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.Type.Precision)), nil), big.NewInt(1))
			if max.IsInt64() {
				edge[j] = schema.Decimal{Compact: -max.Int64(), Scale: int32(c.Type.Scale)}
			} else {
				edge[j] = schema.Decimal{Big: new(big.Int).Neg(max), Scale: int32(c.Type.Scale)}
			}
		case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
			if c.Type.Precision > 6 {
				// Before 1970, where Java's truncating INT96 arithmetic shows.
				edge[j] = schema.Timestamp{Millis: -1, NanoOfMilli: 500000}
			}
		case schema.TypeArray:
			if c.Type.Nullable {
				edge[j] = []any{}
			}
		}
	}
	rows[0] = edge
	for _, groupRows := range []int{0, 700} {
		t.Run(fmt.Sprintf("rowgroup=%d", groupRows), func(t *testing.T) {
			out, st := writeRows(t, cols, datafile.WriterOptions{RowGroupRows: groupRows, StatsModes: nil}, rows)
			r, got := readBack(t, out, cols)
			sameRows(t, got, rows)
			wantGroups := 1
			if groupRows > 0 {
				wantGroups = (len(rows) + groupRows - 1) / groupRows
			}
			if n := len(r.RowGroups()); n != wantGroups {
				t.Fatalf("%d row groups, want %d", n, wantGroups)
			}
			if st.RowCount != int64(len(rows)) {
				t.Fatalf("row count %d", st.RowCount)
			}
			implied := footerImpliedStats(r, cols, nil)
			for i, c := range cols {
				if a, b := renderStats(st.Columns[i]), renderStats(implied[i]); a != b {
					t.Errorf("column %s %v: collected %s, footer implies %s", c.Name, c.Type.Root, a, b)
				}
			}
		})
	}
}

// TestWriterStatsAgainstModel checks collected stats against min/max
// computed here over the values, for every mode.
func TestWriterStatsAgainstModel(t *testing.T) {
	cols := []datafile.Column{
		{ID: 1, Name: "s", Type: schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}},
		{ID: 2, Name: "i", Type: dt(schema.TypeBigInt, true)},
		{ID: 3, Name: "d", Type: decT(38, 0, true)},
		{ID: 4, Name: "b", Type: schema.DataType{Root: schema.TypeVarBinary, Length: schema.MaxLength, Nullable: true}},
		{ID: 5, Name: "t9", Type: tsT(schema.TypeTimestamp, 9, true)},
		{ID: 6, Name: "t3", Type: tsT(schema.TypeTimestamp, 3, true)},
		{ID: 7, Name: "f", Type: dt(schema.TypeDouble, true)},
		{ID: 8, Name: "allnull", Type: dt(schema.TypeInt, true)},
	}
	neg := new(big.Int).Neg(new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil))
	rows := [][]any{
		{"b" + strings.Repeat("x", 20), int64(5), schema.Decimal{Big: neg}, []byte{1}, schema.Timestamp{Millis: 5}, schema.Timestamp{Millis: 7, NanoOfMilli: 999}, math.NaN(), nil},
		{"a", int64(-3), schema.Decimal{Compact: 1}, nil, nil, schema.Timestamp{Millis: -2}, 2.5, nil},
		{nil, nil, schema.Decimal{Compact: -1}, []byte{0}, schema.Timestamp{Millis: 9}, nil, -1.5, nil},
	}
	// What the file stores: TIMESTAMP(3) drops the nanos.
	stored := make([][]any, len(rows))
	for i, r := range rows {
		stored[i] = append([]any(nil), r...)
		if ts, ok := r[5].(schema.Timestamp); ok {
			stored[i][5] = schema.Timestamp{Millis: ts.Millis}
		}
	}
	check := func(modes []string, want []string) {
		t.Helper()
		out, st := writeRows(t, cols, datafile.WriterOptions{StatsModes: modes}, rows)
		r, got := readBack(t, out, cols)
		sameRows(t, got, stored)
		implied := footerImpliedStats(r, cols, modes)
		for i := range cols {
			if g := renderStats(st.Columns[i]); g != want[i] {
				t.Errorf("modes %v column %s: %s, want %s", modes, cols[i].Name, g, want[i])
			}
			if cols[i].Name == "f" && implied[i].Min != nil {
				// NaN: Java's footer would hold max=NaN (Double.compare
				// order) and its reader drops such bounds; parquet-go
				// leaves NaN out of the bounds instead. The collected stats
				// follow Java (unknown), which is safe for pruning.
				if st.Columns[i].Min != nil {
					t.Errorf("column f with NaN: collected %s", renderStats(st.Columns[i]))
				}
				continue
			}
			if a, b := renderStats(st.Columns[i]), renderStats(implied[i]); a != b {
				t.Errorf("modes %v column %s: collected %s, footer implies %s", modes, cols[i].Name, a, b)
			}
		}
	}
	check([]string{"full", "full", "full", "full", "full", "full", "full", "full"}, []string{
		`min="a" max="bxxxxxxxxxxxxxxxxxxxx" nulls=1`,
		`min=-3 max=5 nulls=1`,
		`min=-1000000000000000000000000000000 max=1 nulls=0`,
		`min=null max=null nulls=1`,
		`min=null max=null nulls=1`,
		`min=1969-12-31T23:59:59.998 max=1970-01-01T00:00:00.007 nulls=1`,
		`min=null max=null nulls=0`,
		`min=null max=null nulls=3`,
	})
	check([]string{"truncate(4)", "TRUNCATE(4)", "counts", "none", "counts", "none", "truncate(16)", "none"}, []string{
		`min="a" max="bxxy" nulls=1`,
		`min=-3 max=5 nulls=1`,
		`min=null max=null nulls=0`,
		`min=null max=null nulls=-1`,
		`min=null max=null nulls=1`,
		`min=null max=null nulls=-1`,
		`min=null max=null nulls=0`,
		`min=null max=null nulls=-1`,
	})
}

func TestTruncateMax(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		ok   bool
	}{
		{"abc", 3, "abc", true},
		{"abcd", 3, "abd", true},
		{"héllo wörld", 2, "hê", true},
		{"a\U0010FFFF\U0010FFFFz", 3, "b", true},
		{"\U0010FFFF\U0010FFFFz", 2, "", false},
		{"日本語です", 2, "日札", true},
	} {
		got, ok := datafile.TruncateMax(c.in, c.n)
		if got != c.want || ok != c.ok {
			t.Errorf("TruncateMax(%q, %d) = %q, %v; want %q, %v", c.in, c.n, got, ok, c.want, c.ok)
		}
	}
	if got := datafile.TruncateMin("日本語です", 2); got != "日本" {
		t.Errorf("TruncateMin = %q", got)
	}
	// No upper bound: truncate drops both bounds.
	s := datafile.StatsMode{Kind: datafile.StatsTruncate, Truncate: 2}.Apply(datafile.ColumnStats{Min: "a", Max: "\U0010FFFF\U0010FFFFz", NullCount: 4})
	if s.Min != nil || s.Max != nil || s.NullCount != 4 {
		t.Errorf("Apply without upper bound = %+v", s)
	}
	for _, bad := range []string{"truncate(0)", "truncate(x)", "sum", "truncate(-1)"} {
		if _, err := datafile.ParseStatsMode(bad); err == nil {
			t.Errorf("ParseStatsMode(%q) accepted", bad)
		}
	}
}

// TestWriterNestedNullsAtEveryLevel writes hand-picked nested values with
// NULLs and empties at each level.
func TestWriterNestedNullsAtEveryLevel(t *testing.T) {
	str := schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}
	inner := schema.DataType{Root: schema.TypeArray, Nullable: true, Elem: ptrT(str)}
	rowT := schema.DataType{Root: schema.TypeRow, Nullable: true, Fields: []schema.DataField{
		{ID: 10, Name: "a", Type: dt(schema.TypeInt, true)},
		{ID: 11, Name: "l", Type: inner},
	}}
	cols := []datafile.Column{
		{ID: 1, Name: "aa", Type: schema.DataType{Root: schema.TypeArray, Nullable: true, Elem: ptrT(inner)}},
		{ID: 2, Name: "m", Type: schema.DataType{Root: schema.TypeMap, Nullable: true, Key: ptrT(str), Value: ptrT(rowT)}},
		{ID: 3, Name: "r", Type: rowT},
	}
	rows := [][]any{
		{nil, nil, nil},
		{[]any{}, schema.Map{Keys: []any{}, Values: []any{}}, []any{nil, nil}},
		{[]any{nil}, schema.Map{Keys: []any{"k"}, Values: []any{nil}}, []any{int32(1), []any{}}},
		{[]any{[]any{}}, schema.Map{Keys: []any{"k"}, Values: []any{[]any{nil, nil}}}, []any{nil, []any{nil}}},
		{[]any{[]any{nil}, nil, []any{"x", nil, "y"}}, schema.Map{Keys: []any{"a", "b"}, Values: []any{[]any{int32(2), []any{"p"}}, []any{nil, []any{}}}}, []any{int32(3), []any{"q", "r"}}},
	}
	out, _ := writeRows(t, cols, datafile.WriterOptions{}, rows)
	_, got := readBack(t, out, cols)
	sameRows(t, got, rows)
}

func TestWriterErrorsNameTheColumn(t *testing.T) {
	str := schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}
	cols := []datafile.Column{
		{ID: 1, Name: "k", Type: str},
		{ID: 2, Name: "dec", Type: decT(5, 2, true)},
		{ID: 3, Name: "big", Type: decT(20, 2, true)},
		{ID: 4, Name: "arr", Type: schema.DataType{Root: schema.TypeArray, Nullable: true, Elem: ptrT(dt(schema.TypeInt, false))}},
		{ID: 5, Name: "m", Type: schema.DataType{Root: schema.TypeMap, Nullable: true, Key: ptrT(str), Value: ptrT(dt(schema.TypeInt, true))}},
		{ID: 6, Name: "ts", Type: tsT(schema.TypeTimestamp, 3, true)},
		{ID: 7, Name: "r", Type: schema.DataType{Root: schema.TypeRow, Nullable: true, Fields: []schema.DataField{{ID: 8, Name: "x", Type: dt(schema.TypeInt, false)}}}},
	}
	good := []any{"a", nil, nil, nil, nil, nil, nil}
	var buf bytes.Buffer
	w, err := datafile.NewParquetWriter(&buf, cols, datafile.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	with := func(i int, v any) []any {
		r := append([]any(nil), good...)
		r[i] = v
		return r
	}
	for _, c := range []struct {
		row  []any
		want string
	}{
		{with(0, nil), "NULL in NOT NULL column k"},
		{with(0, 5), "column k"},
		{with(0, []byte("a")), "column k"},
		{with(1, 1.5), "column dec"},
		{with(1, schema.Decimal{Compact: 100000, Scale: 2}), "column dec"},
		{with(1, schema.Decimal{Compact: 1, Scale: 3}), "column dec"},
		{with(2, schema.Decimal{Big: new(big.Int).Exp(big.NewInt(10), big.NewInt(25), nil), Scale: 2}), "column big"},
		{with(3, []any{int32(1), nil}), "NULL in NOT NULL column arr.element"},
		{with(3, []int32{1}), "column arr"},
		{with(4, schema.Map{Keys: []any{nil}, Values: []any{int32(1)}}), "NULL in NOT NULL column m.key"},
		{with(4, schema.Map{Keys: []any{"a"}, Values: []any{"v"}}), "column m.value"},
		{with(4, schema.Map{Keys: []any{"a"}, Values: []any{}}), "column m"},
		{with(5, int64(5)), "column ts"},
		{with(5, schema.Timestamp{NanoOfMilli: -1}), "column ts"},
		{with(6, []any{nil}), "NULL in NOT NULL column r.x"},
		{with(6, []any{int32(1), int32(2)}), "column r"},
		{[]any{"a"}, "row has 1 values"},
	} {
		err := w.Write(c.row)
		if !errors.Is(err, datafile.ErrInvalidValue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write(%v) = %v, want ErrInvalidValue containing %q", c.row, err, c.want)
		}
	}
	// Rejected rows left nothing behind; good rows still go in.
	ok := []any{"z", schema.Decimal{Compact: 1, Scale: 1}, schema.Decimal{Compact: -5, Scale: 0}, []any{int32(1)},
		schema.Map{Keys: []any{"a"}, Values: []any{nil}}, schema.Timestamp{Millis: 1}, []any{int32(4)}}
	if err := w.Write(ok); err != nil {
		t.Fatal(err)
	}
	if w.RowCount() != 1 {
		t.Fatalf("row count %d", w.RowCount())
	}
	st, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if st.Columns[1].Min == nil || render(st.Columns[1].Min) != "0.10" {
		t.Fatalf("rescaled decimal stats %+v", st.Columns[1])
	}
	_, got := readBack(t, buf.Bytes(), cols)
	want := append([]any(nil), ok...)
	want[1] = schema.Decimal{Compact: 10, Scale: 2}
	want[2] = schema.Decimal{Compact: -500, Scale: 2}
	sameRows(t, got, [][]any{want})
	if err := w.Write(ok); !errors.Is(err, datafile.ErrWriterClosed) {
		t.Fatalf("Write after Close = %v", err)
	}
	if _, err := w.Close(); !errors.Is(err, datafile.ErrWriterClosed) {
		t.Fatalf("second Close = %v", err)
	}
}

func TestWriterOptionErrors(t *testing.T) {
	cols := []datafile.Column{{ID: 1, Name: "a", Type: dt(schema.TypeInt, true)}}
	for _, c := range []struct {
		cols []datafile.Column
		opts datafile.WriterOptions
		is   error
	}{
		{cols, datafile.WriterOptions{Compression: "lzo"}, datafile.ErrUnsupported},
		{cols, datafile.WriterOptions{ZstdLevel: 40}, datafile.ErrInvalidSchema},
		{cols, datafile.WriterOptions{StatsModes: []string{"full", "full"}}, datafile.ErrInvalidSchema},
		{cols, datafile.WriterOptions{StatsModes: []string{"bogus"}}, datafile.ErrInvalidSchema},
		{nil, datafile.WriterOptions{}, datafile.ErrInvalidSchema},
		{append(cols, cols[0]), datafile.WriterOptions{}, datafile.ErrInvalidSchema},
		{[]datafile.Column{{ID: 1, Name: "d", Type: decT(39, 0, true)}}, datafile.WriterOptions{}, datafile.ErrInvalidSchema},
		{[]datafile.Column{{ID: 1, Name: "a", Type: schema.DataType{Root: schema.TypeArray}}}, datafile.WriterOptions{}, datafile.ErrInvalidSchema},
	} {
		if _, err := datafile.NewParquetWriter(&bytes.Buffer{}, c.cols, c.opts); !errors.Is(err, c.is) {
			t.Errorf("NewParquetWriter(%v, %+v) = %v, want %v", c.cols, c.opts, err, c.is)
		}
	}
}

func TestWriterCodecsRoundTrip(t *testing.T) {
	cols := allTypeColumns()
	rows := randomRows(2, cols, 500)
	want := map[string]format.CompressionCodec{
		"": format.Zstd, "zstd": format.Zstd, "ZSTD": format.Zstd, "snappy": format.Snappy, "gzip": format.Gzip,
		"lz4": format.Lz4Raw, "brotli": format.Brotli, "none": format.Uncompressed, "uncompressed": format.Uncompressed,
	}
	// parquet-go v0.32's reader mishandles LZ4_RAW pages that compress less
	// than about 3x (Column.decompress keeps its own buffer when the codec
	// returns a new one of exactly the page size), so the LZ4 file is made
	// of compressible rows; the writer side of incompressible pages is
	// covered by TestLZ4LiteralBlock.
	compressible := make([][]any, len(rows))
	for i := range compressible {
		compressible[i] = rows[i%7]
	}
	for name, codec := range want {
		for _, level := range []int{0, 3, 9} {
			if level != 0 && name != "zstd" {
				continue
			}
			rows := rows
			if name == "lz4" {
				rows = compressible
			}
			out, _ := writeRows(t, cols, datafile.WriterOptions{Compression: name, ZstdLevel: level}, rows)
			pf, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range pf.Metadata().RowGroups[0].Columns {
				if c.MetaData.Codec != codec {
					t.Fatalf("%q: column %v codec %v, want %v", name, c.MetaData.PathInSchema, c.MetaData.Codec, codec)
				}
			}
			_, got := readBack(t, out, cols)
			sameRows(t, got, rows)
		}
	}
}

// TestWriterEncodingsAreV1 checks what parquet-mr-era readers expect: data
// page v1, PLAIN or dictionary values, RLE levels.
func TestWriterEncodingsAreV1(t *testing.T) {
	cols := allTypeColumns()
	out, _ := writeRows(t, cols, datafile.WriterOptions{}, randomRows(3, cols, 200))
	pf, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		for _, e := range c.MetaData.Encoding {
			switch e {
			case format.Plain, format.RLE, format.RLEDictionary:
			default:
				t.Errorf("column %v uses encoding %v", c.MetaData.PathInSchema, e)
			}
		}
	}
	for _, rg := range pf.RowGroups() {
		for _, cc := range rg.ColumnChunks() {
			pages := cc.Pages()
			for {
				p, err := pages.ReadPage()
				if err != nil {
					break
				}
				parquet.Release(p)
			}
			pages.Close()
		}
	}
	// Every data page header is v1.
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		for _, es := range c.MetaData.EncodingStats {
			if es.PageType == format.DataPageV2 {
				t.Errorf("column %v has v2 data pages", c.MetaData.PathInSchema)
			}
		}
	}
}

// TestWriterSignedDecimalBounds: DECIMAL(p > 18) is a FIXED_LEN_BYTE_ARRAY
// that Parquet orders as a signed integer; the footer and the column index
// must not use byte order.
func TestWriterSignedDecimalBounds(t *testing.T) {
	cols := []datafile.Column{{ID: 1, Name: "d", Type: decT(38, 2, true)}}
	var rows [][]any
	for i := -300; i < 300; i++ {
		rows = append(rows, []any{schema.Decimal{Compact: int64(i) * 1000003, Scale: 2}})
	}
	out, st := writeRows(t, cols, datafile.WriterOptions{StatsModes: []string{"full"}}, rows)
	if a, b := render(st.Columns[0].Min), render(st.Columns[0].Max); a != "-3000009.00" || b != "2990008.97" {
		t.Fatalf("collected min %s max %s", a, b)
	}
	r, got := readBack(t, out, cols)
	sameRows(t, got, rows)
	if fs := r.FileStats(); render(fs[0].Min) != "-3000009.00" || render(fs[0].Max) != "2990008.97" {
		t.Fatalf("footer min %s max %s", render(fs[0].Min), render(fs[0].Max))
	}
	pf, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := pf.RowGroups()[0].ColumnChunks()[0].ColumnIndex()
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < ci.NumPages(); p++ {
		lo, hi := ci.MinValue(p).ByteArray(), ci.MaxValue(p).ByteArray()
		if len(lo) != 16 || len(hi) != 16 || (lo[0]&0x80 == 0 && hi[0]&0x80 != 0) {
			t.Fatalf("page %d bounds %x..%x", p, lo, hi)
		}
	}
}

func TestWriterBytesWrittenGrows(t *testing.T) {
	cols := []datafile.Column{{ID: 1, Name: "s", Type: schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}}}
	var buf bytes.Buffer
	w, err := datafile.NewParquetWriter(&buf, cols, datafile.WriterOptions{Compression: "none", RowGroupRows: 5000})
	if err != nil {
		t.Fatal(err)
	}
	prev := w.BytesWritten()
	for i := 0; i < 20000; i++ {
		if err := w.Write([]any{fmt.Sprintf("value-%08d", i)}); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 999 {
			cur := w.BytesWritten()
			if cur <= prev {
				t.Fatalf("after %d rows BytesWritten %d, before %d", i+1, cur, prev)
			}
			prev = cur
		}
	}
	est := w.BytesWritten()
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if real := int64(buf.Len()); est < real/2 || est > real*2 {
		t.Fatalf("estimate %d, file %d", est, real)
	}
}

// TestWritersShareCodecConcurrently: writers running at once share their
// level's zstd codec (its pooled encoders); every file reads back.
func TestWritersShareCodecConcurrently(t *testing.T) {
	cols := allTypeColumns()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows := randomRows(uint64(10+g), cols, 300)
			out, _ := writeRows(t, cols, datafile.WriterOptions{ZstdLevel: 1 + g%2}, rows)
			_, got := readBack(t, out, cols)
			sameRows(t, got, rows)
		}()
	}
	wg.Wait()
}
