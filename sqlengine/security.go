package sqlengine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlengine/access"
)

// SecurityConfig configures accounts, TLS and the server files SQL may
// touch (see package access).
type SecurityConfig struct {
	// UsersFile keeps the accounts in this local file instead of the
	// warehouse (`<warehouse>/_lakesql/users/`).
	UsersFile string
	// TLSCert and TLSKey are PEM files; both set enables TLS.
	TLSCert, TLSKey string
	// RequireSecureTransport refuses connections without TLS (3159).
	RequireSecureTransport bool
	// SecureFilePriv is the only directory LOAD DATA INFILE, SELECT … INTO
	// OUTFILE/DUMPFILE and LOAD_FILE may use; "" (the default, MySQL's
	// NULL) disables them. It must lie outside the warehouse.
	SecureFilePriv string
	// LocalInfile allows LOAD DATA LOCAL INFILE (global local_infile).
	LocalInfile bool
}

// accountRefresh is how stale the accounts may be for ordinary statements;
// logins and account statements always re-read the store's version.
const accountRefresh = time.Second

type security struct {
	users  *access.Users
	auth   *access.AuthServer
	policy *access.Policy
	notes  []string
}

// SecurityNotes are the start-up messages about accounts and files
// (`lakesql serve` prints them).
func (s *Server) SecurityNotes() []string { return s.sec.notes }

// Authenticator is the server's authentication over its accounts (the
// Flight SQL endpoint checks passwords with it).
func (s *Server) Authenticator() *access.AuthServer { return s.sec.auth }

// TLSConfig is the server's TLS configuration (nil without TLS).
func (s *Server) TLSConfig() *tls.Config { return s.tlsConfig }

// Users is the server's account store.
func (s *Server) Users() *access.Users { return s.sec.users }

// setupSecurity loads the accounts, checks the listen address against
// them, and configures TLS, authentication and the file policy. It runs
// before the listener is bound.
func (s *Server) setupSecurity(ctx context.Context, policy *access.Policy, scfg *server.Config) error {
	sc := s.cfg.Security
	var store access.Store = access.NewWarehouseStore(s.store)
	if sc.UsersFile != "" {
		abs, err := filepath.Abs(sc.UsersFile)
		if err != nil {
			return fmt.Errorf("sqlengine: --users-file: %w", err)
		}
		store = access.NewFileStore(abs)
	}
	users, err := access.Open(ctx, s.engine.Analyzer.Catalog.MySQLDb, store)
	if err != nil {
		return fmt.Errorf("sqlengine: accounts: %w", err)
	}
	policy.Users = users
	s.sec.users, s.sec.policy = users, policy

	if !s.cfg.Embedded && !access.IsLoopback(s.cfg.Host) && !users.HasPasswordUser() {
		return fmt.Errorf("sqlengine: refusing to listen on %s: no account has a password, so anyone who can reach the port could log in; "+
			"create one first with `lakesql user add NAME --password PASSWORD --admin --warehouse %s` "+
			"(or, on a server listening on 127.0.0.1: CREATE USER 'NAME'@'%%' IDENTIFIED BY 'PASSWORD'; GRANT ALL ON *.* TO 'NAME'@'%%' WITH GRANT OPTION)",
			s.cfg.Host, s.cfg.Warehouse)
	}
	if open := users.PasswordlessUsers(); len(open) > 0 {
		s.sec.notes = append(s.sec.notes, fmt.Sprintf("accounts without a password: %s; create accounts with passwords (lakesql user add, or CREATE USER) and set one for root (ALTER USER 'root'@'localhost' IDENTIFIED BY '…') before serving others", strings.Join(open, ", ")))
		if !users.HasPasswordUser() {
			s.sec.notes[len(s.sec.notes)-1] = "no account has a password: only root, without a password, from loopback addresses (127.0.0.1, ::1) can log in; " +
				"create accounts with `lakesql user add NAME --password … [--admin]` or CREATE USER … IDENTIFIED BY …"
		}
	}
	s.sec.notes = append(s.sec.notes, "accounts are kept in "+store.String())

	// Server files.
	secure := any(nil)
	if sc.SecureFilePriv != "" {
		dir, err := access.CheckSecureFilePriv(sc.SecureFilePriv, localDir(s.store.URL()))
		if err != nil {
			return err
		}
		policy.SecureFilePriv, secure = dir, dir
		s.sec.notes = append(s.sec.notes, "secure_file_priv: "+dir+" (server files for accounts with FILE)")
	}
	// secure_file_priv as MySQL shows it: NULL when disabled. (Process-wide
	// in GMS; the policy itself is per server.)
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    "secure_file_priv",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Global),
		Dynamic: false,
		Type:    types.NewSystemStringType("secure_file_priv"),
		Default: secure,
	}})
	localInfile := int8(0)
	if sc.LocalInfile {
		localInfile = 1
	}
	if err := sql.SystemVariables.AssignValues(map[string]any{"local_infile": localInfile}); err != nil {
		return fmt.Errorf("sqlengine: local_infile: %w", err)
	}

	// TLS and authentication.
	if (sc.TLSCert == "") != (sc.TLSKey == "") {
		return errors.New("sqlengine: --tls-cert and --tls-key go together")
	}
	if sc.TLSCert != "" {
		pair, err := tls.LoadX509KeyPair(sc.TLSCert, sc.TLSKey)
		if err != nil {
			return fmt.Errorf("sqlengine: TLS certificate: %w", err)
		}
		scfg.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		s.tlsConfig = scfg.TLSConfig
		s.sec.notes = append(s.sec.notes, "TLS enabled")
	}
	if sc.RequireSecureTransport && scfg.TLSConfig == nil {
		return errors.New("sqlengine: --require-secure-transport needs --tls-cert and --tls-key")
	}
	auth := access.NewAuthServer(users)
	auth.RequireSecureTransport = sc.RequireSecureTransport
	s.sec.auth = auth
	scfg.ProtocolListenerFactory = func(cfg server.Config, lc mysql.ListenerConfig, _ server.ServerEventListener) (server.ProtocolListener, error) {
		lc.AuthServer = auth
		l, err := mysql.NewListenerWithConfig(lc)
		if err != nil {
			return nil, err
		}
		if cfg.Version != "" {
			l.ServerVersion = cfg.Version
		}
		l.TLSConfig = cfg.TLSConfig
		return l, nil
	}
	return nil
}

