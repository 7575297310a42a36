//go:build linux

package lookup_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/lookup"
)

// mappedRSS is the resident memory (kB, from /proc/self/smaps) of the
// process's mappings of lookup files: the unlinked temporaries the cache
// maps ("lakesql-lookup-… (deleted)").
func mappedRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = strings.Contains(line, "lakesql-lookup-")
			continue
		}
		if in && len(fields) >= 2 && fields[0] == "Rss:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			total += kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// TestResidentBytesBounded: lookups over many mapped lookup files keep at
// most MaxResidentBytes of them resident (the pages of the least recently
// used ones are given back to the kernel; /proc/self/smaps says what is
// resident), and files whose pages were given back still answer every key
// (found by the bench's CDC phase at 10M rows: 7.4 GB of RSS, most of it
// lookup files the DELETEs' key reads had mapped and touched).
func TestResidentBytesBounded(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 0))
	const files = 12
	kvs, l := run(r, 6000)
	probe := lookup.NewCache(lookup.Options{BlockBytes: 4096})
	f0, err := probe.Get(ctx, "probe", lookup.Source{Layout: l, Open: func(context.Context) (kv.RecordReader, error) { return kv.NewSliceReader(kvs), nil }})
	if err != nil {
		t.Fatal(err)
	}
	size := f0.Size()
	probe.Release(f0)
	probe.Close()
	if size < 256<<10 {
		t.Fatalf("a lookup file of %d bytes: too small to measure", size)
	}
	budget := 3 * size
	c := lookup.NewCache(lookup.Options{BlockBytes: 4096, MaxResidentBytes: budget})
	defer c.Close()
	base := mappedRSS(t)
	for round := range 3 {
		for i := range files {
			f, err := c.Get(ctx, fmt.Sprint("f", i), lookup.Source{Layout: l, Level: 1,
				Open: func(context.Context) (kv.RecordReader, error) { return kv.NewSliceReader(kvs), nil }})
			if err != nil {
				t.Fatal(err)
			}
			for j, want := range kvs { // every block touched
				got, ok, err := f.Find(want.Key)
				if err != nil || !ok || got.Pos != int64(j) {
					t.Fatalf("round %d file %d key %v: ok=%v err=%v pos %d", round, i, want.Key, ok, err, got.Pos)
				}
			}
			c.Release(f)
			if st := c.Stats(); st.ResidentBytes > budget+size {
				t.Fatalf("round %d file %d: %d resident bytes listed, budget %d", round, i, st.ResidentBytes, budget)
			}
			// Resident pages of the cache's files: within the budget
			// and the newest file (page granularity: one page per file
			// of slack).
			if rss := (mappedRSS(t) - base) << 10; rss > budget+size+files*4096 {
				t.Fatalf("round %d file %d: %d kB of lookup files resident, budget %d kB (files of %d kB)", round, i, rss>>10, budget>>10, size>>10)
			}
		}
	}
	if st := c.Stats(); st.Files != files {
		t.Fatalf("%d files cached, want all %d (the disk budget is not the resident one)", st.Files, files)
	}
}
