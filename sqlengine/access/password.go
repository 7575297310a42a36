package access

import (
	"crypto/subtle"
	"net"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// CheckPassword authenticates user with a clear-text password from a
// client at addr, for protocols that carry the password itself (Arrow
// Flight SQL's basic auth): the account user@host as MySQL matches it, not
// locked, whose mysql_native_password or caching_sha2_password string the
// password gives. An account created with REQUIRE SSL needs secure. The
// error is MySQL's 1045 either way (it reveals nothing).
func (a *AuthServer) CheckPassword(user, password string, addr net.Addr, secure bool) (sql.MysqlConnectionUser, error) {
	u, host := a.lookup(user, addr)
	fail := accessDenied(user, host, password != "")
	if u == nil || u.Locked {
		return sql.MysqlConnectionUser{}, fail
	}
	ok := false
	switch {
	case u.AuthString == "":
		ok = password == ""
	case u.Plugin == string(mysql.CachingSha2Password):
		_, iterations, salt, _, err := mysql.DeserializeCachingSha2PasswordAuthString([]byte(u.AuthString))
		if err == nil {
			want, err := mysql.SerializeCachingSha2PasswordAuthString(password, salt, iterations)
			ok = err == nil && subtle.ConstantTimeCompare(want, []byte(u.AuthString)) == 1
		}
	default:
		ok = subtle.ConstantTimeCompare([]byte(NativePasswordHash(password)), []byte(u.AuthString)) == 1
	}
	if !ok || (!secure && RequiresSSL(u)) {
		return sql.MysqlConnectionUser{}, fail
	}
	if a.RequireSecureTransport && !secure {
		return sql.MysqlConnectionUser{}, mysql.NewSQLError(ERSecureTransportRequired, "HY000",
			"Connections using insecure transport are prohibited while --require_secure_transport=ON.")
	}
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, nil
}

// Account is the account user logs in as from host (as MySQL matches
// hosts), when it exists and is not locked.
func (a *AuthServer) Account(user, host string) (sql.MysqlConnectionUser, bool) {
	u, _ := a.lookup(user, InternalAddr{User: user, Host: host})
	if u == nil || u.Locked {
		return sql.MysqlConnectionUser{}, false
	}
	return sql.MysqlConnectionUser{User: u.User, Host: u.Host}, true
}
