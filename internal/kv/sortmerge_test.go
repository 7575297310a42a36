package kv_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// recordingMerge records the sequence numbers it is fed; its result carries
// them in Value[0] as text, so a test sees exactly what was merged and in
// which order.
type recordingMerge struct {
	key  []any
	seqs []string
}

func (m *recordingMerge) Reset() { m.key, m.seqs = nil, m.seqs[:0] }
func (m *recordingMerge) Add(r kv.KeyValue) error {
	m.key = r.Key
	m.seqs = append(m.seqs, r.Seq.String())
	return nil
}
func (m *recordingMerge) Result() (kv.KeyValue, bool, error) {
	return kv.KeyValue{Key: m.key, Value: []any{strings.Join(m.seqs, ",")}}, true, nil
}

var (
	intKeyTypes       = []schema.DataType{{Root: schema.TypeInt}, {Root: schema.TypeVarChar, Length: schema.MaxLength}}
	valueTypesWithSeq = []schema.DataType{{Root: schema.TypeInt}, {Root: schema.TypeVarChar}, {Root: schema.TypeBigInt, Nullable: true}}
)

// TestSortMergeRandom merges many random runs (with repeated keys inside a
// run, user sequence fields in both orders, empty runs) and compares with a
// model: sort every record by (key, user sequence, sequence), group by key,
// fold.
func TestSortMergeRandom(t *testing.T) {
	keyCmp := kv.NewKeyComparator(intKeyTypes)
	var err error
	for iter := 0; iter < 300; iter++ {
		seed := uint64(iter)
		rng := rand.New(rand.NewPCG(seed, 99))
		var seqCmp kv.Comparator
		switch iter % 3 {
		case 1:
			seqCmp, err = kv.NewFieldsComparator([]int{2}, valueTypesWithSeq, true)
		case 2:
			seqCmp, err = kv.NewFieldsComparator([]int{2}, valueTypesWithSeq, false)
		}
		if err != nil {
			t.Fatal(err)
		}
		nRuns := 1 + rng.IntN(12)
		nKeys := 1 + rng.IntN(30)
		var all []kv.KeyValue
		runs := make([][]kv.KeyValue, nRuns)
		seq := kv.SeqNum(0)
		for r := range runs {
			n := rng.IntN(40)
			for i := 0; i < n; i++ {
				k0, k1 := int32(rng.IntN(nKeys)), string(rune('a'+rng.IntN(2)))
				var userSeq any
				if rng.IntN(5) > 0 {
					userSeq = int64(rng.IntN(4))
				}
				seq++
				rec := kv.KeyValue{Key: []any{k0, k1}, Seq: seq, Value: []any{k0, k1, userSeq}}
				runs[r] = append(runs[r], rec)
				all = append(all, rec)
			}
			slices.SortStableFunc(runs[r], func(a, b kv.KeyValue) int { return order(keyCmp, seqCmp, a, b) })
		}
		slices.SortStableFunc(all, func(a, b kv.KeyValue) int { return order(keyCmp, seqCmp, a, b) })
		var want []string
		for i := 0; i < len(all); {
			j := i
			var seqs []string
			for j < len(all) && keyCmp(all[j].Key, all[i].Key) == 0 {
				seqs = append(seqs, all[j].Seq.String())
				j++
			}
			want = append(want, fmt.Sprintf("%v %s", all[i].Key, strings.Join(seqs, ",")))
			i = j
		}

		readers := make([]kv.RecordReader, nRuns)
		for i, run := range runs {
			readers[i] = kv.NewSliceReader(run)
		}
		r := kv.NewSortMergeReader(readers, keyCmp, seqCmp, &recordingMerge{})
		var got []string
		for {
			res, ok, err := r.Next()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if !ok {
				break
			}
			got = append(got, fmt.Sprintf("%v %s", res.Key, res.Value[0]))
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: merge differs from model\ngot  %v\nwant %v", seed, got, want)
		}
	}
}

