package manifest_test

import "github.com/lakesql/lakesql/snapshot/manifest"

func p[V any](v V) *V { return &v }

// sampleEntry returns an ADD entry with every field set.
func sampleEntry(name string, bucket manifest.Bucket) manifest.ManifestEntry {
	return manifest.ManifestEntry{
		Kind:         manifest.FileKindAdd,
		Partition:    manifest.SerializedRow{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0},
		Bucket:       bucket,
		TotalBuckets: 2,
		File: manifest.DataFileMeta{
			FileName: name, FileSize: 1234, RowCount: 3,
			MinKey: manifest.EmptyRow, MaxKey: manifest.EmptyRow,
			KeyStats: manifest.EmptyStats(),
			ValueStats: manifest.SimpleStats{
				MinValues: manifest.EmptyRow, MaxValues: manifest.EmptyRow,
				NullCounts: []*int64{p(int64(0)), nil, p(int64(7))},
			},
			MinSequenceNumber: 0, MaxSequenceNumber: 2, SchemaID: 1, Level: 1,
			ExtraFiles:     []string{name + ".index"},
			CreationTime:   p(int64(1700000000123)),
			DeleteRowCount: p(int64(1)),
			EmbeddedIndex:  []byte{1, 2, 3},
			FileSource:     p(manifest.FileSourceCompact),
			ValueStatsCols: []string{"a", "b"},
			ExternalPath:   p("s3://bucket/x/" + name),
			FirstRowID:     p(int64(100)),
			WriteCols:      []string{"a"},
		},
	}
}
