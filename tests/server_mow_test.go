package tests

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mowSQL is a connection to a fresh write server's database mow.
type mowSQL struct {
	t  *testing.T
	wh string
	db *sql.DB
}

func startMowServer(t *testing.T) *mowSQL {
	t.Helper()
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	boot := ws.open(t, "")
	if _, err := boot.Exec("CREATE DATABASE mow"); err != nil {
		t.Fatal(err)
	}
	return &mowSQL{t: t, wh: wh, db: ws.open(t, "mow")}
}

func (m *mowSQL) exec(stmts ...string) {
	m.t.Helper()
	for _, q := range stmts {
		if _, err := m.db.Exec(q); err != nil {
			m.t.Fatalf("%s: %v", q, err)
		}
	}
}

func (m *mowSQL) fails(q string, code uint16, want string) {
	m.t.Helper()
	_, err := m.db.Exec(q)
	if err == nil {
		m.t.Fatalf("%s: no error, want %d", q, code)
	}
	if got := mysqlErrNo(err); got != code || !strings.Contains(err.Error(), want) {
		m.t.Fatalf("%s: error %d %v, want %d containing %q", q, got, err, code, want)
	}
}

// rows returns the rows of q, each as its columns' text joined by '|'.
func (m *mowSQL) rows(q string) []string {
	m.t.Helper()
	var out []string
	for _, r := range queryStrings(m.t, m.db, q) {
		out = append(out, strings.Join(r, "|"))
	}
	return out
}

func (m *mowSQL) want(q string, want ...string) {
	m.t.Helper()
	if got := m.rows(q); !slices.Equal(got, want) {
		m.t.Fatalf("%s:\n got %q\nwant %q", q, got, want)
	}
}

// TestServerMergeOnWrite: a primary-key table with deletion vectors takes
// every write statement; each statement commits an APPEND (or OVERWRITE)
// snapshot with its level-0 files and a COMPACT snapshot that compacts
// them up and marks the replaced rows in deletion vectors, so reads (which
// skip level 0 and never merge, as Java's do) see the statement's rows
// at once; the first snapshot of a pair reads as the table before it.
func TestServerMergeOnWrite(t *testing.T) {
	for _, bits := range []string{"32", "64"} {
		t.Run(bits, func(t *testing.T) {
			m := startMowServer(t)
			m.exec(fmt.Sprintf(`CREATE TABLE o (id BIGINT, s STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
				WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true', 'deletion-vectors.bitmap64' = '%t')`, bits == "64"))
			m.exec("INSERT INTO o VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4)")
			m.want("SELECT * FROM o ORDER BY id", "1|a|1", "2|b|2", "3|c|3", "4|d|4")
			m.exec("UPDATE o SET n = n * 10 WHERE id >= 3")
			m.exec("DELETE FROM o WHERE id = 1")
			m.exec("INSERT INTO o VALUES (2, 'B', 20), (5, 'e', 5)")
			m.exec("REPLACE INTO o VALUES (4, 'D', 40)")
			m.exec("INSERT IGNORE INTO o VALUES (5, 'x', 0), (6, 'f', 6)")
			m.exec("INSERT INTO o VALUES (6, 'x', 0) ON DUPLICATE KEY UPDATE n = n + 1")
			m.exec("CREATE TABLE u (id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED)",
				"INSERT INTO u VALUES (3, 'C'), (7, 'g')")
			m.exec(`MERGE INTO o USING u ON o.id = u.id WHEN MATCHED THEN UPDATE SET s = u.s
				WHEN NOT MATCHED THEN INSERT VALUES (u.id, u.s, 0)`)
			m.exec("BEGIN", "INSERT INTO o VALUES (8, 'h', 8)", "UPDATE o SET s = 'H' WHERE id = 8", "DELETE FROM o WHERE id = 7", "COMMIT")
			want := []string{"2|B|20", "3|C|30", "4|D|40", "5|e|5", "6|f|7", "8|H|8"}
			m.want("SELECT * FROM o ORDER BY id", want...)
			m.want("SELECT count(*) FROM o", "6")
			m.want("SELECT * FROM o WHERE id = 3", "3|C|30")

			// Every statement: a pair of snapshots, the second COMPACT.
			kinds := m.rows("SELECT commit_kind FROM `o$snapshots` ORDER BY snapshot_id")
			if len(kinds) != 18 {
				t.Fatalf("snapshots %q: want 9 statements × 2", kinds)
			}
			for i := 0; i < len(kinds); i += 2 {
				if kinds[i] == "COMPACT" || kinds[i+1] != "COMPACT" {
					t.Fatalf("snapshots %q: want (APPEND|OVERWRITE, COMPACT) pairs", kinds)
				}
			}
			// The APPEND of the first INSERT reads as the empty table, the
			// UPDATE's APPEND as the table after the INSERT.
			m.want("SELECT count(*) FROM o AS OF 1", "0")
			m.want("SELECT * FROM o AS OF 3 ORDER BY id", "1|a|1", "2|b|2", "3|c|3", "4|d|4")
			m.want("SELECT * FROM o AS OF 4 WHERE id = 3", "3|c|30")
			m.want("SELECT count(*) FROM `o$files` WHERE level = 0", "0")

			// The deletion vectors: one index file per bucket, in the
			// bitmap format the table asks for.
			idx := m.rows("SELECT bucket, file_name, row_count FROM `o$table_indexes` WHERE index_type = 'DELETION_VECTORS' ORDER BY bucket")
			if len(idx) == 0 || len(idx) > 2 {
				t.Fatalf("DV index files %q: want one per bucket with deletions", idx)
			}
			for _, line := range idx {
				parts := strings.Split(line, "|")
				data, err := os.ReadFile(filepath.Join(m.wh, "mow.db", "o", "index", parts[1]))
				if err != nil {
					t.Fatal(err)
				}
				checkDVIndexFile(t, data, bits == "64")
			}
		})
	}
}

