package tests

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// startSecure starts a server with cfg (Host 127.0.0.1, Port 0 unless set)
// and returns it; it stops at the end of the test.
func startSecure(t testing.TB, cfg sqlengine.Config) *sqlengine.Server {
	t.Helper()
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	srv, err := sqlengine.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	t.Cleanup(func() {
		srv.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	return srv
}

// connectAs opens one connection as user:password (params are extra DSN
// parameters) and returns it, or the login error.
func connectAs(t testing.TB, addr, user, password, db, params string) (*sql.DB, error) {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, password, "tcp", addr, db
	cfg.InterpolateParams = !strings.Contains(params, "interpolateParams")
	cfg.AllowAllFiles = true
	dsn := cfg.FormatDSN()
	if params != "" {
		if strings.Contains(dsn, "?") {
			dsn += "&" + params
		} else {
			dsn += "?" + params
		}
	}
	d, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	if err := d.Ping(); err != nil {
		d.Close()
		return nil, err
	}
	t.Cleanup(func() { d.Close() })
	return d, nil
}

// mustConnect is connectAs that fails the test on a login error.
func mustConnect(t testing.TB, addr, user, password, db, params string) *sql.DB {
	t.Helper()
	d, err := connectAs(t, addr, user, password, db, params)
	if err != nil {
		t.Fatalf("login as %s: %v", user, err)
	}
	return d
}

// errNumber is the MySQL error number of err (0 if it has none).
func errNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// wantErrNumber fails unless err carries MySQL error number want.
func wantErrNumber(t testing.TB, what string, err error, want uint16) {
	t.Helper()
	if got := errNumber(err); got != want {
		t.Errorf("%s: error %v (number %d), want error %d", what, err, got, want)
	}
}

// warehouseState lists every file below dir with its size and
// modification time, to prove that statements changed nothing on disk.
func warehouseState(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			out = append(out, p+"/")
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %d", p, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// selfSignedCert writes a self-signed certificate for 127.0.0.1 and
// localhost and its key (PEM) into dir; it returns their paths and a pool
// holding the certificate.
func selfSignedCert(t testing.TB, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "lakesql test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server-cert.pem"), filepath.Join(dir, "server-key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// registerTLS registers a go-sql-driver TLS config named name that trusts
// pool.
func registerTLS(t testing.TB, name string, pool *x509.CertPool) {
	t.Helper()
	if err := mysql.RegisterTLSConfig(name, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
}
