package procedures

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// Rescale is sys.rescale(table, bucket_num, partition): change the bucket
// count of a fixed-bucket table as Paimon's rescale does. It sets the
// table's 'bucket' option to bucket_num (a new schema), then rewrites the
// partition (partition => 'dt=2026-01-01', every partition when omitted)
// from its own rows with the new bucket count, in one OVERWRITE snapshot.
// Partitions not rewritten keep their files and old bucket count (reads
// need no bucket function); writing into them needs a rescale first, as in
// Paimon. A commit by another writer to the table while the rows are
// rewritten fails the call (1213), as Paimon's strict mode does, instead
// of losing that commit; the new bucket option stays, and the call can be
// repeated. Paimon's scan_parallelism and sink_parallelism are accepted.
var Rescale = &Procedure{
	Name: "rescale",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "bucket_num", Type: TypeInt, Required: true},
		{Name: "partition", Aliases: []string{"partitions"}, Type: TypeString},
		{Name: "scan_parallelism", Type: TypeInt},
		{Name: "sink_parallelism", Type: TypeInt},
	},
	Privileges: []Privilege{PrivAlter, PrivInsert, PrivDelete},
	Run:        runRescale,
}

func runRescale(ctx context.Context, env *Env, args Args) (*Result, error) {
	n, _ := args.Int("bucket_num")
	if n < 1 {
		return nil, badValue("bucket_num", itoa(n), "must be at least 1: rescale works on fixed-bucket tables")
	}
	ref, t, _, err := openTable(ctx, env, args, false)
	if err != nil {
		return nil, err
	}
	ts, err := t.Schemas().Latest(ctx)
	if err != nil {
		return nil, err
	}
	old, err := ts.Options.Bucket()
	if err != nil {
		return nil, err
	}
	if old < 1 {
		return nil, invalidCall("table %s has 'bucket' = '%d' (dynamic, bucket-unaware or postponed): rescale changes the count of fixed buckets", ref.Name, old)
	}
	spec, err := partitionArg(args, ts)
	if err != nil {
		return nil, err
	}
	if _, err := t.Snapshots().Latest(ctx); err != nil {
		return nil, invalidCall("table %s has no snapshot: no need to rescale (set 'bucket' with the table empty: %v)", ref.Name, err)
	}
	if err := env.Catalog.SetOptions(ctx, ref.DB, ref.Name, map[string]string{schema.OptBucket: itoa(n)}); err != nil {
		return nil, err
	}
	env.Catalog.Changed(ref.DB, ref.Name)
	parts, rows, snap, err := rewriteWithBuckets(ctx, t, spec)
	if err != nil {
		return nil, err
	}
	return &Result{
		Columns: []Column{{"previous_bucket_num", ColInt64}, {"bucket_num", ColInt64}, {"rewritten_partitions", ColInt64},
			{"rewritten_rows", ColInt64}, {"snapshot_id", ColInt64}},
		Rows: [][]any{{int64(old), n, int64(parts), rows, nullableID(snap)}},
	}, nil
}

// partitionArg parses the partition argument ('k=v,k2=v2', Paimon's
// ParameterUtils form; the first of several ';'-separated specs).
func partitionArg(args Args, ts *schema.TableSchema) (map[string]string, error) {
	s, ok := args.String("partition")
	if !ok || strings.TrimSpace(s) == "" {
		return nil, nil
	}
	if len(ts.PartitionKeys) == 0 {
		return nil, badValue("partition", s, "the table is not partitioned")
	}
	first, _, _ := strings.Cut(s, ";")
	spec := map[string]string{}
	for _, kv := range strings.Split(first, ",") {
		k, v, found := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		v = strings.Trim(v, "'\"")
		if !found || k == "" {
			return nil, badValue("partition", s, "want 'key=value[,key=value…]'")
		}
		known := false
		for _, pk := range ts.PartitionKeys {
			if strings.EqualFold(pk, k) {
				k, known = pk, true
			}
		}
		if !known {
			return nil, badValue("partition", s, "%s is not a partition key (partition keys: %s)", k, strings.Join(ts.PartitionKeys, ", "))
		}
		spec[k] = v
	}
	return spec, nil
}

// rewriteWithBuckets reads the latest rows of the matching partitions
// (merged: one row per key) and writes them back with the table's (new)
// bucket count as an OVERWRITE of exactly those partitions.
func rewriteWithBuckets(ctx context.Context, t *snapshot.Table, spec map[string]string) (int, int64, snapshot.SnapshotID, error) {
	lt := lsmread.FromHandle(t)
	ss := lsmread.ScanSpec{}
	if spec != nil {
		ss.PartitionSpecs = []map[string]string{spec}
	}
	p, err := lt.Plan(ctx, ss)
	if err != nil {
		return 0, 0, 0, err
	}
	if p.Snapshot == nil {
		return 0, 0, 0, invalidCall("the table has no snapshot")
	}
	base := p.Snapshot
	r, err := p.NewReader()
	if err != nil {
		return 0, 0, 0, err
	}
	w, err := lsmwrite.NewTableWrite(ctx, t.Storage(), p.Schema, base, lsmwrite.Options{Branch: t.BranchName()})
	if err != nil {
		return 0, 0, 0, err
	}
	// The partitions to replace, named before any row is written: their
	// old files (and old bucket count) do not constrain the new ones.
	seen := map[string]bool{}
	var static [][]any
	for _, split := range p.Splits {
		if !seen[string(split.Partition)] {
			seen[string(split.Partition)] = true
			static = append(static, split.PartitionValues)
		}
	}
	if len(static) == 0 {
		w.Abort(ctx)
		return 0, 0, base.ID, nil // nothing matched: nothing to rewrite
	}
	if len(p.Schema.PartitionKeys) == 0 {
		static = nil // the whole table
	}
	if err := w.SetOverwrite(static, false); err != nil {
		w.Abort(ctx)
		return 0, 0, 0, err
	}
	var rows int64
	for _, split := range p.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			w.Abort(ctx)
			return 0, 0, 0, err
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err == nil {
				err = w.Write(ctx, kv.Insert, row)
			}
			if err != nil {
				it.Close()
				w.Abort(ctx)
				return 0, 0, 0, err
			}
			rows++
		}
		if err := it.Close(); err != nil {
			w.Abort(ctx)
			return 0, 0, 0, err
		}
	}
	s, err := w.CommitIf(ctx, func(ctx context.Context, latest *snapshot.Snapshot) error {
		return onlyCompactionsSince(ctx, t, base.ID, latest)
	})
	if err != nil {
		return 0, 0, 0, err
	}
	return len(seen), rows, s.ID, nil
}

// onlyCompactionsSince fails with a conflict when a snapshot after base
// other than a compaction was committed: its rows would be lost by the
// overwrite (Java: commit.strict-mode.last-safe-snapshot).
func onlyCompactionsSince(ctx context.Context, t *snapshot.Table, base snapshot.SnapshotID, latest *snapshot.Snapshot) error {
	if latest == nil || latest.ID <= base {
		return nil
	}
	for id := base + 1; id <= latest.ID; id++ {
		s, err := t.Snapshots().Snapshot(ctx, id)
		if err != nil {
			return err
		}
		if s.CommitKind != snapshot.CommitKindCompact {
			return fmt.Errorf("%w: snapshot %s (%s) was committed while the partitions were rewritten; call sys.rescale again",
				snapshot.ErrConflict, strconv.FormatInt(int64(id), 10), s.CommitKind)
		}
	}
	return nil
}
