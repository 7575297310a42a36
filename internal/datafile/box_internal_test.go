package datafile

import (
	"math/big"
	"reflect"
	"runtime"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

func checkBox[T boxable](t *testing.T, vals []T) {
	t.Helper()
	want := make([]any, len(vals))
	for i, v := range vals {
		want[i] = v
	}
	got := make([]any, len(vals))
	boxSlice(append([]T(nil), vals...), got)
	runtime.GC()
	runtime.GC()
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%T: boxed %d = %#v, want %#v", vals[0], i, got[i], want[i])
		}
		if reflect.TypeOf(got[i]) != reflect.TypeOf(want[i]) {
			t.Fatalf("boxed type %T, want %T", got[i], want[i])
		}
	}
	// Type switches and comparisons see ordinary values.
	if len(vals) > 0 && reflect.TypeOf(vals[0]).Comparable() && got[0] != want[0] {
		t.Fatalf("interface comparison fails: %v vs %v", got[0], want[0])
	}
}

func TestBoxSlice(t *testing.T) {
	checkBox(t, []int16{-1, 300, 32767})
	checkBox(t, []int32{0, -7, 1 << 30})
	checkBox(t, []int64{1 << 40, -3, 0})
	checkBox(t, []float32{1.5, -0.25})
	checkBox(t, []float64{3.25, -1e300})
	checkBox(t, []string{"", "a", "longer string value"})
	checkBox(t, [][]byte{{1, 2}, nil, {}})
	checkBox(t, []schema.Decimal{{Compact: 12345, Scale: 2}, {Big: big.NewInt(-5), Scale: 0}})
	checkBox(t, []schema.Date{1, -1})
	checkBox(t, []schema.Time{86399999})
	checkBox(t, []schema.Timestamp{{Millis: -1, NanoOfMilli: 500000}})
	checkBox[int64](t, nil)
	// Survives heavy allocation and collection.
	vals := make([]int64, 10000)
	for i := range vals {
		vals[i] = int64(i) * 1000003
	}
	dst := make([]any, len(vals))
	boxSlice(vals, dst)
	vals = nil
	for range 50 {
		_ = make([]byte, 1<<20)
	}
	runtime.GC()
	for i, v := range dst {
		if v.(int64) != int64(i)*1000003 {
			t.Fatalf("value %d changed to %v", i, v)
		}
	}
}
