package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// Database is one Paimon database (a <name>.db folder).
type Database struct {
	p    *Provider
	name string // stored spelling
}

var (
	_ sql.Database          = (*Database)(nil)
	_ sql.VersionedDatabase = (*Database)(nil)
)

// Name implements sql.Nameable.
func (d *Database) Name() string { return d.name }

// GetTableNames implements sql.Database.
func (d *Database) GetTableNames(ctx *sql.Context) ([]string, error) {
	names, err := d.p.cat.ListTables(ctx, d.name)
	return names, catalogError(err)
}

// GetTableNamesAsOf implements sql.VersionedDatabase.
func (d *Database) GetTableNamesAsOf(ctx *sql.Context, asOf any) ([]string, error) {
	return d.GetTableNames(ctx)
}

// GetTableInsensitive implements sql.Database.
func (d *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	return d.table(ctx, name, lsmread.TimeTravel{})
}

// GetTableInsensitiveAsOf implements sql.VersionedDatabase. GMS hands the
// AS OF value over as a string ("3", "tag-name") or a time.Time.
func (d *Database) GetTableInsensitiveAsOf(ctx *sql.Context, name string, asOf any) (sql.Table, bool, error) {
	if inc, ok, err := parseIncremental(asOf); ok {
		if err != nil {
			return nil, false, err
		}
		return d.incrementalTable(ctx, name, inc)
	}
	tt, err := parseAsOf(asOf)
	if err != nil {
		return nil, false, err
	}
	t, ok, err := d.table(ctx, name, tt)
	if errors.Is(err, lsmread.ErrNotFound) {
		// No such snapshot, tag or time: the AS OF value is a wrong
		// argument (ER_WRONG_ARGUMENTS; MySQL has no time travel).
		return nil, false, mysql.NewSQLError(mysql.ERWrongArguments, mysql.SSUnknownSQLState, "%s", err)
	}
	return t, ok, err
}

// parseAsOf turns an AS OF value into a time travel: digits are a snapshot
// id, other text a tag name, a time the snapshot current at that time.
func parseAsOf(asOf any) (lsmread.TimeTravel, error) {
	switch v := asOf.(type) {
	case nil:
		return lsmread.TimeTravel{}, nil
	case string:
		s := strings.TrimSpace(v)
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			if id <= 0 {
				return lsmread.TimeTravel{}, fmt.Errorf("AS OF %s: snapshot ids start at 1", s)
			}
			return lsmread.TimeTravel{SnapshotID: snapshot.SnapshotID(id)}, nil
		}
		if s == "" {
			return lsmread.TimeTravel{}, fmt.Errorf("AS OF '': empty tag name")
		}
		return lsmread.TimeTravel{Tag: s}, nil
	case time.Time:
		ms := v.UnixMilli()
		return lsmread.TimeTravel{TimeMillis: &ms}, nil
	case int, int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return parseAsOf(fmt.Sprint(v))
	}
	return lsmread.TimeTravel{}, fmt.Errorf("AS OF value %v of type %T is not a snapshot id, tag name or timestamp", asOf, asOf)
}

// table resolves a table name: plain tables, `t$ro`, `t$branch_NAME` and the
// system tables `t$snapshots` etc.
func (d *Database) table(ctx *sql.Context, name string, tt lsmread.TimeTravel) (sql.Table, bool, error) {
	base, sys, _ := strings.Cut(name, "$")
	real, ok, err := d.p.cat.ResolveTable(ctx, d.name, base)
	if err != nil || !ok {
		return nil, false, catalogError(err)
	}
	lt := d.p.tableHandle(d.name, real)
	sysName := strings.ToLower(sys)
	switch {
	case sys == "":
		t, err := newTable(ctx, d, real, lt, tt, "")
		if u := unreadable(real, err); u != nil {
			return u, true, nil
		}
		if err != nil {
			if d.p.goneTable(err) {
				return nil, false, nil
			}
			return nil, false, err
		}
		return t, true, nil
	case sysName == "ro":
		t, err := newTable(ctx, d, real, lt, tt, "ro")
		if err != nil {
			return nil, false, err
		}
		return t, true, nil
	case strings.HasPrefix(sysName, "branch_"):
		branch, sub, _ := strings.Cut(sys[len("branch_"):], "$")
		bt, err := lt.Branch(ctx, branch)
		if err != nil {
			return nil, false, d.branchError(name, branch, err)
		}
		if isAuditTable(sub) {
			t, err := newAuditTable(ctx, d, real+"$branch_"+branch, strings.ToLower(sub), bt, tt, nil)
			if err != nil {
				return nil, false, err
			}
			return t, true, nil
		}
		if sub != "" {
			// `t$branch_b$files`: a system table of the branch.
			st, err := newSystemTable(ctx, d, real, strings.ToLower(sub), bt, tt)
			if err != nil || st == nil {
				return nil, false, err
			}
			return st, true, nil
		}
		t, err := newTable(ctx, d, real, bt, tt, "branch_"+branch)
		if err != nil {
			return nil, false, err
		}
		return t, true, nil
	}
	if isAuditTable(sysName) {
		t, err := newAuditTable(ctx, d, real, sysName, lt, tt, nil)
		if err != nil {
			return nil, false, err
		}
		return t, true, nil
	}
	t, err := newSystemTable(ctx, d, real, sysName, lt, tt)
	if err != nil {
		return nil, false, err
	}
	if t == nil {
		return nil, false, nil
	}
	return t, true, nil
}

// branchError is the error of `t$branch_NAME` when opening the branch
// failed: a branch that does not exist is a table that does not exist
// (1146 ER_NO_SUCH_TABLE, 42S02, as MySQL answers a missing table; the
// message names the branch), not a wrong AS OF value.
func (d *Database) branchError(name, branch string, err error) error {
	if errors.Is(err, lsmread.ErrNotFound) {
		return mysql.NewSQLError(mysql.ERNoSuchTable, mysql.SSUnknownTable,
			"Table '%s.%s' doesn't exist (the table has no branch %q)", d.name, name, branch)
	}
	return mapError(err)
}

func isAuditTable(sys string) bool {
	sys = strings.ToLower(sys)
	return sys == "audit_log" || sys == "binlog"
}

// incrementalTable resolves `t$audit_log` or `t$binlog` (also of a branch)
// read over a snapshot range; other tables refuse a range (1235).
func (d *Database) incrementalTable(ctx *sql.Context, name string, inc *lsmread.Incremental) (sql.Table, bool, error) {
	base, sys, _ := strings.Cut(name, "$")
	real, ok, err := d.p.cat.ResolveTable(ctx, d.name, base)
	if err != nil || !ok {
		return nil, false, catalogError(err)
	}
	lt := lsmread.OpenTable(d.p.cat.TableStorage(d.name, real), "")
	if b, sub, ok := strings.Cut(sys, "$"); ok && strings.HasPrefix(strings.ToLower(b), "branch_") {
		bt, err := lt.Branch(ctx, b[len("branch_"):])
		if err != nil {
			return nil, false, d.branchError(name, b[len("branch_"):], err)
		}
		lt, real, sys = bt, real+"$"+b, sub
	}
	if !isAuditTable(sys) {
		return nil, false, notSupported(fmt.Sprintf("lakesql: FOR VERSION/TIMESTAMP BETWEEN on %s: a snapshot range applies to $audit_log and $binlog only", name))
	}
	t, err := newAuditTable(ctx, d, real, strings.ToLower(sys), lt, lsmread.TimeTravel{}, inc)
	if err != nil {
		return nil, false, err
	}
	return t, true, nil
}