// localDir is the directory of a file:// warehouse URL, else "".
func localDir(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "file" {
		return ""
	}
	return p.Path
}

// wrapAll is the server's handler wrapper: the DDL and write fronts
// (wrapDDL) inside the account layer.
func (s *Server) wrapAll(h mysql.Handler) (mysql.Handler, error) {
	inner, err := s.wrapDDL(h)
	if err != nil {
		return nil, err
	}
	return &accessHandler{Handler: inner, s: s}, nil
}

// accessHandler keeps the accounts fresh (another server may have changed
// them), records REQUIRE SSL of CREATE USER, and gives privilege errors
// MySQL's codes.
type accessHandler struct {
	mysql.Handler
	s *Server
}

func isAccountStatement(q string) bool {
	for _, w := range [][]string{{"CREATE", "USER"}, {"ALTER", "USER"}, {"DROP", "USER"}, {"RENAME", "USER"},
		{"CREATE", "ROLE"}, {"DROP", "ROLE"}, {"SET", "PASSWORD"}, {"GRANT"}, {"REVOKE"}} {
		if startsWithWords(q, w...) {
			return true
		}
	}
	return false
}

func (h *accessHandler) refresh(ctx context.Context, account bool) {
	age := accountRefresh
	if account {
		age = 0
	}
	if err := h.s.sec.users.Refresh(ctx, age); err != nil {
		slog.Warn("reloading the accounts failed; using the ones loaded before", "err", err)
	}
}

func (h *accessHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	// SET PASSWORD is ALTER USER … IDENTIFIED BY (same privileges).
	if sp, ok := parseSetPassword(query); ok && sp.account != "" {
		query = "ALTER USER " + sp.account + " IDENTIFIED BY " + sp.password
	} else if ok {
		if u, ok := c.UserData.(sql.MysqlConnectionUser); ok {
			query = "ALTER USER " + sqlStringLiteral(u.User) + "@" + sqlStringLiteral(u.Host) + " IDENTIFIED BY " + sp.password
		}
	}
	account := isAccountStatement(query)
	h.refresh(ctx, account || readsAccounts(query))
	if ar, ok := parseAlterRequire(query); ok {
		return provider.SQLError(h.alterRequire(ctx, c, query, ar, callback))
	}
	if isShowOwnGrants(query) {
		return provider.SQLError(h.showOwnGrants(ctx, c, query, callback))
	}
	err := h.Handler.ComQuery(ctx, c, query, callback)
	if err == nil && account {
		h.afterAccount(query)
	}
	if startsWithWords(query, "CALL") {
		if _, sys, _ := parseCall(query); !sys { // the CALL front gives its own codes
			return callError(err)
		}
	}
	return provider.SQLError(err)
}

// showOwnGrants answers SHOW GRANTS for the session's own account.
func (h *accessHandler) showOwnGrants(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
	if err != nil {
		return err
	}
	cl := sctx.Session.Client()
	node := &plan.ShowGrants{CurrentUser: true, For: &plan.UserName{Name: cl.User, Host: cl.Address, AnyHost: cl.Address == "%"},
		MySQLDb: h.s.sec.users.DB()}
	iter, err := rowexec.DefaultBuilder.Build(sctx, node, nil)
	if err != nil {
		return err
	}
	rows, err := sql.RowIterToRows(sctx, iter)
	if err != nil {
		return err
	}
	res := &sqltypes.Result{Fields: []*querypb.Field{{Name: node.Schema()[0].Name, Type: querypb.Type_VARCHAR, Charset: uint32(sql.CharacterSet_utf8mb4)}}}
	for _, r := range rows {
		s, _ := r[0].(string)
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(s))})
	}
	return callback(res, false)
}

