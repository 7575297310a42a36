package builtins_test

import "testing"

func TestDebugPlan(t *testing.T) {
	h := newHarness(t)
	for _, q := range []string{
		"INSERT INTO t (id, d) VALUES (10, 123456789012.5)",
		"SELECT d FROM t WHERE id = 10",
		"INSERT IGNORE INTO t (id, d) SELECT 11, d * 10000000 FROM t WHERE id = 3",
		"SELECT d FROM t WHERE id = 11",
		"INSERT INTO t (id, d) SELECT 12, d * 10000000 FROM t WHERE id = 3",
		"SELECT d FROM t WHERE id = 12",
		"CREATE TABLE k (id BIGINT PRIMARY KEY, c INT)",
		"INSERT INTO k SELECT id, g FROM t ON DUPLICATE KEY UPDATE c = VALUES(c)",
		"INSERT INTO k SELECT id, g + 10 FROM t ON DUPLICATE KEY UPDATE c = VALUES(c)",
		"SELECT * FROM k",
		"SELECT t.id FROM t JOIN u ON t.g = u.k WHERE t.i NOT IN (SELECT k FROM u) AND u.id NOT IN (SELECT id FROM t)",
		"SELECT DATE '2020-01-01' = 20200101",
	} {
		got, err := h.run(q)
		t.Log(q, " => ", got, err)
	}
}
