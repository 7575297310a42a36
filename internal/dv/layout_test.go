package dv_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/lakesql/lakesql/internal/dv"
)

func TestIndexFileNameRoundTrip(t *testing.T) {
	id := uuid.MustParse("16bec1d6-fa31-49bd-a240-deadcfff6003")
	for _, n := range []int{0, 1, 9, 10, 12345} {
		name := dv.IndexFileName(id, n)
		gotID, gotN, err := dv.ParseIndexFileName(name)
		if err != nil || gotID != id || gotN != n {
			t.Errorf("%s: %v %d %v", name, gotID, gotN, err)
		}
		if dv.IndexFileName(gotID, gotN) != name {
			t.Errorf("%s does not round-trip", name)
		}
	}
	if got := dv.IndexFileName(id, 0); got != "index-16bec1d6-fa31-49bd-a240-deadcfff6003-0" {
		t.Errorf("IndexFileName = %s", got)
	}
	if got := dv.IndexFilePath("index-x"); got != "index/index-x" {
		t.Errorf("IndexFilePath = %s", got)
	}
	for _, bad := range []string{
		"",
		"index-",
		"index-manifest-3f491f6b-79ec-484b-aa03-f4737e96bf9a-0",
		"index-16bec1d6-fa31-49bd-a240-deadcfff6003",
		"index-16bec1d6-fa31-49bd-a240-deadcfff6003-",
		"index-16bec1d6-fa31-49bd-a240-deadcfff6003-01",
		"index-16bec1d6-fa31-49bd-a240-deadcfff6003--1",
		"index-16bec1d6-fa31-49bd-a240-deadcfff6003-+1",
		"index-16bec1d6-fa31-49bd-a240-deadcfff6003-1x",
		"index-16BEC1D6-fa31-49bd-a240-deadcfff6003-1",
		"index-16bec1d6xfa31-49bd-a240-deadcfff6003-1",
		"data-16bec1d6-fa31-49bd-a240-deadcfff6003-0.parquet",
	} {
		if _, _, err := dv.ParseIndexFileName(bad); !errors.Is(err, dv.ErrInvalidFileName) {
			t.Errorf("ParseIndexFileName(%q) = %v", bad, err)
		}
	}
}

func TestIndexFileNamer(t *testing.T) {
	id := uuid.MustParse("770fb595-864b-4f3c-b921-a32972f01df0")
	n := dv.NewIndexFileNamerWithUUID(id)
	if got := n.Next(); got != "index-770fb595-864b-4f3c-b921-a32972f01df0-0" {
		t.Fatalf("first name %s", got)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				name := n.Next()
				mu.Lock()
				seen[name] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 800 {
		t.Fatalf("%d distinct names, want 800", len(seen))
	}
	a, b := dv.NewIndexFileNamer().Next(), dv.NewIndexFileNamer().Next()
	if a == b {
		t.Fatalf("two namers gave %s", a)
	}
	if _, c, err := dv.ParseIndexFileName(a); err != nil || c != 0 {
		t.Fatalf("%s: %d %v", a, c, err)
	}
}
