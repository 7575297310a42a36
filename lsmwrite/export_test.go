package lsmwrite

import (
	"context"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// WriteTestFile writes recs (in key order) as one data file of an
// unpartitioned primary-key table at level, named data-<name>-0.parquet,
// and returns its DataFileMeta. Tests build LSM shapes with it.
func WriteTestFile(ctx context.Context, st storage.Storage, sch *schema.TableSchema, bucket, level int,
	name string, recs []kv.KeyValue, now func() time.Time) (manifest.DataFileMeta, error) {
	core, err := sch.Options.Core()
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	keyFields, err := sch.ProjectedFields(sch.TrimmedPrimaryKeys())
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	modes, err := parseStatsModes(sch)
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	var created []string
	spec, err := newFileSpec(st, sch, core, keyFields, modes, now, &created)
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	names := &dataFilePathFactory{dir: BucketDir(manifest.Bucket(bucket)) + "/", uuid: name,
		dataPrefix: core.DataFilePrefix, changelogPrefix: core.ChangelogFilePrefix, format: "parquet"}
	w := newLevelWriter(spec, names, false, level, manifest.FileSourceAppend)
	for _, r := range recs {
		if err := w.writeKV(ctx, r); err != nil {
			return manifest.DataFileMeta{}, err
		}
	}
	if err := w.closeCurrent(); err != nil {
		return manifest.DataFileMeta{}, err
	}
	return w.files[0], nil
}

// GroupWaiting is the number of transactions queued for the group commit
// of a table branch, -1 while no commit of it runs.
func GroupWaiting(st storage.Storage, branch string) int {
	v, ok := groupQueues.Load(snapshot.CommitLockKey(st, branch))
	if !ok {
		return -1
	}
	q := v.(*groupQueue)
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.busy {
		return -1
	}
	return len(q.waiting)
}

// SetGatherTimes sets the group commit's gathering pause and limit (see
// gather) until the function it returns restores them.
func SetGatherTimes(gap, limit time.Duration) (restore func()) {
	oldGap, oldLimit := gatherGap, gatherLimit
	gatherGap, gatherLimit = gap, func(time.Duration) time.Duration { return limit }
	return func() { gatherGap, gatherLimit = oldGap, oldLimit }
}

// BufferedBytes is the write buffer's bytes w accounts (buffers being
// flushed in the background included).
func BufferedBytes(w *TableWrite) int64 { return w.bufBytes }
