package sqlengine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/sqlengine"
)

// startEmbedded starts a server that listens on no port over a fresh
// in-memory warehouse.
func startEmbedded(t *testing.T, cfg sqlengine.Config) *sqlengine.Server {
	t.Helper()
	if cfg.Warehouse == "" {
		cfg.Warehouse = "mem://"
	}
	cfg.Embedded = true
	srv, err := sqlengine.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return srv
}

// TestInProcessConnections: an embedded server takes in-process
// connections through the whole handler chain (the DDL front's Flink DDL,
// transactions, SHOW PROCESSLIST shows them), logged in as the account
// named; an unknown account is refused with 1045.
func TestInProcessConnections(t *testing.T) {
	srv := startEmbedded(t, sqlengine.Config{})
	if !strings.Contains(srv.Addr(), "internal") {
		t.Errorf("embedded server address %q", srv.Addr())
	}
	db, err := srv.OpenDB("root", "localhost", "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')",
		"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		"BEGIN", "UPDATE t SET v = 'c' WHERE id = 2", "COMMIT",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v string
	if err := db.QueryRow("SELECT v FROM t WHERE id = 2").Scan(&v); err != nil || v != "c" {
		t.Errorf("v = %q, %v", v, err)
	}
	var user string
	if err := db.QueryRow("SELECT CURRENT_USER()").Scan(&user); err != nil || user != "root@localhost" {
		t.Errorf("CURRENT_USER() = %q, %v", user, err)
	}
	rows, err := db.Query("SHOW PROCESSLIST")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if n == 0 {
		t.Error("SHOW PROCESSLIST lists no connection")
	}

	bad, err := srv.OpenDB("nobody", "localhost", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Ping(); err == nil || !strings.Contains(err.Error(), "1045") {
		t.Errorf("unknown account: %v, want 1045", err)
	}
}
