package lookup_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/lookup"
	"github.com/lakesql/lakesql/internal/schema"
)

func types(roots ...schema.TypeRoot) []schema.DataType {
	out := make([]schema.DataType, len(roots))
	for i, r := range roots {
		out[i] = schema.AtomicType(r)
		if r == schema.TypeVarChar {
			out[i].Length = schema.MaxLength
		}
	}
	return out
}

// run builds n records of a (VARCHAR, INT) key with every other key
// missing, returns them and the layout.
func run(r *rand.Rand, n int) ([]kv.KeyValue, *lookup.Layout) {
	l := &lookup.Layout{
		KeyTypes:   types(schema.TypeVarChar, schema.TypeInt),
		ValueTypes: types(schema.TypeVarChar, schema.TypeInt, schema.TypeBigInt, schema.TypeVarChar),
	}
	kvs := make([]kv.KeyValue, 0, n)
	for i := range n {
		k := []any{fmt.Sprintf("k%04d", i/3), int32(2 * (i % 3))}
		var note any = strings.Repeat("x", r.IntN(300))
		if r.IntN(5) == 0 {
			note = nil
		}
		kvs = append(kvs, kv.KeyValue{Key: k, Seq: kv.SeqNum(r.Int64N(1 << 40)), Kind: kv.RowKind(r.IntN(4)),
			Value: []any{k[0], k[1], r.Int64(), note}})
	}
	return kvs, l
}

// TestFindMatchesModel: every present key is found with its record and
// position, every absent key (between, before and after) is not.
func TestFindMatchesModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		for _, blockBytes := range []int{64, 512, 4096} {
			r := rand.New(rand.NewPCG(seed, 0))
			kvs, l := run(r, 1+r.IntN(2000))
			c := lookup.NewCache(lookup.Options{BlockBytes: blockBytes})
			f, err := c.Get(context.Background(), "f", lookup.Source{Layout: l, Level: 3,
				Open: func(context.Context) (kv.RecordReader, error) { return kv.NewSliceReader(kvs), nil }})
			if err != nil {
				t.Fatal(err)
			}
			if f.Rows() != int64(len(kvs)) {
				t.Fatalf("seed %d: %d rows, want %d", seed, f.Rows(), len(kvs))
			}
			for i, want := range kvs {
				got, ok, err := f.Find(want.Key)
				if err != nil || !ok {
					t.Fatalf("seed %d block %d: key %v: ok=%v err=%v", seed, blockBytes, want.Key, ok, err)
				}
				want.Level = 3
				if fmt.Sprint(got.KeyValue) != fmt.Sprint(want) || got.Pos != int64(i) {
					t.Fatalf("seed %d: key %v: got %v at %d, want %v at %d", seed, want.Key, got.KeyValue, got.Pos, want, i)
				}
				for _, miss := range [][]any{{want.Key[0], want.Key[1].(int32) + 1}, {want.Key[0], int32(-1)}, {"a", int32(0)}, {"z", int32(0)}} {
					if _, ok, err := f.Find(miss); ok || err != nil {
						t.Fatalf("seed %d: absent key %v: ok=%v err=%v", seed, miss, ok, err)
					}
				}
			}
			c.Release(f)
			c.Close()
		}
	}
}

// TestFindBigIntKeyMatchesModel: a file of one BIGINT key (whose blocks
// are searched in an int64 array) finds every present key with its
// position, and no absent key: between two keys, before the first, after
// the last, and at the ends of int64.
func TestFindBigIntKeyMatchesModel(t *testing.T) {
	l := &lookup.Layout{KeyTypes: types(schema.TypeBigInt), ValueTypes: types(schema.TypeBigInt, schema.TypeVarChar)}
	for _, seed := range []uint64{1, 2, 3, 4} {
		for _, blockBytes := range []int{32, 256, 4096} {
			r := rand.New(rand.NewPCG(seed, 7))
			n := 1 + r.IntN(3000)
			keys := map[int64]bool{}
			for len(keys) < n {
				keys[r.Int64N(1<<20)-1<<19] = true
			}
			sorted := slices.Sorted(func(yield func(int64) bool) {
				for k := range keys {
					if !yield(k) {
						return
					}
				}
			})
			kvs := make([]kv.KeyValue, len(sorted))
			for i, k := range sorted {
				kvs[i] = kv.KeyValue{Key: []any{k}, Seq: kv.SeqNum(i), Kind: kv.Insert, Value: []any{k, fmt.Sprint("v", k)}}
			}
			c := lookup.NewCache(lookup.Options{BlockBytes: blockBytes})
			f, err := c.Get(context.Background(), "f", lookup.Source{Layout: l,
				Open: func(context.Context) (kv.RecordReader, error) { return kv.NewSliceReader(kvs), nil }})
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range sorted {
				got, ok, err := f.Find([]any{k})
				if err != nil || !ok || got.Key[0] != k || got.Value[1] != fmt.Sprint("v", k) || got.Pos != int64(i) {
					t.Fatalf("seed %d block %d: key %d: %v at %d ok=%v err=%v", seed, blockBytes, k, got.KeyValue, got.Pos, ok, err)
				}
			}
			for _, miss := range []int64{sorted[0] - 1, sorted[len(sorted)-1] + 1, -1 << 63, 1<<63 - 1, r.Int64N(1<<20) - 1<<19} {
				if keys[miss] {
					continue
				}
				if got, ok, err := f.Find([]any{miss}); ok || err != nil {
					t.Fatalf("seed %d block %d: absent key %d: %v ok=%v err=%v", seed, blockBytes, miss, got.KeyValue, ok, err)
				}
			}
			c.Release(f)
			c.Close()
		}
	}
}

