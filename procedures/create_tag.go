package procedures

import (
	"context"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// CreateTag is sys.create_tag(table, tag, snapshot, time_retained): tag a
// snapshot (the latest by default, or an expired one a tag still holds) as
// Paimon's CreateTagProcedure does. time_retained defaults to the table's
// tag.default-time-retained.
var CreateTag = &Procedure{
	Name: "create_tag",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "tag", Type: TypeString, Required: true},
		{Name: "snapshot", Aliases: []string{"snapshot_id"}, Type: TypeLong},
		{Name: "time_retained", Type: TypeString},
	},
	Privileges: []Privilege{PrivAlter},
	Run:        runCreateTag,
}

func runCreateTag(ctx context.Context, env *Env, args Args) (*Result, error) {
	ref, t, id, err := openTable(ctx, env, args, true)
	if err != nil {
		return nil, err
	}
	name, _ := args.String("tag")
	var from *snapshot.SnapshotID
	if n, ok := args.Int("snapshot"); ok {
		sid := snapshot.SnapshotID(n)
		from = &sid
	}
	retained, err := durationArg(args, "time_retained")
	if err != nil {
		return nil, err
	}
	if retained == nil {
		ts, err := t.Schemas().Latest(ctx)
		if err != nil {
			return nil, err
		}
		if retained, err = tagDefaultTimeRetained(ts.Options); err != nil {
			return nil, err
		}
	}
	s, err := t.CreateTag(ctx, name, from, retained, env.now())
	if err != nil {
		return nil, err
	}
	env.Catalog.Changed(ref.DB, ref.Name)
	kept := any(nil)
	if retained != nil {
		kept = snapshot.JavaDurationString(*retained)
	}
	_ = id
	return &Result{
		Columns: []Column{{"tag", ColString}, {"snapshot_id", ColInt64}, {"time_retained", ColString}},
		Rows:    [][]any{{name, int64(s.ID), kept}},
	}, nil
}

// durationArg parses a duration argument in Paimon's form ("1 d", "12h",
// "30 min"); nil when it was not given.
func durationArg(args Args, name string) (*time.Duration, error) {
	s, ok := args.String(name)
	if !ok {
		return nil, nil
	}
	d, err := schema.ParseDuration(s)
	if err != nil || d < 0 {
		return nil, badValue(name, s, "want a duration such as '1 d', '12 h' or '30 min'")
	}
	return &d, nil
}

// tagDefaultTimeRetained is tag.default-time-retained (no default).
func tagDefaultTimeRetained(o schema.Options) (*time.Duration, error) {
	v, ok := o[schema.OptTagDefaultTimeRetained]
	if !ok {
		return nil, nil
	}
	d, err := schema.ParseDuration(v)
	if err != nil {
		return nil, err
	}
	return &d, nil
}
