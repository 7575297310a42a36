package storage_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
)

// TestClockReadsTheStoresTime: a store whose clock is minutes ahead of or
// behind the local one (an object store's) tells its own time through a
// probe object, which it deletes; a store that cannot stat agrees with the
// local clock.
func TestClockReadsTheStoresTime(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base, err := storage.Open(ctx, "file://"+filepath.ToSlash(dir)+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	for _, skew := range []time.Duration{7 * time.Minute, -7 * time.Minute, 0} {
		c := storage.NewClock(storagetest.Skewed{Storage: base, Skew: skew})
		local := time.Now()
		got := c.Now(ctx)
		if d := got.Sub(local) - skew; d < -time.Second || d > time.Second {
			t.Errorf("skew %v: the store's time is %v, %v off the local time + skew", skew, got, d)
		}
		if s, ok := c.Skew(); !ok || (s-skew).Abs() > time.Second {
			t.Errorf("skew %v: measured %v (%v)", skew, s, ok)
		}
	}
	for info, err := range base.List(ctx, storage.PrivateDir+"/") {
		if err != nil {
			t.Fatal(err)
		}
		t.Errorf("a probe is left: %s", info.Path)
	}
	c := storage.NewClock(noStat{base})
	if d := c.Now(ctx).Sub(time.Now()).Abs(); d > time.Second {
		t.Errorf("a store without modification times: %v off the local clock", d)
	}
	if _, ok := c.Skew(); ok {
		t.Error("a store without modification times has a measured skew")
	}
}

// noStat hides the store's Stat.
type noStat struct{ storage.Storage }