// checkDVIndexFile checks the layout of a DV index file Java writes: the
// version byte 1, then blobs whose magic says the bitmap format.
func checkDVIndexFile(t *testing.T, data []byte, bitmap64 bool) {
	t.Helper()
	if len(data) < 1 || data[0] != 1 {
		t.Fatalf("DV index file does not start with version 1: % x", data[:min(len(data), 8)])
	}
	if len(data) == 1 {
		return
	}
	if len(data) < 9 {
		t.Fatalf("DV index file of %d bytes", len(data))
	}
	if bitmap64 {
		if m := binary.LittleEndian.Uint32(data[5:9]); m != 1681511377 {
			t.Fatalf("64-bit DV blob magic %d (LE), want 1681511377", m)
		}
	} else if m := binary.BigEndian.Uint32(data[5:9]); m != 1581511376 {
		t.Fatalf("32-bit DV blob magic %d (BE), want 1581511376", m)
	}
}

// TestServerFirstRow: merge-engine = first-row tables are writable; the
// first row of a key stays, later inserts of the key are dropped by the
// lookup compaction of each statement; UPDATE is refused (as Spark's
// Paimon refuses it), DELETE needs first-row.ignore-delete and then
// deletes nothing, as in Paimon.
func TestServerFirstRow(t *testing.T) {
	m := startMowServer(t)
	m.exec(`CREATE TABLE f (id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'merge-engine' = 'first-row')`)
	m.exec("INSERT INTO f VALUES (1, 'a'), (2, 'b'), (1, 'a2')")
	m.exec("INSERT INTO f VALUES (2, 'B'), (3, 'c')")
	m.exec("REPLACE INTO f VALUES (3, 'C'), (4, 'd')")
	m.want("SELECT * FROM f ORDER BY id", "1|a", "2|b", "3|c", "4|d")
	m.fails("UPDATE f SET s = 'z' WHERE id = 1", 1235, "first-row")
	m.fails("DELETE FROM f WHERE id = 1", 1105, "first-row.ignore-delete")
	m.want("SELECT * FROM f ORDER BY id", "1|a", "2|b", "3|c", "4|d")
	m.want("SELECT count(*) FROM `f$files` WHERE level = 0", "0")
	m.exec("INSERT INTO f VALUES (5, 'e')")
	m.want("SELECT * FROM f WHERE id = 5", "5|e")

	m.exec(`CREATE TABLE g (id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'first-row', 'first-row.ignore-delete' = 'true')`)
	m.exec("INSERT INTO g VALUES (1, 'a'), (2, 'b')", "DELETE FROM g WHERE id = 1", "INSERT INTO g VALUES (1, 'z')")
	m.want("SELECT * FROM g ORDER BY id", "1|a", "2|b")
	m.exec(`CREATE TABLE h (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'first-row', 'deletion-vectors.enabled' = 'true')`)
	m.fails("INSERT INTO h VALUES (1)", 1105, "the first-row merge engine does not need deletion vectors")
}

