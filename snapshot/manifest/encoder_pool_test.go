package manifest_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestPooledEncoderWritesSameBytes: writers reusing pooled zstd encoders
// (concurrently, at two levels, after writes of other sizes) write the
// blocks a first write wrote (the header's metadata order and the sync
// marker vary from write to write).
func TestPooledEncoderWritesSameBytes(t *testing.T) {
	sets := make([][]manifest.ManifestEntry, 4)
	for k := range sets {
		for i := 0; i < 1+k*700; i++ {
			sets[k] = append(sets[k], sampleEntry(fmt.Sprintf("data-%d-%08d.parquet", k, i), manifest.Bucket(i%8)))
		}
	}
	type key struct{ set, level int }
	want := map[key][]byte{}
	for k := range sets {
		for _, level := range []int{1, 3} {
			b, err := manifest.WriteManifest(sets[k], manifest.WithZstdLevel(level))
			if err != nil {
				t.Fatal(err)
			}
			want[key{k, level}] = unsynced(b)
		}
	}
	if bytes.Equal(want[key{3, 1}], want[key{3, 3}]) {
		t.Fatal("levels 1 and 3 wrote the same bytes: the level is not applied")
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				k, level := (g+i)%len(sets), 1+2*(i%2)
				b, err := manifest.WriteManifest(sets[k], manifest.WithZstdLevel(level))
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(unsynced(b), want[key{k, level}]) {
					t.Errorf("set %d level %d: a pooled encoder wrote other bytes", k, level)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// unsynced is an Avro container file's blocks after its header, the sync
// markers zeroed.
func unsynced(b []byte) []byte {
	if len(b) < 16 {
		return b
	}
	sync := b[len(b)-16:]
	blocks := b[bytes.Index(b, sync)+16:]
	return bytes.ReplaceAll(blocks, sync, make([]byte, 16))
}
