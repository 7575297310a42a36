package access

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
)

// Users binds GMS's mysql database to a Store: it loads the accounts,
// persists every change GMS makes (CREATE USER, GRANT, …) and reloads
// the store when another server changed it.
type Users struct {
	db    *mysql_db.MySQLDb
	store Store

	mu struct {
		sync.Mutex
		version string    // the stored version db holds
		checked time.Time // when the store's version was last compared
		stale   bool      // db holds a change that failed to persist
	}
}

var _ mysql_db.MySQLDbPersistence = (*Users)(nil)

// Open enables db, loads the accounts of store into it (or the default
// account, root@localhost without a password, when the store is empty) and
// makes db persist its changes to store.
func Open(ctx context.Context, db *mysql_db.MySQLDb, store Store) (*Users, error) {
	u := &Users{db: db, store: store}
	db.SetEnabled(true)
	db.SetPersister(u)
	if err := u.reload(ctx); err != nil {
		return nil, err
	}
	return u, nil
}

// DB is the GMS mysql database.
func (u *Users) DB() *mysql_db.MySQLDb { return u.db }

// Store is where the accounts are kept.
func (u *Users) Store() Store { return u.store }

// Refresh reloads the accounts when the store changed since they were read
// and the last check is older than maxAge (0: always compare).
func (u *Users) Refresh(ctx context.Context, maxAge time.Duration) error {
	u.mu.Lock()
	skip := !u.mu.stale && maxAge > 0 && time.Since(u.mu.checked) < maxAge
	u.mu.Unlock()
	if skip {
		return nil
	}
	v, err := u.store.Version(ctx)
	if err != nil {
		return err
	}
	u.mu.Lock()
	same := v == u.mu.version && !u.mu.stale
	if same {
		u.mu.checked = time.Now()
	}
	u.mu.Unlock()
	if same {
		return nil
	}
	return u.reload(ctx)
}

func (u *Users) reload(ctx context.Context) error {
	data, v, err := u.store.Load(ctx)
	if err != nil {
		return err
	}
	ed := u.db.Editor()
	defer ed.Close()
	if data == nil {
		clearAll(ed)
		// The default account: root@localhost (loopback only), no password.
		u.db.AddSuperUser(ed, "root", "localhost", "")
	} else if err := u.db.OverwriteUsersAndGrantData(sql.NewEmptyContext(), ed, data); err != nil {
		return fmt.Errorf("access: %s: %w", u.store, err)
	}
	u.mu.Lock()
	u.mu.version, u.mu.checked, u.mu.stale = v, time.Now(), false
	u.mu.Unlock()
	return nil
}

func clearAll(ed *mysql_db.Editor) {
	var keys []mysql_db.UserPrimaryKey
	ed.VisitUsers(func(x *mysql_db.User) { keys = append(keys, mysql_db.UserPrimaryKey{Host: x.Host, User: x.User}) })
	for _, k := range keys {
		ed.RemoveUser(k)
	}
	var edges []mysql_db.RoleEdgesPrimaryKey
	ed.VisitRoleEdges(func(e *mysql_db.RoleEdge) {
		edges = append(edges, mysql_db.RoleEdgesPrimaryKey{FromHost: e.FromHost, FromUser: e.FromUser, ToHost: e.ToHost, ToUser: e.ToUser})
	})
	for _, k := range edges {
		ed.RemoveRoleEdge(k)
	}
}

// Persist implements mysql_db.MySQLDbPersistence: GMS calls it, holding the
// database's write lock, after every account change.
func (u *Users) Persist(ctx *sql.Context, data []byte) error {
	u.mu.Lock()
	base := u.mu.version
	u.mu.Unlock()
	v, err := u.store.Save(ctx, data, base)
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil {
		// The in-memory change was not stored: reload before the next use.
		u.mu.stale = true
		if errors.Is(err, ErrConflict) {
			return mysql.NewSQLError(mysql.ERLockDeadlock, mysql.SSLockDeadlock,
				"lakesql: the accounts were changed by another server at the same time; run the statement again")
		}
		return err
	}
	u.mu.version, u.mu.checked = v, time.Now()
	return nil
}

// HasPasswordUser reports whether some account that can log in has a
// password.
func (u *Users) HasPasswordUser() bool {
	rd := u.db.Reader()
	defer rd.Close()
	found := false
	rd.VisitUsers(func(x *mysql_db.User) {
		if !x.IsRole && !x.Locked && x.AuthString != "" {
			found = true
		}
	})
	return found
}

// PasswordlessUsers lists the accounts that log in without a password.
func (u *Users) PasswordlessUsers() []string {
	rd := u.db.Reader()
	defer rd.Close()
	var out []string
	rd.VisitUsers(func(x *mysql_db.User) {
		if !x.IsRole && !x.Locked && x.AuthString == "" {
			out = append(out, x.UserHostToString("'"))
		}
	})
	return out
}

// NativePasswordHash is MySQL's mysql_native_password authentication
// string: "*" and the upper-case hex of SHA1(SHA1(password)).
func NativePasswordHash(password string) string {
	if password == "" {
		return ""
	}
	s1 := sha1.Sum([]byte(password))
	s2 := sha1.Sum(s1[:])
	return "*" + strings.ToUpper(hex.EncodeToString(s2[:]))
}

// AddUser creates (or, with replace, updates the password and privileges
// of) the account name@host in store, as `lakesql user add` does: admin
// grants every privilege WITH GRANT OPTION, otherwise the account has
// none. A new store starts from the default account (root@localhost
// without a password), as a server would.
func AddUser(ctx context.Context, store Store, name, host, password string, admin, replace bool) error {
	if name == "" {
		return errors.New("access: the user name is empty")
	}
	if len(name) > 32 {
		return fmt.Errorf("access: user name %q is longer than 32 characters", name)
	}
	if host == "" {
		host = "%"
	}
	u, err := Open(ctx, mysql_db.CreateEmptyMySQLDb(), store)
	if err != nil {
		return err
	}
	ed := u.db.Editor()
	defer ed.Close()
	pk := mysql_db.UserPrimaryKey{Host: host, User: name}
	if _, ok := ed.GetUser(pk); ok && !replace {
		return fmt.Errorf("access: user '%s'@'%s' exists already (use --replace to change it)", name, host)
	}
	ed.RemoveUser(pk) // PutUser alone would keep an old entry beside the new one
	privs := mysql_db.NewPrivilegeSet()
	if admin {
		privs = mysql_db.NewPrivilegeSetWithAllPrivileges()
	}
	ed.PutUser(&mysql_db.User{
		User:                name,
		Host:                host,
		PrivilegeSet:        privs,
		Plugin:              string(mysql.MysqlNativePassword),
		AuthString:          NativePasswordHash(password),
		PasswordLastChanged: time.Now().UTC(),
	})
	return u.db.Persist(sql.NewEmptyContext(), ed)
}

// IsLoopback reports whether host (an address or name to listen on) only
// reaches this machine.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
