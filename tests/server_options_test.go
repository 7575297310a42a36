package tests

import (
	"testing"
)

// TestServerOptionsCheckedWhenSet: a table option whose value Paimon does
// not allow is refused by CREATE TABLE and by ALTER TABLE … SET with MySQL
// error 1231 (ER_WRONG_VALUE_FOR_VAR) naming the option and what is allowed;
// nothing is created or changed. Unknown keys stay accepted.
func TestServerOptionsCheckedWhenSet(t *testing.T) {
	s := startDDLServer(t)
	cases := []struct {
		opt  string
		want []string // in the message besides the key
	}{
		{"'file.format' = 'xyz'", []string{"parquet, orc, avro"}},
		{"'file.compression' = 'nosuch'", []string{"zstd", "snappy"}},
		{"'manifest.format' = 'csv'", []string{"avro"}},
		{"'manifest.compression' = 'xz'", []string{"deflate"}},
		{"'fields.nosuch.sequence-group' = 'v'", []string{"nosuch", "not a column"}},
		{"'fields.ts.sequence-group' = 'v,nosuch'", []string{"nosuch", "not a column"}},
		{"'fields.v.aggregate-function' = 'nosuchfn'", []string{"sum", "last_non_null_value"}},
		{"'fields.nosuch.aggregate-function' = 'sum'", []string{"not a column"}},
		{"'fields.default-aggregate-function' = 'avg'", []string{"sum"}},
		{"'snapshot.num-retained.max' = '-1'", []string{"from 1"}},
		{"'snapshot.num-retained.min' = '0'", []string{"from 1"}},
		{"'snapshot.num-retained.min' = '20', 'snapshot.num-retained.max' = '5'", []string{"not be less than"}},
		{"'commit.max-retries' = '-5'", []string{"from 0"}},
		{"'commit.max-retries' = 'many'", []string{"not a 32-bit integer"}},
		{"'num-sorted-run.compaction-trigger' = '0'", []string{"from 1"}},
		{"'target-file-size' = '0 mb'", []string{"at least 1"}},
		{"'write-buffer-size' = 'lots'", []string{"write-buffer-size"}},
		{"'snapshot.time-retained' = 'forever'", []string{"snapshot.time-retained"}},
		{"'merge-engine' = 'nosuch'", []string{"deduplicate"}},
		{"'changelog-producer' = 'nosuch'", []string{"lookup"}},
		{"'deletion-vectors.enabled' = 'yes'", []string{"true or false"}},
		{"'metadata.stats-mode' = 'truncate(0)'", []string{"truncate(N)"}},
		{"'fields.v.stats-mode' = 'some'", []string{"truncate(N)"}},
		{"'file.compression.zstd-level' = '99'", []string{"1 to 22"}},
		{"'dynamic-bucket.target-row-num' = '0'", []string{"at least 1"}},
	}
	s.exec(t, "CREATE TABLE base (id BIGINT, ts BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'partial-update')")
	for _, c := range cases {
		key := c.opt[1:]
		key = key[:indexByte(key, '\'')]
		s.fails(t, "CREATE TABLE bad (id BIGINT, ts BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ("+c.opt+")", 1231, append([]string{key}, c.want...)...)
		if key != "merge-engine" && key != "changelog-producer" { // immutable after creation: a different error
			s.fails(t, "ALTER TABLE base SET ("+c.opt+")", 1231, append([]string{key}, c.want...)...)
		}
	}
	if got := queryStrings(t, s.conn, "SHOW TABLES"); len(got) != 1 || got[0][0] != "base" {
		t.Fatalf("SHOW TABLES after the refused CREATEs = %q", got)
	}
	if n := len(s.schemas(t, "ddl", "base")); n != 1 {
		t.Fatalf("the refused ALTERs wrote schemas: %d schema files", n)
	}
	// Good values, unknown keys and Java spellings are accepted.
	s.exec(t,
		"CREATE TABLE good (id BIGINT, ts BIGINT, v BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("+
			"'file.format' = 'PARQUET', 'file.compression' = 'snappy', 'fields.ts.sequence-group' = 'v', "+
			"'merge-engine' = 'partial-update', 'fields.v.aggregate-function' = 'sum', 'snapshot.num-retained.max' = '15', "+
			"'commit.max-retries' = '0', 'target-file-size' = '64 mb', 'my.own.key' = 'anything', 'fields.s.stats-mode' = 'truncate(8)')",
		"ALTER TABLE good SET ('snapshot.num-retained.min' = '2', 'another.unknown' = 'x')",
		"INSERT INTO good VALUES (1, 1, 10, 'a')",
	)
	if got := queryStrings(t, s.conn, "SELECT id, v, s FROM good"); len(got) != 1 || got[0][1] != "10" {
		t.Fatalf("SELECT FROM good = %q", got)
	}
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return len(s)
}

// TestServerCreateIndex: CREATE INDEX adds the columns to Paimon's
// bloom-filter file index option; UNIQUE/FULLTEXT indexes and unknown
// columns are refused before anything changes.
func TestServerCreateIndex(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, a INT, b STRING)",
		"CREATE INDEX ia ON t (a)", "CREATE INDEX iab ON t (a, b(10))", "ALTER TABLE t ADD INDEX ib (b(4))")
	if got := s.latest(t, "ddl", "t").Options["file-index.bloom-filter.columns"]; got != "a,b" {
		t.Errorf("file-index.bloom-filter.columns = %q", got)
	}
	n := len(s.schemas(t, "ddl", "t"))
	s.fails(t, "CREATE UNIQUE INDEX u ON t (a)", 1235, "primary key")
	s.fails(t, "CREATE FULLTEXT INDEX f ON t (b)", 0)
	s.fails(t, "CREATE INDEX n ON t (nosuch)", 0, "nosuch")
	if got := len(s.schemas(t, "ddl", "t")); got != n {
		t.Errorf("refused CREATE INDEX wrote %d schemas", got-n)
	}
	s.exec(t, "INSERT INTO t VALUES (1, 2, 'x')")
	if got := queryStrings(t, s.conn, "SELECT a, b FROM t WHERE a = 2"); len(got) != 1 || got[0][1] != "x" {
		t.Errorf("SELECT = %q", got)
	}
}
