package access

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// ERClientLocalFilesDisabled is MySQL's 3948.
const ERClientLocalFilesDisabled = 3948

// Policy is what a server allows the statements that touch its files and
// its server-wide settings:
//
//   - LOAD DATA INFILE (server side), SELECT … INTO OUTFILE / DUMPFILE and
//     LOAD_FILE() need the FILE privilege and a path inside SecureFilePriv;
//     with SecureFilePriv empty (MySQL's NULL, the default) they fail with
//     1290. Relative paths are taken relative to SecureFilePriv, symbolic
//     links are resolved before the check, and the resolved path is what
//     GMS then opens.
//   - INTO OUTFILE / DUMPFILE fail with 1290 on a read-only server.
//   - LOAD DATA LOCAL needs the global local_infile (the --local-infile
//     flag; an administrator may SET GLOBAL it) and INSERT on the table;
//     LOAD DATA INFILE needs INSERT too.
//   - SET GLOBAL / PERSIST needs SUPER or SYSTEM_VARIABLES_ADMIN (1227).
type Policy struct {
	// SecureFilePriv is the absolute, symlink-free directory the file
	// statements may use; "" disables them.
	SecureFilePriv string
	// ReadOnly is the server's --read-only.
	ReadOnly bool
	// Users holds the accounts whose privileges are checked.
	Users *Users
}

// RuleID identifies the policy's analyzer rule.
const RuleID analyzer.RuleId = 1708

// CheckSecureFilePriv validates a --secure-file-priv directory: it must
// exist, and neither hold nor lie inside the local warehouse directory
// (warehouseDir, "" for remote warehouses). It returns the directory
// absolute and free of symbolic links.
func CheckSecureFilePriv(dir, warehouseDir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("access: --secure-file-priv %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("access: --secure-file-priv %s: %w", dir, err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("access: --secure-file-priv %s is not a directory", dir)
	}
	if warehouseDir != "" {
		wh, err := filepath.Abs(warehouseDir)
		if err == nil {
			if r, err := filepath.EvalSymlinks(wh); err == nil {
				wh = r
			}
			if within(real, wh) || within(wh, real) {
				return "", fmt.Errorf("access: --secure-file-priv %s overlaps the warehouse %s: SELECT … INTO OUTFILE could overwrite table files; choose a directory outside it", dir, wh)
			}
		}
	}
	return real, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func errSecureFilePriv() error {
	return mysql.NewSQLError(mysql.EROptionPreventsStatement, "HY000",
		"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement")
}

func errReadOnly() error {
	return mysql.NewSQLError(mysql.EROptionPreventsStatement, "HY000",
		"The MySQL server is running with the --read-only option so it cannot execute this statement")
}

// resolve maps a path of a statement to the real path inside
// SecureFilePriv, or fails with 1290. For a file that is to be created
// (create) only its directory must exist.
func (p *Policy) resolve(path string, create bool) (string, error) {
	if p.SecureFilePriv == "" || path == "" || strings.ContainsRune(path, 0) {
		return "", errSecureFilePriv()
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.SecureFilePriv, path)
	}
	path = filepath.Clean(path)
	if !within(path, p.SecureFilePriv) || path == p.SecureFilePriv {
		return "", errSecureFilePriv()
	}
	real := path
	if create {
		dir, err := filepath.EvalSymlinks(filepath.Dir(path))
		if err != nil {
			return "", errSecureFilePriv()
		}
		real = filepath.Join(dir, filepath.Base(path))
	} else if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", errSecureFilePriv()
	}
	if !within(real, p.SecureFilePriv) || real == p.SecureFilePriv {
		return "", errSecureFilePriv()
	}
	return real, nil
}

func (p *Policy) has(ctx *sql.Context, subject sql.PrivilegeCheckSubject, privs ...sql.PrivilegeType) bool {
	return p.Users.DB().UserHasPrivileges(ctx, sql.NewPrivilegedOperation(subject, privs...))
}

func (p *Policy) userHost(ctx *sql.Context) string {
	c := ctx.Session.Client()
	return fmt.Sprintf("'%s'@'%s'", c.User, c.Address)
}

// errNoFile is MySQL's answer to a file statement without FILE.
func (p *Policy) errNoFile(ctx *sql.Context) error {
	return mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
		"Access denied for user %s (using password: YES): the statement needs the FILE privilege", p.userHost(ctx))
}

func (p *Policy) checkFile(ctx *sql.Context) error {
	if !p.has(ctx, sql.PrivilegeCheckSubject{}, sql.PrivilegeType_File) {
		return p.errNoFile(ctx)
	}
	return nil
}

