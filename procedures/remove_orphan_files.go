package procedures

import (
	"context"
	"strings"
	"time"

	"github.com/lakesql/lakesql/snapshot"
)

// RemoveOrphanFiles is sys.remove_orphan_files(table, older_than, dry_run):
// delete the files of the table (all branches) that nothing references and
// that are older than older_than (default: a day ago; it must lie in the
// past, so files being written are never taken). With dry_run nothing is
// deleted. Paimon's parallelism and mode arguments are accepted; the
// cleaning runs inside the server.
var RemoveOrphanFiles = &Procedure{
	Name: "remove_orphan_files",
	Params: []Param{
		{Name: "table", Type: TypeString, Required: true},
		{Name: "older_than", Type: TypeString},
		{Name: "dry_run", Type: TypeBool},
		{Name: "parallelism", Type: TypeInt},
		{Name: "mode", Type: TypeString},
	},
	Privileges: []Privilege{PrivDelete},
	Run: func(ctx context.Context, env *Env, args Args) (*Result, error) {
		if m, ok := args.String("mode"); ok {
			if u := strings.ToUpper(strings.TrimSpace(m)); u != "LOCAL" && u != "DISTRIBUTED" {
				return nil, badValue("mode", m, "want 'LOCAL' or 'DISTRIBUTED'")
			}
		}
		if n, ok := args.Int("parallelism"); ok && n < 1 {
			return nil, badValue("parallelism", itoa(n), "must be at least 1")
		}
		ref, _, _, err := openTable(ctx, env, args, false)
		if err != nil {
			return nil, err
		}
		now := env.now()
		olderThan := now.Add(-24 * time.Hour)
		if s, ok := args.String("older_than"); ok {
			if olderThan, err = parseTimestampArg("older_than", s); err != nil {
				return nil, err
			}
			if !olderThan.Before(now) {
				return nil, badValue("older_than", s, "must lie in the past: files written now and not yet committed would be taken for orphans")
			}
		}
		dry, _ := args.Bool("dry_run")
		res, err := snapshot.RemoveOrphanFiles(ctx, ref.Store, olderThan, dry)
		if err != nil {
			return nil, err
		}
		return &Result{
			Columns: []Column{{"deletedFileCount", ColInt64}, {"deletedFileTotalLenInBytes", ColInt64}},
			Rows:    [][]any{{int64(res.Files), res.Bytes}},
		}, nil
	},
}
