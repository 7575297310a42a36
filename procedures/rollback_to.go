package procedures

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/snapshot"
)

// RollbackTo is sys.rollback_to(table, tag, snapshot_id), Paimon's Flink
// procedure: roll the table (or a branch, 't$branch_b') back to a tag or a
// snapshot. Newer snapshots and tags are removed; their data files stay as
// orphans for remove_orphan_files, as in Paimon.
var RollbackTo = &Procedure{
	Name: "rollback_to",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "tag", Type: TypeString},
		{Name: "snapshot_id", Aliases: []string{"snapshot"}, Type: TypeLong},
	},
	Privileges: []Privilege{PrivInsert, PrivDelete},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		tag, hasTag := args.String("tag")
		id, hasID := args.Int("snapshot_id")
		return rollback(ctx, env, args, tag, hasTag, id, hasID)
	},
}

// Rollback is sys.rollback(table, version, snapshot, tag), Paimon's Spark
// procedure: version is a snapshot id (all digits) or a tag name.
var Rollback = &Procedure{
	Name: "rollback",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "version", Type: TypeString},
		{Name: "snapshot", Aliases: []string{"snapshot_id"}, Type: TypeLong},
		{Name: "tag", Type: TypeString},
	},
	Privileges: []Privilege{PrivInsert, PrivDelete},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		tag, hasTag := args.String("tag")
		id, hasID := args.Int("snapshot")
		if v, ok := args.String("version"); ok && strings.TrimSpace(v) != "" {
			if hasTag || hasID {
				return nil, fmt.Errorf("%w: give one of version, snapshot and tag", ErrInvalidCall)
			}
			if n, err := parseDigits(v); err == nil {
				id, hasID = n, true
			} else {
				tag, hasTag = v, true
			}
		}
		return rollback(ctx, env, args, tag, hasTag, id, hasID)
	},
}

func parseDigits(s string) (int64, error) {
	var n int64
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	for _, c := range s {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return 0, fmt.Errorf("not a number")
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

func rollback(ctx context.Context, env *Env, args Args, tag string, hasTag bool, id int64, hasID bool) (*Result, error) {
	hasTag = hasTag && strings.TrimSpace(tag) != ""
	if hasTag == hasID {
		return nil, fmt.Errorf("%w: give either a tag or a snapshot id to roll back to", ErrArgumentCount)
	}
	ref, t, _, err := openTable(ctx, env, args, true)
	if err != nil {
		return nil, err
	}
	if _, err := t.Snapshots().Latest(ctx); err != nil {
		return nil, fmt.Errorf("%w: the table has no snapshot, nothing to roll back: %v", ErrInvalidCall, err)
	}
	var res snapshot.RollbackResult
	if hasTag {
		res, err = t.RollbackToTag(ctx, tag)
	} else {
		res, err = t.RollbackToSnapshot(ctx, snapshot.SnapshotID(id))
	}
	if err != nil {
		return nil, err
	}
	env.Catalog.Changed(ref.DB, ref.Name)
	return &Result{
		Columns: []Column{{"previous_snapshot_id", ColInt64}, {"current_snapshot_id", ColInt64},
			{"removed_snapshots", ColInt64}, {"removed_tags", ColInt64}},
		Rows: [][]any{{int64(res.Previous), int64(res.Current), int64(res.Snapshots), int64(res.Tags)}},
	}, nil
}