// Rule is the analyzer rule that applies the policy (run before GMS's own
// rules, so every statement passes it).
func (p *Policy) Rule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same1, err := transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			ld, ok := n.Source.(*plan.LoadData)
			if !ok {
				return n, transform.SameTree, nil
			}
			db := ""
			if n.Database() != nil {
				db = n.Database().Name()
			}
			table := ""
			if nm, ok := n.Destination.(sql.Nameable); ok {
				table = nm.Name()
			}
			if !p.has(ctx, sql.PrivilegeCheckSubject{Database: db, Table: table}, sql.PrivilegeType_Insert) {
				return nil, transform.SameTree, mysql.NewSQLError(1142, "42000",
					"INSERT command denied to user %s for table '%s'", p.userHost(ctx), table)
			}
			ld2, err := p.loadData(ctx, ld)
			if err != nil || ld2 == ld {
				return n, transform.SameTree, err
			}
			return n.WithSource(ld2), transform.NewTree, nil
		case *plan.LoadData:
			ld2, err := p.loadData(ctx, n)
			if err != nil || ld2 == n {
				return n, transform.SameTree, err
			}
			return ld2, transform.NewTree, nil
		case *plan.Into:
			if n.Outfile == "" && n.Dumpfile == "" {
				return n, transform.SameTree, nil
			}
			if p.ReadOnly {
				return nil, transform.SameTree, errReadOnly()
			}
			if err := p.checkFile(ctx); err != nil {
				return nil, transform.SameTree, err
			}
			cp := *n
			var err error
			if n.Outfile != "" {
				cp.Outfile, err = p.resolve(n.Outfile, true)
			} else {
				cp.Dumpfile, err = p.resolve(n.Dumpfile, true)
			}
			if err != nil {
				return nil, transform.SameTree, err
			}
			return &cp, transform.NewTree, nil
		case *plan.Set:
			for _, e := range n.Exprs {
				sf, ok := e.(*expression.SetField)
				if !ok {
					continue
				}
				sv, ok := sf.LeftChild.(*expression.SystemVar)
				if !ok || sv.Scope == nil || sv.Scope.IsSessionOnly() {
					continue
				}
				if !p.has(ctx, sql.PrivilegeCheckSubject{}, sql.PrivilegeType_Super) &&
					!p.Users.DB().UserHasPrivileges(ctx, sql.NewDynamicPrivilegedOperation("system_variables_admin")) {
					return nil, transform.SameTree, mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000",
						"Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation")
				}
			}
		}
		return n, transform.SameTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same2, err := p.rewriteLoadFile(n)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, same1 && same2, nil
}

func (p *Policy) loadData(ctx *sql.Context, ld *plan.LoadData) (*plan.LoadData, error) {
	if ld.Local {
		_, v, ok := sql.SystemVariables.GetGlobal("local_infile")
		if on, _ := v.(int8); !ok || on == 0 {
			return nil, mysql.NewSQLError(ERClientLocalFilesDisabled, "HY000",
				"Loading local data is disabled; this must be enabled on both the client and server sides (start the server with --local-infile)")
		}
		return ld, nil
	}
	if err := p.checkFile(ctx); err != nil {
		return nil, err
	}
	real, err := p.resolve(ld.File, false)
	if err != nil {
		return nil, err
	}
	if real == ld.File {
		return ld, nil
	}
	cp := *ld
	cp.File = real
	return &cp, nil
}

// rewriteLoadFile replaces GMS's LOAD_FILE (which reads any file when
// secure_file_priv is empty) with loadFile, everywhere in the plan,
// subqueries included.
func (p *Policy) rewriteLoadFile(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *function.LoadFile:
			return &loadFile{UnaryExpression: expression.UnaryExpression{Child: e.Children()[0]}, p: p}, transform.NewTree, nil
		case *plan.Subquery:
			q, same, err := p.rewriteLoadFile(e.Query)
			if err != nil || same {
				return e, transform.SameTree, err
			}
			return e.WithQuery(q), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// loadFile is LOAD_FILE(path) under the policy: FILE privilege (else
// 1045), a path inside secure_file_priv (else 1290); a missing or
// unreadable file, or one larger than max_allowed_packet, is NULL as in
// MySQL.
type loadFile struct {
	expression.UnaryExpression
	p *Policy
}

var _ sql.FunctionExpression = (*loadFile)(nil)
var _ sql.CollationCoercible = (*loadFile)(nil)

func (l *loadFile) FunctionName() string { return "load_file" }
func (l *loadFile) Description() string  { return "returns a byte string of the file's contents" }
func (l *loadFile) String() string       { return fmt.Sprintf("LOAD_FILE(%s)", l.Child) }
func (l *loadFile) Type() sql.Type       { return types.LongBlob }
func (l *loadFile) IsNullable() bool     { return true }
func (*loadFile) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (l *loadFile) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(l, len(children), 1)
	}
	return &loadFile{UnaryExpression: expression.UnaryExpression{Child: children[0]}, p: l.p}, nil
}

func (l *loadFile) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if err := l.p.checkFile(ctx); err != nil {
		return nil, err
	}
	v, err := l.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	name, ok := v.(string)
	if !ok {
		conv, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		name, _ = conv.(string)
	}
	real, err := l.p.resolve(name, false)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	limit := int64(64 << 20)
	if mp, err := ctx.GetSessionVariable(ctx, "max_allowed_packet"); err == nil {
		switch x := mp.(type) {
		case int64:
			limit = x
		case uint64:
			limit = int64(x)
		case int32:
			limit = int64(x)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil, nil
	}
	return data, nil
}
