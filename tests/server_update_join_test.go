package tests

import (
	"strings"
	"testing"
)

// TestUpdateJoinTouchesOnlyMatchedRows is the regression test for index
// lookups read through a transaction's pending writes: the lookup's
// predicate was lost, so after the first updated row every lookup returned
// the whole table and UPDATE … JOIN rewrote every row.
func TestUpdateJoinTouchesOnlyMatchedRows(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	for _, q := range []string{
		"CREATE TABLE x (id INT PRIMARY KEY, a INT, b INT)",
		"CREATE TABLE up (id INT PRIMARY KEY, a INT, b INT)",
		"INSERT INTO x VALUES (1,1,1),(2,2,2),(3,3,3)",
		"INSERT INTO up VALUES (1,10,10),(3,30,30),(4,40,40)",
		"UPDATE x JOIN up ON x.id = up.id SET x.a = up.a, x.b = up.b WHERE up.id IN (1, 3)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var got []string
	for _, r := range queryStrings(t, db, "SELECT id, a, b FROM x ORDER BY id") {
		got = append(got, strings.Join(r, ","))
	}
	if want := "1,10,10 2,2,2 3,30,30"; strings.Join(got, " ") != want {
		t.Errorf("after UPDATE … JOIN: %v, want %s", got, want)
	}
	// Inside a transaction, a join reads the pending row and only matches.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO x VALUES (4, 4, 4)"); err != nil {
		t.Fatal(err)
	}
	rows := queryStrings(t, tx, "SELECT x.id, up.a FROM x JOIN up ON x.id = up.id ORDER BY x.id")
	if len(rows) != 3 || rows[2][0] != "4" || rows[2][1] != "40" {
		t.Errorf("join inside the transaction: %v", rows)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
}
