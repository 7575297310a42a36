package procedures

import (
	"context"

	"github.com/lakesql/lakesql/snapshot"
)

// ExpireSnapshots is sys.expire_snapshots(table, retain_max, retain_min,
// older_than, max_deletes, options): expire snapshots now, as Paimon's
// ExpireSnapshotsProcedure does. Unset arguments come from the table's
// options (snapshot.num-retained.max/min, snapshot.expire.limit); older_than
// ('2026-01-01 12:00:00', UTC) replaces snapshot.time-retained; options
// ('k=v,k2=v2') overrides table options for this run.
var ExpireSnapshots = &Procedure{
	Name: "expire_snapshots",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "retain_max", Type: TypeInt},
		{Name: "retain_min", Type: TypeInt},
		{Name: "older_than", Type: TypeString},
		{Name: "max_deletes", Type: TypeInt},
		{Name: "options", Type: TypeString},
	},
	Privileges: []Privilege{PrivDelete},
	Run:        runExpireSnapshots,
}

func runExpireSnapshots(ctx context.Context, env *Env, args Args) (*Result, error) {
	ref, t, _, err := openTable(ctx, env, args, true)
	if err != nil {
		return nil, err
	}
	ts, err := t.Schemas().Latest(ctx)
	if err != nil {
		return nil, err
	}
	opts, err := withDynamicOptions(ts.Options, args)
	if err != nil {
		return nil, err
	}
	m, err := opts.Maintenance()
	if err != nil {
		return nil, badValue("options", "", "%v", err)
	}
	producer, err := opts.ChangelogProducer()
	if err != nil {
		return nil, badValue("options", "", "%v", err)
	}
	cfg := snapshot.ExpireConfigFromOptions(m, producer)
	cfg.Now = env.Now
	if n, ok := args.Int("retain_max"); ok {
		if n < 1 {
			return nil, badValue("retain_max", itoa(n), "must be at least 1")
		}
		cfg.RetainMax = int(n)
	}
	if n, ok := args.Int("retain_min"); ok {
		if n < 1 {
			return nil, badValue("retain_min", itoa(n), "must be at least 1 (the latest snapshot is never expired)")
		}
		cfg.RetainMin = int(n)
	}
	if n, ok := args.Int("max_deletes"); ok {
		if n < 1 {
			return nil, badValue("max_deletes", itoa(n), "must be at least 1")
		}
		cfg.MaxDeletes = int(n)
	}
	if cfg.RetainMax < cfg.RetainMin {
		return nil, badValue("retain_max", itoa(int64(cfg.RetainMax)), "must not be less than retain_min (%d)", cfg.RetainMin)
	}
	if s, ok := args.String("older_than"); ok {
		at, err := parseTimestampArg("older_than", s)
		if err != nil {
			return nil, err
		}
		cfg.TimeRetained = env.now().Sub(at)
	}
	res, err := t.ExpireSnapshots(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.ChangelogDecoupled {
		cres, err := t.ExpireChangelogs(ctx, cfg)
		if err != nil {
			return nil, err
		}
		res.Changelogs = cres.Changelogs
		res.CleanStats.Add(cres.CleanStats)
	}
	if res.Snapshots > 0 || res.Changelogs > 0 {
		env.Catalog.Changed(ref.DB, ref.Name)
	}
	return &Result{
		Columns: []Column{{"deleted_snapshots_count", ColInt64}, {"deleted_data_files", ColInt64},
			{"deleted_changelog_files", ColInt64}, {"deleted_metadata_files", ColInt64}, {"freed_bytes", ColInt64},
			{"earliest_snapshot_id", ColInt64}},
		Rows: [][]any{{int64(res.Snapshots), int64(res.DataFiles), int64(res.ChangelogFiles),
			int64(res.MetadataFiles + res.IndexFiles), res.BytesFreed, nullableID(res.Earliest)}},
	}, nil
}

func nullableID(id snapshot.SnapshotID) any {
	if id <= 0 {
		return nil
	}
	return int64(id)
}
