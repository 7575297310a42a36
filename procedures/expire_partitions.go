package procedures

import (
	"context"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// ExpirePartitions is sys.expire_partitions(table, expiration_time,
// timestamp_formatter, timestamp_pattern, expire_strategy, max_expires,
// options): drop the partitions older than expiration_time now, in one
// OVERWRITE snapshot, as Paimon's ExpirePartitionsProcedure does. Unset
// arguments come from the table's partition.expiration-* and
// partition.timestamp-* options. One row per expired partition
// ('dt=2026-01-01'), or 'No expired partitions.'.
var ExpirePartitions = &Procedure{
	Name: "expire_partitions",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "expiration_time", Type: TypeString},
		{Name: "timestamp_formatter", Type: TypeString},
		{Name: "timestamp_pattern", Type: TypeString},
		{Name: "expire_strategy", Type: TypeString},
		{Name: "max_expires", Type: TypeInt},
		{Name: "options", Type: TypeString},
	},
	Privileges: []Privilege{PrivDelete},
	Run:        runExpirePartitions,
}

func runExpirePartitions(ctx context.Context, env *Env, args Args) (*Result, error) {
	ref, t, _, err := openTable(ctx, env, args, false)
	if err != nil {
		return nil, err
	}
	ts, err := t.Schemas().Latest(ctx)
	if err != nil {
		return nil, err
	}
	if len(ts.PartitionKeys) == 0 {
		return nil, invalidCall("table %s is not partitioned", ref.Name)
	}
	opts, err := withDynamicOptions(ts.Options, args)
	if err != nil {
		return nil, err
	}
	for param, key := range map[string]string{
		"expiration_time":     schema.OptPartitionExpirationTime,
		"timestamp_formatter": schema.OptPartitionTimestampFormatter,
		"timestamp_pattern":   schema.OptPartitionTimestampPattern,
		"expire_strategy":     schema.OptPartitionExpirationStrategy,
	} {
		if v, ok := args.String(param); ok && strings.TrimSpace(v) != "" {
			opts[key] = v
		}
	}
	if v, ok := args.String("expiration_time"); ok {
		if d, err := schema.ParseDuration(v); err != nil || d <= 0 {
			return nil, badValue("expiration_time", v, "want a positive duration such as '1 d' or '12 h'")
		}
	}
	if v, ok := args.String("expire_strategy"); ok {
		if s := strings.ToLower(strings.TrimSpace(v)); s != string(schema.PartitionExpireValuesTime) && s != string(schema.PartitionExpireUpdateTime) {
			return nil, badValue("expire_strategy", v, "want 'values-time' or 'update-time'")
		}
	}
	if n, ok := args.Int("max_expires"); ok {
		if n < 1 {
			return nil, badValue("max_expires", itoa(n), "must be at least 1")
		}
		opts[schema.OptPartitionExpirationMaxNum] = itoa(n)
	}
	m, err := opts.Maintenance()
	if err != nil {
		return nil, badValue("options", "", "%v", err)
	}
	cfg, ok := snapshot.PartitionExpireConfigFromOptions(&m)
	if !ok {
		return nil, invalidCall("both the partition expiration time and the partition fields are needed: give expiration_time or set 'partition.expiration-time'")
	}
	if cfg.Strategy == schema.PartitionExpireCustom {
		return nil, notSupported("expire_strategy 'custom' (a Java class)")
	}
	withOpts := *ts
	withOpts.Options = opts
	parts, err := lsmwrite.ExpirePartitions(ctx, t, &withOpts, cfg, env.now())
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: []Column{{"expired_partitions", ColString}}}
	if len(parts) == 0 {
		res.Rows = [][]any{{"No expired partitions."}}
		return res, nil
	}
	env.Catalog.Changed(ref.DB, ref.Name)
	for _, p := range parts {
		res.Rows = append(res.Rows, []any{p.Spec})
	}
	return res, nil
}
