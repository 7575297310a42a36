package tests

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/sqlengine"
)

// overwritingStore is a store without conditional create: its
// CreateIfNotExists overwrites, as S3 stores that ignore If-None-Match do.
type overwritingStore struct{ storage.Storage }

func (s overwritingStore) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	return s.WriteAll(ctx, p, data)
}

// TestNoConditionalCreateRefusesToWrite: a writable server without a
// commit lock refuses to start on a store whose conditional create
// overwrites (commits there could lose each other), saying so and naming
// --commit-lock (TestCommitLockWithoutConditionalCreate serves writes
// there with one); a --read-only server starts and
// reads; a store that honours it starts writable.
func TestNoConditionalCreateRefusesToWrite(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = sqlengine.New(ctx, sqlengine.Config{Storage: overwritingStore{st}, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0})
	if !errors.Is(err, sqlengine.ErrNoConditionalCreate) || !strings.Contains(err.Error(), "--read-only") || !strings.Contains(err.Error(), "--commit-lock") {
		t.Fatalf("writable server on a store without conditional create: %v, want ErrNoConditionalCreate naming --commit-lock and --read-only", err)
	}
	// A commit lock that is not one: the server says so and does not start.
	_, err = sqlengine.New(ctx, sqlengine.Config{Storage: overwritingStore{st}, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0, CommitLock: "zookeeper:x"})
	if err == nil || !strings.Contains(err.Error(), "file:/path/to/lock-folder") {
		t.Fatalf("writable server with commit lock zookeeper:x: %v, want an error naming the file: form", err)
	}
	addr := startServerConfig(t, sqlengine.Config{Storage: overwritingStore{st}, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0, ReadOnly: true})
	db := openWarehouseDB(t, addr, "", "")
	if _, err := db.Exec("CREATE DATABASE x"); mysqlErrNo(err) != 1290 {
		t.Errorf("CREATE DATABASE on the read-only server: %v, want 1290", err)
	}
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	// The same folder through a store that honours it: writable.
	addr = startServerConfig(t, sqlengine.Config{Storage: st, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0})
	db = openWarehouseDB(t, addr, "", "")
	if _, err := db.Exec("CREATE DATABASE x"); err != nil {
		t.Fatal(err)
	}
}
