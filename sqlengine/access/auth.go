package access

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/json"
	"log/slog"
	"net"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
)

// ERSecureTransportRequired is MySQL's 3159.
const ERSecureTransportRequired = 3159

// AuthServer authenticates clients against Users. It offers
// mysql_native_password (the handshake's default) and
// caching_sha2_password: the fast path (a scramble checked against the
// SHA256(SHA256(password)) cached after an earlier full authentication of
// the same password) works on any connection; the full path (the password
// itself) only over TLS, as MySQL without RSA keys. An unknown user or a
// wrong password gives 1045 on either plugin. RequireSecureTransport
// refuses every connection without TLS (3159), and an account created
// with REQUIRE SSL (or X509) refuses to log in without TLS (1045).
type AuthServer struct {
	users *Users
	// RequireSecureTransport refuses connections without TLS.
	RequireSecureTransport bool

	methods []mysql.AuthMethod
	cache   sync.Map // "user@host" → cachedSha2
}

type cachedSha2 struct {
	authString string // the account's caching_sha2 string it was derived from
	hash2      []byte // SHA256(SHA256(password))
}

var _ mysql.AuthServer = (*AuthServer)(nil)

// NewAuthServer returns the authentication of the accounts in users.
func NewAuthServer(users *Users) *AuthServer {
	a := &AuthServer{users: users}
	native := mysql.NewMysqlNativeAuthMethod(nativeStorage{a}, validator{a, mysql.MysqlNativePassword})
	sha2 := mysql.NewSha2CachingAuthMethod(sha2Cache{a}, sha2Full{a}, validator{a, mysql.CachingSha2Password})
	a.methods = []mysql.AuthMethod{&method{AuthMethod: native, a: a}, &method{AuthMethod: sha2, a: a, sha2: true}}
	return a
}

// AuthMethods implements mysql.AuthServer.
func (a *AuthServer) AuthMethods() []mysql.AuthMethod { return a.methods }

// DefaultAuthMethodDescription implements mysql.AuthServer.
func (a *AuthServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.MysqlNativePassword
}

// lookup refreshes the accounts and finds the one user@host logs in as.
func (a *AuthServer) lookup(user string, addr net.Addr) (*mysql_db.User, string) {
	if err := a.users.Refresh(context.Background(), 0); err != nil {
		slog.Warn("reloading the accounts failed; using the ones loaded before", "store", a.users.store.String(), "err", err)
	}
	host := hostOf(addr)
	db := a.users.db
	rd := db.Reader()
	defer rd.Close()
	u := db.GetUser(rd, user, host, false)
	if u == nil || u.IsRole {
		return nil, host
	}
	cp := *u
	return &cp, host
}

// internalLogin logs an in-process connection in as the account its
// address names (InternalAddr): the server authenticated the user already.
func (a *AuthServer) internalLogin(ia InternalAddr, user string) (mysql.Getter, error) {
	if user != ia.User {
		return nil, accessDenied(user, ia.Host, false)
	}
	u, host := a.lookup(ia.User, ia)
	if u == nil || u.Locked {
		return nil, accessDenied(user, host, false)
	}
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
}

func hostOf(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	if ia, ok := addr.(InternalAddr); ok {
		return ia.Host
	}
	if addr.Network() == "unix" {
		return "localhost"
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

func accessDenied(user, host string, withPassword bool) error {
	using := "NO"
	if withPassword {
		using = "YES"
	}
	return mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
		"Access denied for user '%s'@'%s' (using password: %s)", user, host, using)
}

// method wraps a vitess auth method with the transport checks, and lets
// caching_sha2_password be negotiated without TLS (its fast path needs
// none; its full path still refuses a connection without TLS).
type method struct {
	mysql.AuthMethod
	a    *AuthServer
	sha2 bool
}

func (m *method) HandleUser(c *mysql.Conn, user string) bool {
	if _, ok := c.RemoteAddr().(InternalAddr); ok {
		return m.Name() == mysql.MysqlNativePassword // no password is exchanged
	}
	return validator{m.a, m.Name()}.HandleUser(user, c.RemoteAddr())
}

func (m *method) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	if ia, ok := addr.(InternalAddr); ok {
		return m.a.internalLogin(ia, user)
	}
	tls := c.TLSEnabled() || c.IsUnixSocket()
	if m.a.RequireSecureTransport && !tls {
		return nil, mysql.NewSQLError(ERSecureTransportRequired, "HY000",
			"Connections using insecure transport are prohibited while --require_secure_transport=ON.")
	}
	g, err := m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, addr)
	if err != nil {
		return nil, err
	}
	cu, ok := g.(sql.MysqlConnectionUser)
	if !ok {
		return nil, accessDenied(user, hostOf(addr), len(clientData) > 0)
	}
	if !tls {
		if u, _ := m.a.lookup(cu.User, addr); u != nil && RequiresSSL(u) {
			slog.Info("login refused: the account REQUIRE SSL and the connection has no TLS", "user", cu.User, "host", cu.Host)
			return nil, accessDenied(user, hostOf(addr), true)
		}
	}
	return cu, nil
}