// TestCacheBuildsOnceAndEvicts: concurrent Gets share one build; a budget
// of one file evicts the least recently used, and a file in use survives
// eviction until released.
func TestCacheBuildsOnceAndEvicts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	kvs, l := run(r, 500)
	var mu sync.Mutex
	opens := map[string]int{}
	src := func(id string) lookup.Source {
		return lookup.Source{Layout: l, Open: func(context.Context) (kv.RecordReader, error) {
			mu.Lock()
			opens[id]++
			mu.Unlock()
			return kv.NewSliceReader(kvs), nil
		}}
	}
	c := lookup.NewCache(lookup.Options{MaxDiskBytes: 1})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := c.Get(context.Background(), "a", src("a"))
			if err != nil {
				t.Error(err)
				return
			}
			if _, ok, err := f.Find(kvs[7].Key); !ok || err != nil {
				t.Errorf("find: %v %v", ok, err)
			}
			c.Release(f)
		}()
	}
	wg.Wait()
	if opens["a"] != 1 {
		t.Fatalf("a built %d times", opens["a"])
	}
	fa, err := c.Get(context.Background(), "a", src("a"))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := c.Get(context.Background(), "b", src("b")) // evicts a (over budget)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := fa.Find(kvs[1].Key); !ok || err != nil {
		t.Fatalf("evicted file in use: %v %v", ok, err)
	}
	c.Release(fa)
	c.Release(fb)
	f, err := c.Get(context.Background(), "a", src("a"))
	if err != nil {
		t.Fatal(err)
	}
	c.Release(f)
	if opens["a"] != 2 {
		t.Fatalf("a built %d times after eviction, want 2", opens["a"])
	}
	if s := c.Stats(); s.Files != 1 {
		t.Fatalf("stats %+v: want one file within a one-byte budget", s)
	}
}

// TestBuildErrorIsNotCached: a failed build returns its error and the next
// Get builds again.
func TestBuildErrorIsNotCached(t *testing.T) {
	boom := errors.New("boom")
	_, l := run(rand.New(rand.NewPCG(1, 1)), 1)
	c := lookup.NewCache(lookup.Options{})
	fails := true
	src := lookup.Source{Layout: l, Open: func(context.Context) (kv.RecordReader, error) {
		if fails {
			return nil, boom
		}
		return kv.NewSliceReader(nil), nil
	}}
	if _, err := c.Get(context.Background(), "x", src); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	fails = false
	f, err := c.Get(context.Background(), "x", src)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := f.Find([]any{"k", int32(1)}); ok {
		t.Fatal("found a key in an empty file")
	}
	c.Release(f)
}

// TestOutOfOrderRunIsRejected: a run whose keys are not increasing is an
// error, not a file that answers wrongly.
func TestOutOfOrderRunIsRejected(t *testing.T) {
	kvs, l := run(rand.New(rand.NewPCG(4, 4)), 10)
	slices.Reverse(kvs)
	c := lookup.NewCache(lookup.Options{})
	_, err := c.Get(context.Background(), "r", lookup.Source{Layout: l,
		Open: func(context.Context) (kv.RecordReader, error) { return kv.NewSliceReader(kvs), nil }})
	if err == nil || !strings.Contains(err.Error(), "out of key order") {
		t.Fatalf("err %v", err)
	}
}