// alterRequire executes ALTER USER … REQUIRE SSL | X509 | NONE: it needs
// what ALTER USER needs (CREATE USER, or UPDATE on mysql).
func (h *accessHandler) alterRequire(ctx context.Context, c *mysql.Conn, query string, ar alterRequireStmt, callback mysql.ResultSpoolFn) error {
	sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
	if err != nil {
		return err
	}
	db := h.s.sec.users.DB()
	if !db.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{}, sql.PrivilegeType_CreateUser)) &&
		!db.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: "mysql"}, sql.PrivilegeType_Update)) {
		cl := sctx.Session.Client()
		return mysql.NewSQLError(1142, "42000", "ALTER USER command denied to user '%s'@'%s'", cl.User, cl.Address)
	}
	pk := mysql_db.UserPrimaryKey{User: ar.user, Host: ar.host}
	rd := db.Reader()
	_, ok := rd.GetUser(pk)
	rd.Close()
	if !ok {
		return mysql.NewSQLError(1396, "HY000", "Operation ALTER USER failed for '%s'@'%s'", pk.User, pk.Host)
	}
	if err := h.s.sec.users.SetRequireSSL(sctx, ar.require, pk); err != nil {
		return err
	}
	return callback(&sqltypes.Result{}, false)
}

// callError: a CALL without EXECUTE is MySQL's 1370.
func callError(err error) error {
	var se *mysql.SQLError
	if err = provider.SQLError(err); errors.As(err, &se) && se.Num == 1142 {
		return mysql.NewSQLError(1370, "42000", "execute %s", se.Message)
	}
	return err
}

func (h *accessHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	account := isAccountStatement(query)
	h.refresh(ctx, account)
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, callback)
	if err == nil && account {
		h.afterAccount(strings.TrimSuffix(query, rest))
	}
	return rest, provider.SQLError(err)
}

func (h *accessHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	h.refresh(ctx, false)
	f, err := h.Handler.ComPrepare(ctx, c, query, prepare)
	return f, provider.SQLError(err)
}

// afterAccount records CREATE USER … REQUIRE SSL | X509 (GMS parses and
// ignores it) in the accounts' User_attributes.
func (h *accessHandler) afterAccount(query string) {
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return
	}
	cu, ok := stmt.(*sqlparser.CreateUser)
	if !ok || cu.TLSOptions == nil || !(cu.TLSOptions.SSL || cu.TLSOptions.X509) {
		return
	}
	var keys []mysql_db.UserPrimaryKey
	for _, u := range cu.Users {
		host := u.Host
		if host == "" || u.AnyHost {
			host = "%"
		}
		keys = append(keys, mysql_db.UserPrimaryKey{User: u.Name, Host: host})
	}
	if err := h.s.sec.users.SetRequireSSL(sql.NewEmptyContext(), true, keys...); err != nil {
		slog.Error("recording REQUIRE SSL failed", "accounts", fmt.Sprint(keys), "err", err)
	}
}

// checkFront checks the privileges of a statement the DDL or write front
// executes itself (GMS never plans it, so its checks do not apply).
func (s *Server) checkFront(ctx *sql.Context, stmt any) error {
	type need struct {
		db, table string
		privs     []sql.PrivilegeType
	}
	var needs []need
	switch st := stmt.(type) {
	case *createTableStmt:
		needs = append(needs, need{st.db, st.name, []sql.PrivilegeType{sql.PrivilegeType_Create}})
		if st.isLike {
			needs = append(needs, need{st.likeDB, st.like, []sql.PrivilegeType{sql.PrivilegeType_Select}})
		}
	case *alterTableStmt:
		needs = append(needs, need{st.db, st.name, []sql.PrivilegeType{sql.PrivilegeType_Alter}})
	case *showCreateTableStmt:
		needs = append(needs, need{st.db, st.name, []sql.PrivilegeType{sql.PrivilegeType_Select}})
	case *mergeStmt:
		var privs []sql.PrivilegeType
		for _, c := range st.clauses {
			switch c.action {
			case mergeUpdate:
				privs = append(privs, sql.PrivilegeType_Update)
			case mergeDelete:
				privs = append(privs, sql.PrivilegeType_Delete)
			case mergeInsert:
				privs = append(privs, sql.PrivilegeType_Insert)
			}
		}
		needs = append(needs, need{st.db, st.table, privs})
	case *overwriteStmt:
		needs = append(needs, need{st.db, st.table, []sql.PrivilegeType{sql.PrivilegeType_Insert, sql.PrivilegeType_Delete}})
	}
	db := s.sec.users.DB()
	for _, n := range needs {
		d := n.db
		if d == "" {
			d = ctx.GetCurrentDatabase()
		}
		for _, p := range n.privs {
			if !db.UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: d, Table: n.table}, p)) {
				c := ctx.Session.Client()
				return mysql.NewSQLError(1142, "42000", "%s command denied to user '%s'@'%s' for table '%s'",
					strings.ToUpper(p.String()), c.User, c.Address, n.table)
			}
		}
	}
	return nil
}
