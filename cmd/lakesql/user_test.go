package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestUserAdd: `lakesql user add` writes an account into the warehouse (or
// a --users-file) that a server then accepts.
func TestUserAdd(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		flags func(wh, file string) []string
		cfg   func(wh, file string) sqlengine.Config
	}{
		{"warehouse", func(wh, _ string) []string { return []string{"--warehouse", wh} },
			func(wh, _ string) sqlengine.Config { return sqlengine.Config{Warehouse: wh} }},
		{"warehouse-with-commit-lock", func(wh, f string) []string {
			return []string{"--warehouse", wh, "--commit-lock", "file:" + f + ".locks"}
		},
			func(wh, f string) sqlengine.Config {
				return sqlengine.Config{Warehouse: wh, CommitLock: "file:" + f + ".locks"}
			}},
		{"users-file", func(_, f string) []string { return []string{"--users-file", f} },
			func(wh, f string) sqlengine.Config {
				return sqlengine.Config{Warehouse: wh, Security: sqlengine.SecurityConfig{UsersFile: f}}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wh, file := t.TempDir(), filepath.Join(t.TempDir(), "users")
			var out bytes.Buffer
			if err := user(ctx, &out, []string{"add"}); err == nil {
				t.Error("user add without a name succeeded")
			}
			if err := user(ctx, &out, append([]string{"add", "ops"}, tc.flags(wh, file)...)); err == nil {
				t.Error("user add without --password succeeded")
			}
			args := append([]string{"add", "ops", "--password", "opspw", "--admin"}, tc.flags(wh, file)...)
			if err := user(ctx, &out, args); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "'ops'@'%' with every privilege") {
				t.Errorf("output %q", out.String())
			}
			if err := user(ctx, &out, args); err == nil {
				t.Error("adding ops twice succeeded")
			}
			if err := user(ctx, &out, []string{"add", "x", "--password", "p", "--warehouse", wh, "--commit-lock", "zk:x"}); err == nil ||
				!strings.Contains(err.Error(), "file:/path/to/lock-folder") {
				t.Errorf("user add --commit-lock zk:x: %v, want an error naming the file: form", err)
			}
			cfg := tc.cfg(wh, file)
			cfg.Host = "127.0.0.1"
			srv, err := sqlengine.New(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			go srv.Start()
			defer srv.Close()
			db, err := sql.Open("mysql", "ops:opspw@tcp("+srv.Addr()+")/")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			mustOK(t, db, "CREATE DATABASE made_by_ops")
			bad, _ := sql.Open("mysql", "ops:nope@tcp("+srv.Addr()+")/")
			defer bad.Close()
			var me *mysql.MySQLError
			if err := bad.Ping(); !errors.As(err, &me) || me.Number != 1045 {
				t.Errorf("wrong password: %v", err)
			}
			// Without any account a non-loopback host is refused (tests
			// never listen beyond loopback, so the accepted case is not run).
			if tc.name == "warehouse" {
				other := sqlengine.Config{Warehouse: t.TempDir(), Host: "0.0.0.0"}
				if s, err := sqlengine.New(ctx, other); err == nil {
					s.Close()
					t.Error("0.0.0.0 without accounts was accepted")
				}
			}
		})
	}
}

func mustOK(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
