package tests

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/sqlengine"
)

// The server tests share one in-process lakesql server over a warehouse
// holding a copy of every Java-written fixture table in database `fx`:
//
//	<tmp>/warehouse/fx.db/<name>/      ← fixtures/paimon-java/<name>.db/<name>/
//	<tmp>/external/<name>/             ← fixtures/paimon-java/<name>.db/external/
//
// The external/ folders are kept beside the warehouse for completeness, but
// the data files of the *_with_external fixtures are recorded under the
// absolute Java path FILE:/tmp/external/..., which the server does not remap
// (only the reader-level test installs a resolver): those tables must fail
// with an error naming the external path (see serverExternalFixtures).
//
// The server is started on first use (sync.Once) and closed by TestMain.

// fxDB is the database the fixture tables are copied into.
const fxDB = "fx"

var fxServer struct {
	once sync.Once
	err  error
	tmp  string
	srv  *sqlengine.Server
	addr string
	db   *sql.DB
	done chan error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fxServer.srv != nil {
		if fxServer.db != nil {
			fxServer.db.Close()
		}
		if err := fxServer.srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing the lakesql server:", err)
		}
		select {
		case <-fxServer.done:
		case <-time.After(5 * time.Second):
			fmt.Fprintln(os.Stderr, "lakesql server Start did not return after Close")
			code = 1
		}
	}
	if fxServer.tmp != "" {
		os.RemoveAll(fxServer.tmp)
	}
	if serverFiles.path != "" {
		os.RemoveAll(serverFiles.path) // sql_random_test.go
	}
	os.Exit(code)
}

// serverDB returns the shared *sql.DB of the fixture server (database fx,
// interpolateParams=true, parseTime=true).
func serverDB(t testing.TB) *sql.DB {
	t.Helper()
	startFixtureServer(t)
	return fxServer.db
}

// serverAddr returns host:port of the fixture server.
func serverAddr(t testing.TB) string {
	t.Helper()
	startFixtureServer(t)
	return fxServer.addr
}

// openServerDB opens a new connection pool to the fixture server with the
// given DSN parameters (e.g. "interpolateParams=false").
func openServerDB(t testing.TB, params string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?%s", serverAddr(t), fxDB, params))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func startFixtureServer(t testing.TB) {
	t.Helper()
	testutil.SharedDir(t) // skips, outside the Once, when ../shared is absent
	fxServer.once.Do(func() { fxServer.err = doStartFixtureServer(t) })
	if fxServer.err != nil {
		t.Fatalf("fixture server: %v", fxServer.err)
	}
}

func doStartFixtureServer(t testing.TB) error {
	tables := testutil.FixtureTables(t)
	if len(tables) == 0 {
		return errors.New("no fixture tables")
	}
	tmp, err := os.MkdirTemp("", "lakesql-server-test-")
	if err != nil {
		return err
	}
	fxServer.tmp = tmp
	wh := filepath.Join(tmp, "warehouse")
	for name, src := range tables {
		if err := copyTree(src, filepath.Join(wh, fxDB+".db", name)); err != nil {
			return err
		}
		ext := filepath.Join(filepath.Dir(src), "external")
		if st, err := os.Stat(ext); err == nil && st.IsDir() {
			if err := copyTree(ext, filepath.Join(tmp, "external", name)); err != nil {
				return err
			}
		}
	}
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0, ReadOnly: true})
	if err != nil {
		return err
	}
	fxServer.srv = srv
	fxServer.addr = srv.Addr()
	fxServer.done = make(chan error, 1)
	go func() { fxServer.done <- srv.Start() }()
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&interpolateParams=true", fxServer.addr, fxDB))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(16)
	fxServer.db = db
	// Start runs in a goroutine: wait until it accepts connections.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := db.Ping()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server at %s not ready: %w", fxServer.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// queryer is a *sql.DB, *sql.Conn or *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// queryRows runs q and returns every row as driver values (nil, int64,
// float64, []byte copies, time.Time), plus the column names.
func queryRows(ctx context.Context, q queryer, query string, args ...any) ([]string, [][]any, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = append([]byte(nil), b...)
			}
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}

// queryStrings runs q and returns every row as text (NULL as "NULL").
func queryStrings(t testing.TB, q queryer, query string, args ...any) [][]string {
	t.Helper()
	_, rows, err := queryRows(context.Background(), q, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = textOf(v)
		}
	}
	return out
}

func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999")
	}
	return fmt.Sprint(v)
}

// mysqlErrNo returns the MySQL error number of err, or 0.
func mysqlErrNo(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// quoteIdent backquotes a MySQL identifier.
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
