package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
)

// The end-to-end SQL suite against a real S3-compatible object store
// ($LAKESQL_S3_TEST_ENDPOINT: SeaweedFS's S3 gateway, which .ci/run builds
// and starts on loopback; skipped when unset, failing then under
// LAKESQL_REQUIRE_TOOLS=1). Snapshot commits there rest on the store's
// conditional create (If-None-Match: *), which the storage conformance
// suite checks (internal/storage TestConformanceS3).

// s3Files lists the objects below prefix of warehouse wh.
func s3Files(wh string) func(t *testing.T, prefix string) []string {
	return func(t *testing.T, prefix string) []string {
		t.Helper()
		st, err := storage.Open(context.Background(), wh)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var out []string
		for obj, err := range st.List(context.Background(), strings.TrimSuffix(prefix, "/")+"/") {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, obj.Path)
		}
		return out
	}
}

// TestS3SQL: DDL, writes, reads, compaction, expiration and DROP through
// SQL on an S3 warehouse; the drop leaves no object behind.
func TestS3SQL(t *testing.T) {
	wh := testutil.S3Warehouse(t)
	p := startServeProcess(t, wh)
	db := openWarehouseDB(t, p.addr, "default", "")
	for _, q := range []string{
		"CREATE DATABASE s3db",
		"CREATE TABLE s3db.t (k BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', 'snapshot.num-retained.min' = '2', 'snapshot.num-retained.max' = '2')",
		"INSERT INTO s3db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"UPDATE s3db.t SET v = 'B' WHERE k = 2",
		"DELETE FROM s3db.t WHERE k = 3",
		"INSERT INTO s3db.t VALUES (4, 'd')",
		"CALL sys.compact(`table` => 's3db.t')",
		"ALTER TABLE s3db.t ADD COLUMN w BIGINT",
		"INSERT INTO s3db.t VALUES (5, 'e', 50)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	got := queryStrings(t, db, "SELECT k, v, COALESCE(w, -1) FROM s3db.t ORDER BY k")
	want := [][]string{{"1", "a", "-1"}, {"2", "B", "-1"}, {"4", "d", "-1"}, {"5", "e", "50"}}
	if len(got) != len(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for i := range want {
		if strings.Join(got[i], ",") != strings.Join(want[i], ",") {
			t.Fatalf("rows %v, want %v", got, want)
		}
	}
	if n := queryStrings(t, db, "SELECT COUNT(*) FROM `s3db`.`t$snapshots`")[0][0]; n != "2" {
		t.Errorf("%s snapshots live, want 2 (snapshot.num-retained.max): expiration did not run", n)
	}
	files := s3Files(wh)
	if len(files(t, "s3db.db/t")) == 0 {
		t.Fatal("no objects below s3db.db/t: the table is not on S3")
	}
	if _, err := db.Exec("DROP DATABASE s3db"); err != nil {
		t.Fatal(err)
	}
	if left := files(t, "s3db.db"); len(left) > 0 {
		t.Errorf("DROP DATABASE left %d objects: %v", len(left), left)
	}
}

// TestS3ServeProcessesConcurrency is TestServeProcessesConcurrency on S3.
func TestS3ServeProcessesConcurrency(t *testing.T) {
	wh := testutil.S3Warehouse(t)
	runServeConcurrency(t, wh, s3Files(wh))
}
