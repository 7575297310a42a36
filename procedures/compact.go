package procedures

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/lakesql/lakesql/lsmwrite"
)

// Compact is sys.compact(table, partitions, compact_strategy, order_strategy,
// order_by, where, options, partition_idle_time), Paimon's CompactProcedure
// over lsmwrite.Compact: compact_strategy 'full' (the default, as in
// Paimon) takes every bucket of a primary-key table to one sorted run on
// the max level; 'minor' compacts what the automatic picker picks; append
// tables join their small files. partitions ('p1=0,p2=0;p1=1,p2=1', values
// as SQL literals: "dt='2026-07-25'") or where (a predicate on partition
// columns) limit it to partitions; options ('k=v,…') override table options
// for the run (write-only is off for it, as in Paimon). Sort compaction
// (order_strategy, order_by) and partition_idle_time are not supported.
var Compact = &Procedure{
	Name: "compact",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "partitions", Type: TypeString},
		{Name: "compact_strategy", Type: TypeString},
		{Name: "order_strategy", Type: TypeString},
		{Name: "order_by", Type: TypeString},
		{Name: "where", Type: TypeString},
		{Name: "options", Type: TypeString},
		{Name: "partition_idle_time", Type: TypeString},
	},
	Privileges: []Privilege{PrivInsert, PrivDelete},
	Run:        runCompact,
}

func runCompact(ctx context.Context, env *Env, args Args) (*Result, error) {
	full := true
	if s, ok := args.String("compact_strategy"); ok && strings.TrimSpace(s) != "" {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "full":
		case "minor":
			full = false
		default:
			return nil, badValue("compact_strategy", s, "the compact strategy only supports 'full' or 'minor'")
		}
	}
	if s, ok := args.String("order_strategy"); ok && !strings.EqualFold(strings.TrimSpace(s), "none") && strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("%w: sort compaction (order_strategy '%s'): lakesql compacts by key order only", ErrNotSupported, s)
	}
	if s, ok := args.String("order_by"); ok && strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("%w: sort compaction (order_by): lakesql compacts by key order only", ErrNotSupported)
	}
	if s, ok := args.String("partition_idle_time"); ok && strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("%w: partition_idle_time (compacting only partitions idle for a while)", ErrNotSupported)
	}
	partitions, hasParts := args.String("partitions")
	where, hasWhere := args.String("where")
	hasParts = hasParts && strings.TrimSpace(partitions) != ""
	hasWhere = hasWhere && strings.TrimSpace(where) != ""
	if hasParts && hasWhere {
		return nil, badValue("where", where, "partitions and where cannot be used together")
	}
	ref, t, _, err := openTable(ctx, env, args, true)
	if err != nil {
		return nil, err
	}
	ts, err := t.Schemas().Latest(ctx)
	if err != nil {
		return nil, err
	}
	req := lsmwrite.CompactRequest{Full: full, Options: map[string]string{"write-only": "false"}}
	if _, ok := args.String("options"); ok {
		opts, err := withDynamicOptions(nil, args)
		if err != nil {
			return nil, err
		}
		for k, v := range opts {
			req.Options[k] = v
		}
	}
	if hasParts {
		if req.Partitions, err = parsePartitionsArg(partitions); err != nil {
			return nil, err
		}
	}
	if hasWhere {
		if req.PartitionFilter, err = partitionWhere(where, ts); err != nil {
			return nil, err
		}
	}
	// The server's automatic compaction may commit the same files first:
	// compact again at the newer snapshot, as `lakesql compact` does.
	out, err := lsmwrite.CompactGivingWay(ctx, t, req, lsmwrite.CompactAttempts, nil)
	switch {
	case errors.Is(err, lsmwrite.ErrInvalidRequest):
		name := "partitions"
		if hasWhere {
			name = "where"
		}
		return nil, badValue(name, partitions+where, "%v", strings.TrimPrefix(err.Error(), lsmwrite.ErrInvalidRequest.Error()+": "))
	case errors.Is(err, lsmwrite.ErrUnsupported):
		return nil, fmt.Errorf("%w: %v", ErrNotSupported, err)
	case err != nil:
		return nil, err
	case out.Conflict != nil:
		return nil, fmt.Errorf("%w: concurrent commits changed files being compacted %d times (%v); nothing was committed", ErrInvalidCall, lsmwrite.CompactAttempts, out.Conflict)
	}
	var snap any
	if out.Snapshot != nil {
		snap = int64(out.Snapshot.ID)
		// Paimon's procedure commits with write-only off: the table's
		// maintenance (expiration, automatic tags) follows the commit.
		if _, err := lsmwrite.MaintainAfterCompaction(ctx, t); err != nil {
			slog.Warn("maintenance after CALL sys.compact", "table", ref.DB+"."+ref.Name, "err", err)
		}
		env.Catalog.Changed(ref.DB, ref.Name)
	}
	s := out.Stats
	return &Result{
		Columns: []Column{{"result", ColBool}, {"snapshot_id", ColInt64}, {"compacted_buckets", ColInt64},
			{"files_before", ColInt64}, {"files_after", ColInt64}, {"upgraded_files", ColInt64},
			{"bytes_read", ColInt64}, {"bytes_written", ColInt64}},
		Rows: [][]any{{true, snap, int64(s.Buckets), int64(s.FilesBefore), int64(s.FilesAfter), int64(s.Upgraded),
			s.BytesRead, s.BytesWritten}},
	}, nil
}

// parsePartitionsArg parses Paimon's partitions argument:
// 'k1=v1,k2=v2;k1=v3,k2=v4' (ParameterUtils.getPartitions); a value may be
// a quoted SQL string ("dt='2026-07-25'"), as Spark turns the argument into
// a WHERE clause.
func parsePartitionsArg(s string) ([]map[string]string, error) {
	var out []map[string]string
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		spec := map[string]string{}
		for _, kv := range strings.Split(part, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return nil, badValue("partitions", s, "invalid key-value string '%s'; use 'key=value' pairs, ',' between keys and ';' between partitions", strings.TrimSpace(kv))
			}
			spec[k] = unquoteSQL(v)
		}
		out = append(out, spec)
	}
	if len(out) == 0 {
		return nil, badValue("partitions", s, "names no partition")
	}
	return out, nil
}

// unquoteSQL strips one level of SQL quotes ('…' or "…", doubled quotes
// inside) from v; other text is returned as it is.
func unquoteSQL(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		q := string(v[0])
		return strings.ReplaceAll(v[1:len(v)-1], q+q, q)
	}
	return v
}
