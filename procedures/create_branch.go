package procedures

import (
	"context"
	"strings"
)

// CreateBranch is sys.create_branch(table, branch, tag): a branch from a
// tag (it starts at the tagged snapshot), or an empty one with the table's
// schema. Read it as `t$branch_<name>`.
var CreateBranch = &Procedure{
	Name: "create_branch",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "branch", Type: TypeString, Required: true},
		{Name: "tag", Type: TypeString},
	},
	Privileges: []Privilege{PrivAlter},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		ref, t, _, err := openTable(ctx, env, args, true)
		if err != nil {
			return nil, err
		}
		name, _ := args.String("branch")
		tag, _ := args.String("tag")
		tag = strings.TrimSpace(tag)
		if err := t.CreateBranch(ctx, name, tag); err != nil {
			return nil, err
		}
		env.Catalog.Changed(ref.DB, ref.Name)
		from := any(nil)
		if tag != "" {
			from = tag
		}
		return &Result{
			Columns: []Column{{"branch", ColString}, {"from_tag", ColString}},
			Rows:    [][]any{{name, from}},
		}, nil
	},
}

// DeleteBranch is sys.delete_branch(table, branch): one branch or a comma
// separated list. Files only the branch used stay as orphans for
// remove_orphan_files.
var DeleteBranch = &Procedure{
	Name: "delete_branch",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "branch", Type: TypeString, Required: true},
	},
	Privileges: []Privilege{PrivAlter},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		ref, t, _, err := openTable(ctx, env, args, false)
		if err != nil {
			return nil, err
		}
		list, _ := args.String("branch")
		res := &Result{Columns: []Column{{"branch", ColString}}}
		for _, b := range strings.Split(list, ",") {
			b = strings.TrimSpace(b)
			if err := t.DeleteBranch(ctx, b); err != nil {
				return nil, err
			}
			res.Rows = append(res.Rows, []any{b})
		}
		env.Catalog.Changed(ref.DB, ref.Name)
		return res, nil
	},
}

// FastForward is sys.fast_forward(table, branch): make the main branch
// what the branch is (snapshots, schemas and tags from the branch's first
// snapshot on are replaced by the branch's).
var FastForward = &Procedure{
	Name: "fast_forward",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "branch", Type: TypeString, Required: true},
	},
	Privileges: []Privilege{PrivInsert, PrivDelete, PrivAlter},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		ref, t, _, err := openTable(ctx, env, args, false)
		if err != nil {
			return nil, err
		}
		name, _ := args.String("branch")
		prev, _, err := t.Snapshots().LatestID(ctx)
		if err != nil {
			return nil, err
		}
		if err := t.FastForward(ctx, name); err != nil {
			return nil, err
		}
		env.Catalog.Changed(ref.DB, ref.Name)
		cur, _, err := t.Snapshots().LatestID(ctx)
		if err != nil {
			return nil, err
		}
		return &Result{
			Columns: []Column{{"branch", ColString}, {"previous_snapshot_id", ColInt64}, {"current_snapshot_id", ColInt64}},
			Rows:    [][]any{{name, nullableID(prev), nullableID(cur)}},
		}, nil
	},
}
