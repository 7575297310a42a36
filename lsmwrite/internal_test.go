package lsmwrite

import (
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

func TestPartitionIndexAssign(t *testing.T) {
	p := newPartitionIndex(3)
	p.load(0, []int32{10, 11, 12}) // full
	p.load(2, []int32{20})
	p.finishLoad()
	want := []struct {
		h int32
		b int32
	}{
		{10, 0}, {20, 2}, // existing keys keep their bucket
		{30, 2}, {31, 2}, // lowest non-full bucket until full
		{32, 1}, // all full: lowest unused bucket
		{33, 1}, {34, 1},
		{35, 3},
		{30, 2},
	}
	for _, w := range want {
		if got := p.assign(w.h); got != w.b {
			t.Fatalf("assign(%d) = %d, want %d", w.h, got, w.b)
		}
	}
	if !p.changed[1] || !p.changed[2] || !p.changed[3] || p.changed[0] {
		t.Fatalf("changed buckets %v", p.changed)
	}
	if got := p.hashes[2]; len(got) != 3 || got[0] != 20 || got[2] != 31 {
		t.Fatalf("bucket 2 hashes %v", got)
	}
}

func TestStatsModes(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"none", "none"}, {"COUNTS", "counts"}, {"full", "full"}, {"truncate(16)", "truncate(16)"}, {" Truncate(3) ", "truncate(3)"},
	} {
		m, err := parseStatsMode(c.in)
		if err != nil || m.String() != c.out {
			t.Errorf("%q: %v %v", c.in, m, err)
		}
	}
	for _, bad := range []string{"", "truncate(0)", "truncate(x)", "truncate(3", "some"} {
		if _, err := parseStatsMode(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	str := schema.StringType()
	tr := statsMode{kind: statsTruncate, n: 16}
	long := "Two roads diverged in a wood, and I took the one less traveled by"
	got := tr.apply(footerStats(&str, datafile.ColumnStats{Min: long, Max: long, NullCount: 0}))
	if got.min != "Two roads diverg" || got.max != "Two roads diverh" || *got.nullCount != 0 {
		t.Fatalf("truncate(16): %+v", got)
	}
	got = statsMode{kind: statsTruncate, n: 2}.apply(colStats{min: "a\U0010FFFF\U0010FFFF", max: "a\U0010FFFF\U0010FFFF"})
	if got.min != "a\U0010FFFF" || got.max != "b" {
		t.Fatalf("overflowing code point: %+v", got)
	}
	got = statsMode{kind: statsTruncate, n: 1}.apply(colStats{min: "\U0010FFFFa", max: "\U0010FFFFa", nullCount: new(int64)})
	if got.min != nil || got.max != nil || got.nullCount == nil {
		t.Fatalf("no increment possible: %+v", got)
	}
	bin := schema.BytesType()
	if got := footerStats(&bin, datafile.ColumnStats{Min: []byte{1}, Max: []byte{2}, NullCount: 3}); got.min != nil || *got.nullCount != 3 {
		t.Fatalf("binary stats kept: %+v", got)
	}
	ts9 := schema.TimestampType(9)
	if got := footerStats(&ts9, datafile.ColumnStats{Min: schema.Timestamp{}, Max: schema.Timestamp{}, NullCount: 0}); got.min != nil {
		t.Fatalf("INT96 stats kept: %+v", got)
	}
	arr := schema.ArrayType(schema.AtomicType(schema.TypeInt))
	if got := footerStats(&arr, datafile.ColumnStats{NullCount: 1}); !got.isNone() {
		t.Fatalf("nested stats kept: %+v", got)
	}
	if got := (statsMode{kind: statsCounts}).apply(colStats{min: 1, max: 2, nullCount: new(int64)}); got.min != nil || got.nullCount == nil {
		t.Fatalf("counts: %+v", got)
	}
	if got := (statsMode{kind: statsNone}).apply(colStats{min: 1, max: 2, nullCount: new(int64)}); !got.isNone() {
		t.Fatalf("none: %+v", got)
	}
}
