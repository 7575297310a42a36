package access_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/sqlengine/access"
)

func TestNativePasswordHash(t *testing.T) {
	// MySQL 5.7: SELECT PASSWORD('password').
	if got, want := access.NativePasswordHash("password"), "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"; got != want {
		t.Errorf("NativePasswordHash(password) = %s, want %s", got, want)
	}
	if access.NativePasswordHash("") != "" {
		t.Error("an empty password has a hash")
	}
}

func openMem(t *testing.T, name string) storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), "mem://"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestWarehouseStoreConflict: of N servers saving on the same version,
// exactly one wins; old versions are pruned.
func TestWarehouseStoreConflict(t *testing.T) {
	ctx := context.Background()
	s := access.NewWarehouseStore(openMem(t, t.Name()))
	if v, err := s.Version(ctx); err != nil || v != "" {
		t.Fatalf("empty store version %q, %v", v, err)
	}
	v1, err := s.Save(ctx, []byte("a"), "")
	if err != nil || v1 != "1" {
		t.Fatalf("first save %q, %v", v1, err)
	}
	if _, err := s.Save(ctx, []byte("b"), ""); !errors.Is(err, access.ErrConflict) {
		t.Fatalf("stale save: %v, want ErrConflict", err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Save(ctx, []byte("c"), v1); err == nil {
				wins.Add(1)
			} else if !errors.Is(err, access.ErrConflict) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d racers won", wins.Load())
	}
	v := "2"
	for i := 0; i < 12; i++ {
		if v, err = s.Save(ctx, []byte{byte(i)}, v); err != nil {
			t.Fatal(err)
		}
	}
	data, ver, err := s.Load(ctx)
	if err != nil || ver != "14" || len(data) != 1 || data[0] != 11 {
		t.Fatalf("Load = %v %q %v", data, ver, err)
	}
}

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	s := access.NewFileStore(filepath.Join(t.TempDir(), "sub", "users"))
	v1, err := s.Save(ctx, []byte("x"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, []byte("y"), ""); !errors.Is(err, access.ErrConflict) {
		t.Fatalf("stale save: %v", err)
	}
	if _, err := s.Save(ctx, []byte("y"), v1); err != nil {
		t.Fatal(err)
	}
	if data, _, err := s.Load(ctx); err != nil || string(data) != "y" {
		t.Fatalf("Load = %q, %v", data, err)
	}
}

// TestUsersConcurrentChange: a server whose copy is stale gets 1213 on its
// change and reloads the other's before the next statement.
func TestUsersConcurrentChange(t *testing.T) {
	ctx := context.Background()
	st := openMem(t, t.Name())
	a, err := access.Open(ctx, mysql_db.CreateEmptyMySQLDb(), access.NewWarehouseStore(st))
	if err != nil {
		t.Fatal(err)
	}
	b, err := access.Open(ctx, mysql_db.CreateEmptyMySQLDb(), access.NewWarehouseStore(st))
	if err != nil {
		t.Fatal(err)
	}
	put := func(u *access.Users, name string) error {
		ed := u.DB().Editor()
		defer ed.Close()
		ed.PutUser(&mysql_db.User{User: name, Host: "%", PrivilegeSet: mysql_db.NewPrivilegeSet(),
			Plugin: string(mysql.MysqlNativePassword), AuthString: access.NativePasswordHash("p")})
		return u.DB().Persist(sql.NewEmptyContext(), ed)
	}
	if err := put(a, "first"); err != nil {
		t.Fatal(err)
	}
	err = put(b, "second")
	var se *mysql.SQLError
	if !errors.As(err, &se) || se.Num != mysql.ERLockDeadlock {
		t.Fatalf("stale change: %v, want 1213", err)
	}
	if err := b.Refresh(ctx, time.Hour); err != nil { // stale: reloads despite maxAge
		t.Fatal(err)
	}
	has := func(u *access.Users, name string) bool {
		rd := u.DB().Reader()
		defer rd.Close()
		_, ok := rd.GetUser(mysql_db.UserPrimaryKey{User: name, Host: "%"})
		return ok
	}
	if !has(b, "first") || has(b, "second") {
		t.Fatalf("after reload b has first=%v second=%v, want true false", has(b, "first"), has(b, "second"))
	}
	if err := put(b, "second"); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if !has(a, "first") || !has(a, "second") {
		t.Fatal("a does not see both accounts")
	}
	if !a.HasPasswordUser() {
		t.Error("HasPasswordUser is false")
	}
}

func TestAddUser(t *testing.T) {
	ctx := context.Background()
	store := access.NewWarehouseStore(openMem(t, t.Name()))
	if err := access.AddUser(ctx, store, "ann", "%", "pw", true, false); err != nil {
		t.Fatal(err)
	}
	if err := access.AddUser(ctx, store, "ann", "%", "pw2", false, false); err == nil {
		t.Error("adding ann twice succeeded")
	}
	if err := access.AddUser(ctx, store, "ann", "%", "pw2", false, true); err != nil {
		t.Fatal(err)
	}
	u, err := access.Open(ctx, mysql_db.CreateEmptyMySQLDb(), store)
	if err != nil {
		t.Fatal(err)
	}
	rd := u.DB().Reader()
	defer rd.Close()
	ann, ok := rd.GetUser(mysql_db.UserPrimaryKey{User: "ann", Host: "%"})
	if !ok || ann.AuthString != access.NativePasswordHash("pw2") || ann.PrivilegeSet.Has(sql.PrivilegeType_Super) {
		t.Errorf("ann = %+v", ann)
	}
	if _, ok := rd.GetUser(mysql_db.UserPrimaryKey{User: "root", Host: "localhost"}); !ok {
		t.Error("the default root account is gone")
	}
}

func TestIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{"127.0.0.1": true, "::1": true, "[::1]": true, "localhost": true, "127.0.0.2": true,
		"0.0.0.0": false, "::": false, "": false, "10.0.0.1": false, "example.com": false} {
		if got := access.IsLoopback(h); got != want {
			t.Errorf("IsLoopback(%q) = %v", h, got)
		}
	}
}