// order is the model's total order: key, user sequence (nil first, maybe
// descending), sequence number. Sequence numbers are unique, so no ties.
func order(keyCmp, seqCmp kv.Comparator, a, b kv.KeyValue) int {
	if c := keyCmp(a.Key, b.Key); c != 0 {
		return c
	}
	if seqCmp != nil {
		if c := seqCmp(a.Value, b.Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Seq, b.Seq)
}

type failingReader struct {
	n      int
	closed bool
}

var errBoom = errors.New("boom")

func (f *failingReader) Next() (kv.KeyValue, bool, error) {
	if f.n == 0 {
		return kv.KeyValue{}, false, errBoom
	}
	f.n--
	return kv.KeyValue{Key: []any{int32(f.n)}, Value: []any{int32(f.n)}}, true, nil
}
func (f *failingReader) Close() error { f.closed = true; return nil }

func TestSortMergeReaderErrorsAndClose(t *testing.T) {
	keyCmp := kv.NewKeyComparator([]schema.DataType{{Root: schema.TypeInt}})
	bad := &failingReader{n: 1}
	good := kv.NewSliceReader([]kv.KeyValue{{Key: []any{int32(5)}, Value: []any{int32(5)}}})
	r := kv.NewSortMergeReader([]kv.RecordReader{good, bad}, keyCmp, nil, kv.NewDeduplicateMergeFunction(false))
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		_, _, err = r.Next()
	}
	if !errors.Is(err, errBoom) {
		t.Fatalf("want the run's error, got %v", err)
	}
	if _, _, err2 := r.Next(); !errors.Is(err2, errBoom) {
		t.Fatalf("error must be sticky, got %v", err2)
	}
	if err := r.Close(); err != nil || !bad.closed {
		t.Fatalf("Close: %v closed=%v", err, bad.closed)
	}
}

func TestConcatReader(t *testing.T) {
	a := kv.NewSliceReader([]kv.KeyValue{{Seq: 1}, {Seq: 2}})
	b := kv.NewSliceReader(nil)
	c := kv.NewSliceReader([]kv.KeyValue{{Seq: 3}})
	r := kv.NewConcatReader(a, b, c)
	var got []kv.SeqNum
	for {
		rec, ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, rec.Seq)
	}
	if !slices.Equal(got, []kv.SeqNum{1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSortMergeNoAllocs checks the merge loop itself allocates nothing per
// record (deduplicate keeps records by value).
func TestSortMergeNoAllocs(t *testing.T) {
	keyCmp := kv.NewKeyComparator([]schema.DataType{{Root: schema.TypeBigInt}})
	const nRuns, perRun = 8, 1000
	runs := make([][]kv.KeyValue, nRuns)
	for r := range runs {
		for i := 0; i < perRun; i++ {
			k := int64(i*nRuns + r%3)
			runs[r] = append(runs[r], kv.KeyValue{Key: []any{k}, Seq: kv.SeqNum(r*perRun + i), Value: []any{k}})
		}
	}
	readers := make([]kv.RecordReader, nRuns)
	srs := make([]*kv.SliceReader, nRuns)
	mf := kv.NewReducer(kv.NewDeduplicateMergeFunction(false))
	allocs := testing.AllocsPerRun(5, func() {
		for i := range srs {
			srs[i] = kv.NewSliceReader(runs[i])
			readers[i] = srs[i]
		}
		r := kv.NewSortMergeReader(readers, keyCmp, nil, mf)
		for {
			_, ok, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
		}
	})
	// Setup allocates the readers, the reader and its heap; the loop over
	// 8000 records must add nothing.
	if allocs > 2*nRuns+10 {
		t.Fatalf("%v allocations for %d records", allocs, nRuns*perRun)
	}
}

func BenchmarkSortMerge(b *testing.B) {
	keyCmp := kv.NewKeyComparator([]schema.DataType{{Root: schema.TypeBigInt}})
	const nRuns, perRun = 10, 10000
	runs := make([][]kv.KeyValue, nRuns)
	for r := range runs {
		for i := 0; i < perRun; i++ {
			k := int64(i*nRuns + r%4)
			runs[r] = append(runs[r], kv.KeyValue{Key: []any{k}, Seq: kv.SeqNum(r*perRun + i), Value: []any{k, "v"}})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		readers := make([]kv.RecordReader, nRuns)
		for i := range runs {
			readers[i] = kv.NewSliceReader(runs[i])
		}
		r := kv.NewSortMergeReader(readers, keyCmp, nil, kv.NewReducer(kv.NewDeduplicateMergeFunction(false)))
		for {
			_, ok, _ := r.Next()
			if !ok {
				break
			}
		}
	}
	b.ReportMetric(float64(nRuns*perRun), "records/op")
}
