package tests

import (
	"strconv"
	"testing"
)

// TestServerMergeRowCount: ROW_COUNT() after MERGE INTO and INSERT
// OVERWRITE is the statement's affected rows (the write front answered the
// client without setting the session's row count, so it stayed -1 from the
// MERGE's own internal SELECTs), and -1 after one that failed.
func TestServerMergeRowCount(t *testing.T) {
	s := startMergeServer(t)
	mergeBase(t, s)
	rowCount := func() string {
		t.Helper()
		return queryStrings(t, s.conn, "SELECT ROW_COUNT()")[0][0]
	}
	n := s.affected(t, `MERGE INTO tgt AS t USING src AS s ON t.id = s.id
		WHEN MATCHED AND s.op = 'D' THEN DELETE
		WHEN MATCHED AND s.v > t.v THEN UPDATE SET v = s.v, t.name = CONCAT(t.name, s.name)
		WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT (id, v, name) VALUES (s.id, COALESCE(s.v, -1), LOWER(s.name))`)
	if n != 5 {
		t.Fatalf("MERGE affected %d rows, want 5", n)
	}
	if got := rowCount(); got != "5" {
		t.Errorf("ROW_COUNT() after MERGE = %s, want 5", got)
	}
	// A MERGE that changes nothing.
	s.affected(t, "MERGE INTO tgt AS t USING src AS s ON t.id = s.id AND 1 = 0 WHEN MATCHED THEN DELETE")
	if got := rowCount(); got != "0" {
		t.Errorf("ROW_COUNT() after a MERGE of no rows = %s, want 0", got)
	}
	n = s.affected(t, "INSERT OVERWRITE ref SELECT * FROM tgt")
	if got := rowCount(); got != strconv.FormatInt(n, 10) {
		t.Errorf("ROW_COUNT() after INSERT OVERWRITE = %s, want %d", got, n)
	}
	s.fails(t, "MERGE INTO nosuch AS t USING src AS s ON t.id = s.id WHEN MATCHED THEN DELETE", 0, "nosuch")
	if got := rowCount(); got != "-1" {
		t.Errorf("ROW_COUNT() after a failed MERGE = %s, want -1", got)
	}
}
