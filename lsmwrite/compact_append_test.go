package lsmwrite_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// appendFiles builds files f0, f1, … with the given sizes, sequence numbers
// in listing order.
func appendFiles(sizes ...int64) []manifest.DataFileMeta {
	var out []manifest.DataFileMeta
	for i, s := range sizes {
		out = append(out, manifest.DataFileMeta{FileName: fmt.Sprintf("f%d", i), FileSize: s,
			MinSequenceNumber: int64(10 * i), MaxSequenceNumber: int64(10*i + 9)})
	}
	return out
}

func names(files []manifest.DataFileMeta) string {
	var n []string
	for _, f := range files {
		n = append(n, f.FileName)
	}
	return strings.Join(n, ",")
}

// TestPickBucketedAppend checks BucketedAppendCompactManager's pickers.
func TestPickBucketedAppend(t *testing.T) {
	for _, c := range []struct {
		sizes  []int64
		minNum int
		target int64
		want   string
	}{
		{[]int64{1, 1, 1, 1}, 5, 100, ""}, // too few files
		{[]int64{1, 1, 1, 1, 1}, 5, 100, "f0,f1,f2,f3,f4"},
		{[]int64{1, 1, 1, 1, 1, 1}, 5, 100, "f0,f1,f2,f3,f4"},
		{[]int64{200, 1, 1, 1, 1, 1}, 5, 100, "f1,f2,f3,f4,f5"}, // the window slides past a large file
		{[]int64{1, 60, 60, 1, 1, 1, 1}, 3, 100, "f0,f1,f2"},    // enough files first: the size is not looked at
		{[]int64{60, 60, 1, 1, 1}, 4, 100, "f1,f2,f3,f4"},       // the window drops its oldest file at the target
		{[]int64{50, 50, 50, 50, 50}, 3, 100, ""},               // every window reaches the target first
	} {
		if got := names(lsmwrite.PickBucketedAppend(appendFiles(c.sizes...), c.minNum, c.target)); got != c.want {
			t.Errorf("PickBucketedAppend(%v, min %d, target %d) = %q, want %q", c.sizes, c.minNum, c.target, got, c.want)
		}
	}
	for _, c := range []struct {
		sizes []int64
		force bool
		want  string
	}{
		{[]int64{1, 1}, false, ""},                      // fewer than three files
		{[]int64{1, 1, 1}, false, "f0,f1,f2"},           // small files
		{[]int64{200, 200, 1, 1, 1}, false, "f2,f3,f4"}, // leading large files kept
		{[]int64{1, 200, 200, 200}, false, ""},          // more large than small
		{[]int64{1, 200, 1, 1}, false, "f0,f1,f2,f3"},   // a large file between small ones is rewritten with them
		{[]int64{200, 200}, true, "f0,f1"},              // compaction.force-rewrite-all-files
	} {
		if got := names(lsmwrite.PickBucketedAppendFull(appendFiles(c.sizes...), 100, c.force)); got != c.want {
			t.Errorf("PickBucketedAppendFull(%v, force %v) = %q, want %q", c.sizes, c.force, got, c.want)
		}
	}
}

// TestPickUnawareAppend checks AppendCompactCoordinator's packing: files
// below the compaction file size, smallest first, in bins of twice the
// target (each file weighing its size plus the open cost), the rest when
// it has enough files.
func TestPickUnawareAppend(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		full  bool
		want  string
	}{
		{[]int64{10, 10, 10}, false, ""}, // fewer than min.file-num 5
		{[]int64{10, 10, 10, 10, 10}, false, "f0,f1,f2,f3,f4"},
		{[]int64{10, 10, 10}, true, "f0,f1,f2"},                    // full: any two or more
		{[]int64{10, 80, 10, 10, 10, 10}, false, "f0,f2,f3,f4,f5"}, // 80 >= 70 (target 100 * 0.7) is left alone
		{[]int64{60, 60, 60, 60, 5, 5}, false, "f4,f5,f0,f1,f2"},   // a bin reaches 2 * target: 5+5+60+60+60 + 5 * 10 open cost; f3 alone waits
		{[]int64{30}, true, ""},
	} {
		var got []string
		for _, task := range lsmwrite.PickUnawareAppend(appendFiles(c.sizes...), 100, 70, 10, 5, c.full) {
			got = append(got, names(task))
		}
		if g := strings.Join(got, " | "); g != c.want {
			t.Errorf("PickUnawareAppend(%v, full %v) = %q, want %q", c.sizes, c.full, g, c.want)
		}
	}
}
