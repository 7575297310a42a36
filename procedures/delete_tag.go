package procedures

import (
	"context"
	"errors"
	"strings"

	"github.com/lakesql/lakesql/snapshot"
)

// DeleteTag is sys.delete_tag(table, tag): delete one tag or a comma
// separated list, as Paimon's DeleteTagProcedure does (a missing tag is
// reported, not an error). Deleting the last tag of an expired snapshot
// deletes the files only it kept.
var DeleteTag = &Procedure{
	Name: "delete_tag",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "tag", Type: TypeString, Required: true},
	},
	Privileges: []Privilege{PrivAlter},
	Run:        runDeleteTag,
}

func runDeleteTag(ctx context.Context, env *Env, args Args) (*Result, error) {
	ref, t, _, err := openTable(ctx, env, args, true)
	if err != nil {
		return nil, err
	}
	list, _ := args.String("tag")
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, badValue("tag", list, "a tag name is blank")
		}
		names = append(names, n)
	}
	res := &Result{Columns: []Column{{"tag", ColString}, {"result", ColString}, {"deleted_files", ColInt64}, {"freed_bytes", ColInt64}}}
	changed := false
	for _, n := range names {
		st, err := t.DeleteTag(ctx, n)
		switch {
		case errors.Is(err, snapshot.ErrTagNotFound):
			res.Rows = append(res.Rows, []any{n, "not found", int64(0), int64(0)})
			continue
		case err != nil:
			return nil, err
		}
		changed = true
		files := st.DataFiles + st.MetadataFiles + st.IndexFiles + st.ChangelogFiles
		res.Rows = append(res.Rows, []any{n, "deleted", int64(files), st.BytesFreed})
	}
	if changed {
		env.Catalog.Changed(ref.DB, ref.Name)
	}
	return res, nil
}
