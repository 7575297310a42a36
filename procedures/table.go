package procedures

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// Catalog is how procedures find tables and change their schema; sqlengine
// implements it over the provider.
type Catalog interface {
	// Table resolves database db and table name (case-insensitively) to
	// the table's folder. A missing database or table is an error GMS's
	// not-found kinds describe (1049, 1146).
	Table(ctx context.Context, db, name string) (*TableRef, error)
	// SetOptions sets table options as ALTER TABLE … SET does, except that
	// it may change the bucket count (for sys.rescale).
	SetOptions(ctx context.Context, db, name string, options map[string]string) error
	// Changed tells the catalog that a procedure changed a table's
	// snapshots, tags or branches outside a commit, so cached state must
	// be re-read.
	Changed(db, name string)
}

// TableRef is a resolved table.
type TableRef struct {
	DB, Name string // stored spellings
	Store    storage.Storage
}

// TableIdent is the "table" argument of a call: 'db.t', 't' (the current
// database), with a branch as Paimon spells it: 't$branch_b'.
type TableIdent struct {
	DB, Name, Branch string
}

func (t TableIdent) String() string {
	s := t.DB + "." + t.Name
	if t.Branch != "" {
		s += "$branch_" + t.Branch
	}
	return s
}

// ParseTableIdent parses a table argument; currentDB fills a missing
// database. allowBranch says whether the procedure works on a branch.
func ParseTableIdent(s, currentDB string, allowBranch bool) (TableIdent, error) {
	var id TableIdent
	name := strings.TrimSpace(s)
	if db, rest, ok := strings.Cut(name, "."); ok {
		id.DB, name = db, rest
	} else {
		id.DB = currentDB
	}
	if base, suffix, ok := strings.Cut(name, "$"); ok {
		branch, isBranch := strings.CutPrefix(strings.ToLower(suffix), "branch_")
		if !isBranch || branch == "" || strings.Contains(branch, "$") {
			return id, badValue("table", s, "'%s' is not a table (a branch is written t$branch_<name>; system tables cannot be used here)", s)
		}
		if !allowBranch {
			return id, badValue("table", s, "this procedure works on the table itself, not on a branch")
		}
		name, id.Branch = base, suffix[len("branch_"):]
	}
	id.Name = name
	switch {
	case id.Name == "" || strings.Contains(id.Name, "."):
		return id, badValue("table", s, "want 'database.table' or 'table'")
	case id.DB == "":
		return id, fmt.Errorf("%w: No database selected: name the table as 'database.table' or USE a database", ErrNoDatabase)
	}
	return id, nil
}

// openTable resolves the table argument and opens the branch it names.
func openTable(ctx context.Context, env *Env, args Args, allowBranch bool) (*TableRef, *snapshot.Table, TableIdent, error) {
	s, _ := args.String("table")
	id, err := ParseTableIdent(s, env.CurrentDB, allowBranch)
	if err != nil {
		return nil, nil, id, err
	}
	ref, err := env.Catalog.Table(ctx, id.DB, id.Name)
	if err != nil {
		return nil, nil, id, err
	}
	id.DB, id.Name = ref.DB, ref.Name
	t := snapshot.OpenTable(ref.Store, id.Branch)
	if id.Branch != "" {
		if err := t.Branches().Check(ctx, id.Branch); err != nil {
			return nil, nil, id, err
		}
	}
	return ref, t, id, nil
}
