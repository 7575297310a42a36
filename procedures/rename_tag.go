package procedures

import "context"

// RenameTag is sys.rename_tag(table, tag, target_tag) (Flink spells them
// tagName and targetTagName).
var RenameTag = &Procedure{
	Name: "rename_tag",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "tag", Aliases: []string{"tagName", "tag_name"}, Type: TypeString, Required: true},
		{Name: "target_tag", Aliases: []string{"targetTagName", "target_tag_name"}, Type: TypeString, Required: true},
	},
	Privileges: []Privilege{PrivAlter},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		ref, t, _, err := openTable(ctx, env, args, true)
		if err != nil {
			return nil, err
		}
		from, _ := args.String("tag")
		to, _ := args.String("target_tag")
		if err := t.RenameTag(ctx, from, to); err != nil {
			return nil, err
		}
		env.Catalog.Changed(ref.DB, ref.Name)
		return &Result{
			Columns: []Column{{"tag", ColString}, {"target_tag", ColString}},
			Rows:    [][]any{{from, to}},
		}, nil
	},
}