// TestServerAppendDeletionVectors: UPDATE and DELETE on append tables with
// deletion vectors (bucket-unaware and bucketed, 32 and 64-bit) mark the
// matched rows' positions; duplicates, transactions that delete their own
// inserts, and partitions work; without deletion vectors they are refused.
func TestServerAppendDeletionVectors(t *testing.T) {
	m := startMowServer(t)
	m.exec(`CREATE TABLE a (id BIGINT, v STRING, p INT) PARTITIONED BY (p) WITH ('deletion-vectors.enabled' = 'true')`,
		`CREATE TABLE b (id BIGINT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id', 'deletion-vectors.enabled' = 'true', 'deletion-vectors.bitmap64' = 'true')`,
		`CREATE TABLE plain (id BIGINT, v STRING)`)
	m.exec("INSERT INTO a VALUES (1, 'x', 1), (2, 'y', 1), (2, 'y', 1), (3, 'z', 2), (4, 'w', 2)")
	m.exec("DELETE FROM a WHERE id = 2")
	m.want("SELECT * FROM a ORDER BY id", "1|x|1", "3|z|2", "4|w|2")
	m.exec("UPDATE a SET v = 'Z' WHERE id = 3")
	m.exec("INSERT INTO a VALUES (4, 'w', 2)")
	m.exec("DELETE FROM a WHERE id = 4 LIMIT 1")
	m.want("SELECT * FROM a ORDER BY id", "1|x|1", "3|Z|2", "4|w|2")
	m.exec("BEGIN", "INSERT INTO a VALUES (5, 'q', 1)", "DELETE FROM a WHERE id IN (1, 5)")
	m.want("SELECT * FROM a ORDER BY id", "3|Z|2", "4|w|2")
	m.exec("COMMIT")
	m.want("SELECT * FROM a ORDER BY id", "3|Z|2", "4|w|2")
	m.want("SELECT commit_kind FROM `a$snapshots` ORDER BY snapshot_id", "APPEND", "OVERWRITE", "OVERWRITE", "APPEND", "OVERWRITE", "OVERWRITE")
	m.want("SELECT count(*) FROM a AS OF 1", "5")

	m.exec("INSERT INTO b VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'w')", "INSERT INTO b VALUES (5, 'x'), (6, 'y')")
	m.exec("DELETE FROM b WHERE id % 2 = 0", "UPDATE b SET v = concat(v, '!') WHERE id > 2")
	m.want("SELECT * FROM b ORDER BY id", "1|x", "3|z!", "5|x!")
	for _, line := range m.rows("SELECT file_name FROM `b$table_indexes`") {
		data, err := os.ReadFile(filepath.Join(m.wh, "mow.db", "b", "index", line))
		if err != nil {
			t.Fatal(err)
		}
		checkDVIndexFile(t, data, true)
	}

	m.exec("INSERT INTO plain VALUES (1, 'x')")
	m.fails("DELETE FROM plain WHERE id = 1", 1235, "deletion-vectors.enabled")
	m.fails("UPDATE plain SET v = 'y'", 1235, "deletion-vectors.enabled")
	m.want("SELECT * FROM plain", "1|x")
}

// TestServerMergeOnWriteConcurrent: connections writing one table with
// deletion vectors at once (overlapping keys) leave every key once, with
// a value some statement wrote for it, and no level-0 file behind: a
// statement whose compaction loses to another's leaves its files to that
// one.
func TestServerMergeOnWriteConcurrent(t *testing.T) {
	m := startMowServer(t)
	m.exec(`CREATE TABLE c (id BIGINT, w INT, n INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')`)
	const writers, stmts, keys = 4, 12, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < stmts; i++ {
				var vals []string
				for j := 0; j < 5; j++ {
					vals = append(vals, fmt.Sprintf("(%d, %d, %d)", rnd.Intn(keys), w, i))
				}
				if _, err := m.db.Exec("INSERT INTO c VALUES " + strings.Join(vals, ", ")); err != nil && mysqlErrNo(err) != 1213 {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows := m.rows("SELECT id FROM c ORDER BY id")
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r] {
			t.Fatalf("key %s read twice: %q", r, rows)
		}
		seen[r] = true
	}
	m.want("SELECT count(*) FROM `c$files` WHERE level = 0", "0")
	ctx := context.Background()
	var n int
	if err := m.db.QueryRowContext(ctx, "SELECT count(*) FROM c").Scan(&n); err != nil || n != len(rows) {
		t.Fatalf("count(*) %d, %v; rows %d", n, err, len(rows))
	}
}

// TestServerMergeOnWriteOverwriteAndWriteOnly: INSERT OVERWRITE of a
// merge-on-write table drops the partition's files and deletion vectors
// and compacts the new rows up; a write-only merge-on-write table keeps
// its level-0 files invisible, as in Paimon, until CALL sys.compact.
func TestServerMergeOnWriteOverwriteAndWriteOnly(t *testing.T) {
	m := startMowServer(t)
	m.exec(`CREATE TABLE o (id BIGINT, p INT, s STRING, PRIMARY KEY (id, p) NOT ENFORCED) PARTITIONED BY (p)
		WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')`)
	m.exec("INSERT INTO o VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c')", "UPDATE o SET s = 'B' WHERE id = 2")
	m.exec("INSERT OVERWRITE o PARTITION (p = 1) SELECT id + 10, s FROM o WHERE p = 1")
	m.want("SELECT * FROM o ORDER BY id", "3|2|c", "11|1|a", "12|1|B")
	m.want("SELECT count(*) FROM `o$files` WHERE level = 0", "0")
	m.exec("INSERT INTO o VALUES (11, 1, 'x')", "DELETE FROM o WHERE id = 3")
	m.want("SELECT * FROM o ORDER BY id", "11|1|x", "12|1|B")

	m.exec(`CREATE TABLE w (id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED)
		WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true', 'write-only' = 'true')`)
	m.exec("INSERT INTO w VALUES (1, 'a'), (2, 'b')")
	m.want("SELECT count(*) FROM w", "0")
	m.want("SELECT commit_kind FROM `w$snapshots`", "APPEND")
	m.exec("CALL sys.compact(table => 'mow.w')")
	m.want("SELECT * FROM w ORDER BY id", "1|a", "2|b")
}
