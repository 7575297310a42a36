package snapshot_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// BenchmarkCommitAppend measures one single-file APPEND commit on a table
// that grows by one file per commit (manifest merging included).
func BenchmarkCommitAppend(b *testing.B) {
	for _, backend := range []string{"mem", "dir"} {
		b.Run(backend, func(b *testing.B) {
			loc := "mem://"
			if backend == "dir" {
				loc = "file://" + b.TempDir() + "?fsync=false"
			}
			st, err := storage.Open(context.Background(), loc)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			newTestTable(b, st)
			c := snapshot.NewCommitter(st, testOptions())
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				f := fileSpec{name: fmt.Sprintf("data-%d.parquet", i), part: int32(i % 4), bucket: int32(i % 2), rows: 10}
				if _, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend,
					Entries: []manifest.ManifestEntry{add(b, f)}, CommitUser: "u", CommitIdentifier: int64(i)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