// validator says which plugin an account uses. An unknown user is taken
// by mysql_native_password, so that it fails with 1045 like a wrong
// password (and reveals nothing) instead of a handshake error.
type validator struct {
	a      *AuthServer
	plugin mysql.AuthMethodDescription
}

func (v validator) HandleUser(user string, addr net.Addr) bool {
	u, _ := v.a.lookup(user, addr)
	if u == nil || u.Locked {
		return v.plugin == mysql.MysqlNativePassword
	}
	if u.Plugin == string(mysql.CachingSha2Password) {
		return v.plugin == mysql.CachingSha2Password
	}
	return v.plugin == mysql.MysqlNativePassword
}

type nativeStorage struct{ a *AuthServer }

func (s nativeStorage) UserEntryWithHash(_ []*x509.Certificate, salt []byte, user string, resp []byte, addr net.Addr) (mysql.Getter, error) {
	u, host := s.a.lookup(user, addr)
	if u == nil || u.Locked || u.Plugin == string(mysql.CachingSha2Password) {
		return nil, accessDenied(user, host, len(resp) > 0)
	}
	if u.AuthString == "" {
		if len(resp) > 0 {
			return nil, accessDenied(user, host, true)
		}
	} else {
		hash, err := mysql.DecodeMysqlNativePasswordHex(u.AuthString)
		if err != nil || !mysql.VerifyHashedMysqlNativePassword(resp, salt, hash) {
			return nil, accessDenied(user, host, len(resp) > 0)
		}
	}
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
}

// sha2Cache is caching_sha2_password's fast path.
type sha2Cache struct{ a *AuthServer }

func (s sha2Cache) UserEntryWithCacheHash(_ []*x509.Certificate, salt []byte, user string, resp []byte, addr net.Addr) (mysql.Getter, mysql.CacheState, error) {
	u, host := s.a.lookup(user, addr)
	if u == nil || u.Locked {
		return nil, mysql.AuthRejected, accessDenied(user, host, len(resp) > 0)
	}
	empty := len(resp) == 0 || (len(resp) == 1 && resp[0] == 0)
	if empty {
		if u.AuthString == "" {
			return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, mysql.AuthAccepted, nil
		}
		return nil, mysql.AuthRejected, accessDenied(user, host, false)
	}
	if c, ok := s.a.cache.Load(u.User + "@" + u.Host); ok {
		c := c.(cachedSha2)
		if c.authString == u.AuthString && mysql.VerifyHashedCachingSha2Password(resp, salt, c.hash2) {
			return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, mysql.AuthAccepted, nil
		}
	}
	return nil, mysql.AuthNeedMoreData, nil
}

// sha2Full is caching_sha2_password's full path (the password, over TLS).
type sha2Full struct{ a *AuthServer }

func (s sha2Full) UserEntryWithPassword(_ []*x509.Certificate, user, password string, addr net.Addr) (mysql.Getter, error) {
	u, host := s.a.lookup(user, addr)
	if u == nil || u.Locked {
		return nil, accessDenied(user, host, password != "")
	}
	if u.AuthString == "" {
		if password != "" {
			return nil, accessDenied(user, host, true)
		}
		return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
	}
	digest, iterations, salt, _, err := mysql.DeserializeCachingSha2PasswordAuthString([]byte(u.AuthString))
	if err != nil || digest != "SHA256" {
		return nil, accessDenied(user, host, true)
	}
	want, err := mysql.SerializeCachingSha2PasswordAuthString(password, salt, iterations)
	if err != nil || subtle.ConstantTimeCompare(want, []byte(u.AuthString)) != 1 {
		return nil, accessDenied(user, host, true)
	}
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	s.a.cache.Store(u.User+"@"+u.Host, cachedSha2{authString: u.AuthString, hash2: h2[:]})
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
}

// userAttributes is the part of mysql.user's User_attributes lakesql
// reads: {"require_ssl": true} for an account created with REQUIRE SSL.
type userAttributes map[string]any

const requireSSLKey = "require_ssl"

// RequiresSSL reports whether the account was created with REQUIRE SSL.
func RequiresSSL(u *mysql_db.User) bool {
	if u.Attributes == nil {
		return false
	}
	var m userAttributes
	if json.Unmarshal([]byte(*u.Attributes), &m) != nil {
		return false
	}
	v, _ := m[requireSSLKey].(bool)
	return v
}

// SetRequireSSL records REQUIRE SSL (on) or REQUIRE NONE (off) for the
// accounts and persists the change.
func (u *Users) SetRequireSSL(ctx *sql.Context, on bool, accounts ...mysql_db.UserPrimaryKey) error {
	ed := u.db.Editor()
	defer ed.Close()
	for _, pk := range accounts {
		x, ok := ed.GetUser(pk)
		if !ok {
			continue
		}
		m := userAttributes{}
		if x.Attributes != nil {
			_ = json.Unmarshal([]byte(*x.Attributes), &m)
		}
		if on {
			m[requireSSLKey] = true
		} else {
			delete(m, requireSSLKey)
		}
		cp := *x
		if len(m) == 0 {
			cp.Attributes = nil
		} else {
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			s := string(b)
			cp.Attributes = &s
		}
		ed.RemoveUser(pk) // PutUser would keep the old entry beside the new one
		ed.PutUser(&cp)
	}
	return u.db.Persist(ctx, ed)
}
