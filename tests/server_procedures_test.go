package tests

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// CALL sys.* through the MySQL protocol, on a writable server over an empty
// warehouse (database mw, see startMergeServer).

// call runs a procedure and returns its column names and rows as text.
func (s *mergeServer) call(t *testing.T, q string) ([]string, [][]string) {
	t.Helper()
	cols, rows, err := queryRows(context.Background(), s.conn, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out [][]string
	for _, r := range rows {
		var line []string
		for _, v := range r {
			line = append(line, textOf(v))
		}
		out = append(out, line)
	}
	return cols, out
}

func TestServerCallTags(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)", "INSERT INTO t VALUES (3, 30)")

	cols, rows := s.call(t, "CALL sys.create_tag('t', 'v1', 1)")
	if strings.Join(cols, ",") != "tag,snapshot_id,time_retained" || len(rows) != 1 || strings.Join(rows[0], ",") != "v1,1,NULL" {
		t.Fatalf("create_tag: %v %v", cols, rows)
	}
	s.call(t, "CALL paimon.sys.create_tag(`table` => 'mw.t', tag => 'latest', time_retained => '1 d')")
	mergeSameRows(t, "$tags", s.rows(t, "SELECT tag_name, snapshot_id, time_retained FROM `t$tags`"),
		[]string{"latest|3|PT24H", "v1|1|NULL"})
	mergeSameRows(t, "AS OF 'v1'", s.rows(t, "SELECT * FROM t AS OF 'v1'"), []string{"1|10"})
	mergeSameRows(t, "AS OF 'latest'", s.rows(t, "SELECT * FROM t AS OF 'latest'"), []string{"1|10", "2|20", "3|30"})

	s.fails(t, "CALL sys.create_tag('t', 'v1', 2)", 1210, "already exists")
	s.fails(t, "CALL sys.create_tag('t', 'v9', 99)", 1210, "snapshot 99")

	_, rows = s.call(t, "CALL sys.rename_tag(table => 't', tagName => 'v1', targetTagName => 'first')")
	if strings.Join(rows[0], ",") != "v1,first" {
		t.Errorf("rename_tag: %v", rows)
	}
	s.fails(t, "CALL sys.rename_tag('t', 'v1', 'x')", 1210, "tag \"v1\"")
	s.fails(t, "CALL sys.rename_tag('t', 'first', 'latest')", 1210, "already exists")
	mergeSameRows(t, "AS OF 'first'", s.rows(t, "SELECT * FROM t AS OF 'first'"), []string{"1|10"})

	_, rows = s.call(t, "CALL sys.delete_tag('t', 'first, nope')")
	if len(rows) != 2 || rows[0][0] != "first" || rows[0][1] != "deleted" || rows[1][0] != "nope" || rows[1][1] != "not found" {
		t.Errorf("delete_tag: %v", rows)
	}
	mergeSameRows(t, "$tags after delete", s.rows(t, "SELECT tag_name FROM `t$tags`"), []string{"latest"})
}

func TestServerCallErrors(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)")
	for _, c := range []struct {
		q    string
		code uint16
		want string
	}{
		{"CALL sys.no_such_proc('t')", 1305, "PROCEDURE sys.no_such_proc does not exist"},
		{"CALL sys.create_tag('t')", 1318, "needs tag"},
		{"CALL sys.create_tag('t', 'a', 1, '1 d', 'x')", 1318, "at most 4"},
		{"CALL sys.create_tag(table => 't', tagg => 'a')", 1210, "no argument 'tagg'"},
		{"CALL sys.create_tag(tag => 'a', 't')", 1210, "follows a named"},
		{"CALL sys.create_tag('t', 'a', 'x')", 1231, "'snapshot'"},
		{"CALL sys.create_tag('t', 'a', time_retained => 'forever')", 1231, "time_retained"},
		{"CALL sys.expire_snapshots('t', retain_min => 0)", 1231, "retain_min"},
		{"CALL sys.expire_snapshots('t', older_than => 'yesterday')", 1231, "older_than"},
		{"CALL sys.create_tag('nope', 'a')", 1146, "nope"},
		{"CALL sys.create_tag('nodb.t', 'a')", 1049, "nodb"},
		{"CALL sys.create_tag('t$snapshots', 'a')", 1231, "not a table"},
		{"CALL sys.create_tag('t', '')", 1210, "blank"},
		{"CALL sys.create_tag('t', 'a/b')", 1210, "path separator"},
		{"CALL sys.create_tag('t' 'a')", 1064, "expected , or )"},
		{"CALL sys.create_tag(t, 'a')", 1064, "literal"},
	} {
		s.fails(t, c.q, c.code, c.want)
	}
	// The connection survives every error, and nothing was created.
	mergeSameRows(t, "tags", s.rows(t, "SELECT tag_name FROM `t$tags`"), nil)
	mergeSameRows(t, "rows", s.rows(t, "SELECT * FROM t"), []string{"1|10"})

	// No database selected.
	s.exec(t, "CREATE DATABASE other")
	if _, err := s.conn.ExecContext(context.Background(), "USE other"); err != nil {
		t.Fatal(err)
	}
	s.fails(t, "CALL sys.create_tag('t', 'a')", 1146, "t")
	s.exec(t, "USE mw")

	// READ ONLY transactions refuse procedures (1792), and write nothing.
	s.exec(t, "START TRANSACTION READ ONLY")
	s.fails(t, "CALL sys.create_tag('t', 'a')", 1792, "READ ONLY")
	s.exec(t, "ROLLBACK")
	mergeSameRows(t, "tags", s.rows(t, "SELECT tag_name FROM `t$tags`"), nil)

	// A CALL commits an open transaction first, as DDL does.
	s.exec(t, "BEGIN", "INSERT INTO t VALUES (2, 20)")
	s.call(t, "CALL sys.create_tag('t', 'after_tx')")
	mergeSameRows(t, "AS OF 'after_tx'", s.rows(t, "SELECT * FROM t AS OF 'after_tx'"), []string{"1|10", "2|20"})
}

func TestServerCallExpireAndRollback(t *testing.T) {
	s := startMergeServer(t)
	// No automatic compaction: the test counts snapshots.
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT) WITH ('bucket' = '1', 'num-sorted-run.compaction-trigger' = '100')")
	for i := 1; i <= 6; i++ {
		s.exec(t, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i%3, i))
	}
	s.call(t, "CALL sys.create_tag('t', 'at2', 2)")
	// Keep 3: snapshots 1..3 expire (the time retention is ignored with
	// older_than in the future).
	cols, rows := s.call(t, "CALL sys.expire_snapshots(table => 't', retain_max => 3, retain_min => 1, older_than => '2999-01-01 00:00:00')")
	if cols[0] != "deleted_snapshots_count" || rows[0][0] != "3" || rows[0][5] != "4" {
		t.Fatalf("expire_snapshots: %v %v", cols, rows)
	}
	mergeSameRows(t, "$snapshots", s.rows(t, "SELECT snapshot_id FROM `t$snapshots`"), []string{"4", "5", "6"})
	// The tag keeps its snapshot's files.
	mergeSameRows(t, "AS OF 'at2'", s.rows(t, "SELECT * FROM t AS OF 'at2'"), []string{"1|1", "2|2"})
	mergeSameRows(t, "latest", s.rows(t, "SELECT * FROM t"), []string{"0|6", "1|4", "2|5"})
	s.fails(t, "SELECT * FROM t AS OF 1", 0, "snapshot 1")

	// Roll back to snapshot 5, then to the tag (snapshot 2, expired: its
	// JSON becomes the only snapshot).
	cols, rows = s.call(t, "CALL sys.rollback_to(table => 't', snapshot_id => 5)")
	if strings.Join(rows[0], ",") != "6,5,1,0" {
		t.Fatalf("rollback_to snapshot: %v %v", cols, rows)
	}
	mergeSameRows(t, "after rollback to 5", s.rows(t, "SELECT * FROM t"), []string{"0|3", "1|4", "2|5"})
	s.exec(t, "INSERT INTO t VALUES (9, 9)") // snapshot 6 again
	mergeSameRows(t, "$snapshots", s.rows(t, "SELECT snapshot_id FROM `t$snapshots`"), []string{"4", "5", "6"})
	_, rows = s.call(t, "CALL sys.rollback('t', 'at2')")
	if strings.Join(rows[0], ",") != "6,2,3,0" {
		t.Fatalf("rollback to tag: %v", rows)
	}
	mergeSameRows(t, "after rollback to at2", s.rows(t, "SELECT * FROM t"), []string{"1|1", "2|2"})
	mergeSameRows(t, "$snapshots", s.rows(t, "SELECT snapshot_id FROM `t$snapshots`"), []string{"2"})
	s.exec(t, "INSERT INTO t VALUES (3, 33)")
	mergeSameRows(t, "a commit after the rollback", s.rows(t, "SELECT * FROM t"), []string{"1|1", "2|2", "3|33"})

	// The rolled-back snapshots left files nothing references:
	// remove_orphan_files finds them (older_than now is rejected).
	s.fails(t, "CALL sys.remove_orphan_files('t', '2999-01-01 00:00:00')", 1231, "must lie in the past")
	_, rows = s.call(t, "CALL sys.remove_orphan_files(table => 't', dry_run => true)")
	if rows[0][0] != "0" {
		t.Errorf("files younger than a day are never orphans: %v", rows)
	}
	// With older_than just past, the orphans go; every read still works.
	time.Sleep(1100 * time.Millisecond)
	now := time.Now().UTC().Format("2006-01-02 15:04:05")
	_, rows = s.call(t, "CALL sys.remove_orphan_files('t', '"+now+"')")
	if rows[0][0] == "0" || rows[0][1] == "0" {
		t.Errorf("remove_orphan_files after rollbacks deleted nothing: %v", rows)
	}
	_, rows = s.call(t, "CALL sys.remove_orphan_files('t', '"+now+"')")
	if rows[0][0] != "0" {
		t.Errorf("a second remove_orphan_files deleted %v", rows)
	}
	mergeSameRows(t, "after orphan cleaning", s.rows(t, "SELECT * FROM t"), []string{"1|1", "2|2", "3|33"})
	mergeSameRows(t, "tag after orphan cleaning", s.rows(t, "SELECT * FROM t AS OF 'at2'"), []string{"1|1", "2|2"})

	s.fails(t, "CALL sys.rollback_to('t')", 1318, "either a tag or a snapshot")
	s.fails(t, "CALL sys.rollback_to('t', 'nope')", 1210, "tag \"nope\"")
	s.fails(t, "CALL sys.rollback_to(table => 't', snapshot_id => 99)", 1210, "99")
	s.fails(t, "CALL sys.rollback('t', '2', snapshot => 2)", 1210, "one of version")
}

func TestServerCallBranches(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)")
	s.call(t, "CALL sys.create_tag('t', 'base', 1)")
	_, rows := s.call(t, "CALL sys.create_branch('t', 'dev', 'base')")
	if strings.Join(rows[0], ",") != "dev,base" {
		t.Fatalf("create_branch: %v", rows)
	}
	s.call(t, "CALL sys.create_branch(table => 't', branch => 'empty')")
	mergeSameRows(t, "$branches", s.rows(t, "SELECT branch_name FROM `t$branches`"), []string{"dev", "empty"})
	mergeSameRows(t, "branch dev", s.rows(t, "SELECT * FROM `t$branch_dev`"), []string{"1|10"})
	s.exec(t, "INSERT INTO `t$branch_dev` VALUES (3, 30)")
	mergeSameRows(t, "branch dev written", s.rows(t, "SELECT * FROM `t$branch_dev`"), []string{"1|10", "3|30"})
	mergeSameRows(t, "main unchanged", s.rows(t, "SELECT * FROM t"), []string{"1|10", "2|20"})
	// Tags on a branch.
	s.call(t, "CALL sys.create_tag('t$branch_dev', 'dev1')")
	mergeSameRows(t, "branch tags", s.rows(t, "SELECT tag_name, snapshot_id FROM `t$branch_dev$tags`"), []string{"base|1", "dev1|2"})

	s.fails(t, "CALL sys.create_branch('t', 'dev')", 1210, "already exists")
	s.fails(t, "CALL sys.create_branch('t', 'main')", 1210, "default branch")
	s.fails(t, "CALL sys.create_branch('t', '123')", 1210, "numeric")
	s.fails(t, "CALL sys.create_branch('t', 'x', 'nope')", 1210, "tag \"nope\"")
	s.fails(t, "CALL sys.fast_forward('t', 'empty')", 1210, "no snapshot")
	s.fails(t, "CALL sys.fast_forward('t', 'nope')", 1210, "nope")

	// Fast-forward main to dev: main now reads what dev reads.
	_, rows = s.call(t, "CALL sys.fast_forward('t', 'dev')")
	if strings.Join(rows[0], ",") != "dev,2,2" {
		t.Errorf("fast_forward: %v", rows)
	}
	mergeSameRows(t, "main after fast-forward", s.rows(t, "SELECT * FROM t"), []string{"1|10", "3|30"})
	s.exec(t, "INSERT INTO t VALUES (4, 40)")
	mergeSameRows(t, "main written after fast-forward", s.rows(t, "SELECT * FROM t"), []string{"1|10", "3|30", "4|40"})

	s.call(t, "CALL sys.delete_branch('t', 'dev,empty')")
	mergeSameRows(t, "$branches", s.rows(t, "SELECT branch_name FROM `t$branches`"), nil)
	s.fails(t, "SELECT * FROM `t$branch_dev`", 0, "dev")
	s.fails(t, "CALL sys.delete_branch('t', 'dev')", 1210, "dev")
	s.fails(t, "CALL sys.delete_branch('t$branch_x', 'dev')", 1231, "not on a branch")
}

func TestServerCallExpirePartitions(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE p (id BIGINT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '1')",
		"INSERT INTO p VALUES (1, '2020-01-01'), (2, '2020-01-02'), (3, '2999-01-01'), (4, 'not-a-date')",
		"CREATE TABLE h (id BIGINT, d STRING, hr STRING) PARTITIONED BY (d, hr)",
		"INSERT INTO h VALUES (1, '20200101', '01'), (2, '29990101', '02')")
	cols, rows := s.call(t, "CALL sys.expire_partitions(table => 'p', expiration_time => '1 d', max_expires => 1)")
	if cols[0] != "expired_partitions" || len(rows) != 1 || rows[0][0] != "dt=2020-01-01" {
		t.Fatalf("expire_partitions: %v %v", cols, rows)
	}
	mergeSameRows(t, "after one", s.rows(t, "SELECT * FROM p"), []string{"2|2020-01-02", "3|2999-01-01", "4|not-a-date"})
	_, rows = s.call(t, "CALL sys.expire_partitions('p', '1 d')")
	if len(rows) != 1 || rows[0][0] != "dt=2020-01-02" {
		t.Fatalf("expire_partitions again: %v", rows)
	}
	_, rows = s.call(t, "CALL sys.expire_partitions('p', '1 d')")
	if rows[0][0] != "No expired partitions." {
		t.Errorf("nothing left to expire: %v", rows)
	}
	mergeSameRows(t, "kinds", s.snapshots(t, "p"), []string{"1|APPEND", "2|OVERWRITE", "3|OVERWRITE"})
	// A formatter and a pattern over two partition keys.
	_, rows = s.call(t, "CALL sys.expire_partitions(table => 'h', expiration_time => '1 d', timestamp_formatter => 'yyyyMMdd HH', timestamp_pattern => '$d $hr')")
	if len(rows) != 1 || rows[0][0] != "d=20200101, hr=01" {
		t.Fatalf("expire_partitions with a pattern: %v", rows)
	}
	mergeSameRows(t, "h", s.rows(t, "SELECT * FROM h"), []string{"2|29990101|02"})
	s.fails(t, "CALL sys.expire_partitions('p')", 1210, "expiration time")
	s.fails(t, "CALL sys.expire_partitions('p', 'soon')", 1231, "expiration_time")
	s.fails(t, "CALL sys.expire_partitions('p', '1 d', expire_strategy => 'random')", 1231, "expire_strategy")
	s.fails(t, "CALL sys.expire_partitions('h', '1 d', timestamp_formatter => 'yyyy EEE')", 1210, "not supported")
	s.exec(t, "CREATE TABLE u (id BIGINT PRIMARY KEY)")
	s.fails(t, "CALL sys.expire_partitions('u', '1 d')", 1210, "not partitioned")
}

func TestServerMaintenanceAfterCommit(t *testing.T) {
	s := startMergeServer(t)
	// Snapshot expiration after each commit: at most 3 are kept, even
	// within snapshot.time-retained (1 h); a tag keeps its snapshot readable.
	s.exec(t, "CREATE TABLE e (id BIGINT PRIMARY KEY, v INT) WITH ('bucket' = '1', 'num-sorted-run.compaction-trigger' = '100', 'snapshot.num-retained.min' = '1', "+
		"'snapshot.num-retained.max' = '3')",
		"INSERT INTO e VALUES (1, 1)")
	s.call(t, "CALL sys.create_tag('e', 'first')")
	for i := 2; i <= 6; i++ {
		time.Sleep(2 * time.Millisecond)
		s.exec(t, fmt.Sprintf("INSERT INTO e VALUES (%d, %d)", i, i))
	}
	mergeSameRows(t, "retained snapshots", s.rows(t, "SELECT snapshot_id FROM `e$snapshots`"), []string{"4", "5", "6"})
	mergeSameRows(t, "AS OF the tag", s.rows(t, "SELECT * FROM e AS OF 'first'"), []string{"1|1"})
	mergeSameRows(t, "latest", s.rows(t, "SELECT count(*) FROM e"), []string{"6"})
	// Older than snapshot.time-retained: down to snapshot.num-retained.min.
	s.exec(t, "ALTER TABLE e SET ('snapshot.time-retained' = '1 ms')")
	time.Sleep(2 * time.Millisecond)
	s.exec(t, "INSERT INTO e VALUES (7, 7)")
	mergeSameRows(t, "time retention", s.rows(t, "SELECT snapshot_id FROM `e$snapshots`"), []string{"7"})
	mergeSameRows(t, "AS OF the tag still", s.rows(t, "SELECT * FROM e AS OF 'first'"), []string{"1|1"})

	// write-only tables are not maintained.
	s.exec(t, "CREATE TABLE w (id BIGINT PRIMARY KEY) WITH ('bucket' = '1', 'write-only' = 'true', 'snapshot.num-retained.min' = '1', "+
		"'snapshot.num-retained.max' = '1', 'snapshot.time-retained' = '1 ms')")
	for i := 1; i <= 3; i++ {
		time.Sleep(2 * time.Millisecond)
		s.exec(t, fmt.Sprintf("INSERT INTO w VALUES (%d)", i))
	}
	mergeSameRows(t, "write-only keeps everything", s.rows(t, "SELECT snapshot_id FROM `w$snapshots`"), []string{"1", "2", "3"})

	// Partition expiration after commits (checked at every commit here).
	s.exec(t, "CREATE TABLE p (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('partition.expiration-time' = '7 d', "+
		"'partition.expiration-check-interval' = '0 s')",
		"INSERT INTO p VALUES (1, '2020-01-01'), (2, '2999-12-31')")
	mergeSameRows(t, "expired partition dropped", s.rows(t, "SELECT * FROM p"), []string{"2|2999-12-31"})
	mergeSameRows(t, "kinds", s.snapshots(t, "p"), []string{"1|APPEND", "2|OVERWRITE"})

	// Automatic daily tags: the first snapshot is tagged with the day
	// before it (Java's TagAutoCreation), tag.num-retained-max applies.
	before := time.Now().AddDate(0, 0, -1).Format("2006-01-02")
	s.exec(t, "CREATE TABLE a (id BIGINT PRIMARY KEY) WITH ('tag.automatic-creation' = 'process-time', 'tag.creation-period' = 'daily')",
		"INSERT INTO a VALUES (1)")
	yesterday := time.Now().AddDate(0, 0, -1).Format("2006-01-02")
	if got := s.rows(t, "SELECT tag_name, snapshot_id FROM `a$tags`"); len(got) != 1 || got[0] != yesterday+"|1" && got[0] != before+"|1" {
		t.Fatalf("auto tag: %v, want %s|1", got, yesterday)
	}
	yesterday = strings.Split(s.rows(t, "SELECT tag_name FROM `a$tags`")[0], "|")[0]

	// A tag past its retention goes at the next commit.
	s.call(t, "CALL sys.create_tag('a', 'short', time_retained => '1 ms')")
	time.Sleep(5 * time.Millisecond)
	s.exec(t, "INSERT INTO a VALUES (2)")
	mergeSameRows(t, "retention", s.rows(t, "SELECT tag_name FROM `a$tags`"), []string{yesterday})

	// Options are checked when set.
	s.fails(t, "ALTER TABLE a SET ('tag.num-retained-max' = '0')", 1231, "tag.num-retained-max")
	s.fails(t, "ALTER TABLE a SET ('partition.expiration-time' = 'soon')", 1231, "partition.expiration-time")
	s.fails(t, "ALTER TABLE a SET ('tag.automatic-creation' = 'hourly')", 1231, "tag.automatic-creation")
}

func TestServerCallRescale(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE r (id BIGINT, dt STRING, v INT, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')")
	var want []string
	for i := 0; i < 40; i++ {
		dt := []string{"a", "b"}[i%2]
		s.exec(t, fmt.Sprintf("INSERT INTO r VALUES (%d, '%s', %d)", i, dt, i))
		want = append(want, fmt.Sprintf("%d|%s|%d", i, dt, i))
	}
	s.exec(t, "UPDATE r SET v = v + 100 WHERE id < 4")
	for i := 0; i < 4; i++ {
		want[i] = fmt.Sprintf("%d|%s|%d", i, []string{"a", "b"}[i%2], i+100)
	}
	s.fails(t, "ALTER TABLE r SET ('bucket' = '4')", 0, "CALL sys.rescale")

	cols, rows := s.call(t, "CALL sys.rescale(table => 'r', bucket_num => 4, partition => 'dt=a')")
	if strings.Join(cols, ",") != "previous_bucket_num,bucket_num,rewritten_partitions,rewritten_rows,snapshot_id" ||
		strings.Join(rows[0][:4], ",") != "2,4,1,20" {
		t.Fatalf("rescale: %v %v", cols, rows)
	}
	mergeSameRows(t, "rows after rescaling a", s.rows(t, "SELECT * FROM r"), want)
	mergeSameRows(t, "buckets of a", s.rows(t, "SELECT DISTINCT `partition`, bucket FROM `r$files` WHERE `partition` = '{a}'"),
		[]string{"{a}|0", "{a}|1", "{a}|2", "{a}|3"})
	mergeSameRows(t, "buckets of b", s.rows(t, "SELECT DISTINCT `partition`, bucket FROM `r$files` WHERE `partition` = '{b}'"),
		[]string{"{b}|0", "{b}|1"})
	// Writing into a rescaled partition uses the new count.
	s.exec(t, "INSERT INTO r VALUES (100, 'a', 1)")
	want = append(want, "100|a|1")
	// The rest of the table.
	_, rows = s.call(t, "CALL sys.rescale('r', 4)")
	if strings.Join(rows[0][:4], ",") != "4,4,2,41" {
		t.Fatalf("rescale all: %v", rows)
	}
	mergeSameRows(t, "rows after rescaling all", s.rows(t, "SELECT * FROM r"), want)
	mergeSameRows(t, "buckets", s.rows(t, "SELECT DISTINCT bucket FROM `r$files`"), []string{"0", "1", "2", "3"})
	s.exec(t, "INSERT INTO r VALUES (101, 'b', 1)")
	mergeSameRows(t, "bucket option", s.rows(t, "SELECT value FROM `r$options` WHERE `key` = 'bucket'"), []string{"4"})

	s.fails(t, "CALL sys.rescale('r', 0)", 1231, "bucket_num")
	s.fails(t, "CALL sys.rescale('r')", 1318, "bucket_num")
	s.fails(t, "CALL sys.rescale('r', 2, partition => 'hr=1')", 1231, "not a partition key")
	s.exec(t, "CREATE TABLE d (id BIGINT PRIMARY KEY)")
	s.fails(t, "CALL sys.rescale('d', 2)", 1210, "dynamic")
}

// TestServerCallPrepared: CALL sys.* prepared server-side (go-sql-driver
// without interpolateParams) binds `?` arguments; named arguments cannot
// be prepared (the protocol layer's parser lacks `=>`) and say so.
func TestServerCallPrepared(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)")
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/mw?interpolateParams=false", s.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("CALL sys.create_tag(?, ?, ?)", "t", "p1", 1)
	if err != nil {
		t.Fatal(err)
	}
	var tag string
	var id int64
	var kept sql.NullString
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	if err := rows.Scan(&tag, &id, &kept); err != nil || tag != "p1" || id != 1 || kept.Valid {
		t.Fatalf("prepared create_tag: %s %d %v, %v", tag, id, kept, err)
	}
	rows.Close()
	if _, err := db.Exec("CALL sys.create_tag(?, ?, NULL, ?)", "t", "p2", "1 d"); err != nil {
		t.Fatal(err)
	}
	mergeSameRows(t, "tags", s.rows(t, "SELECT tag_name, snapshot_id, time_retained FROM `t$tags`"), []string{"p1|1|NULL", "p2|2|PT24H"})
	_, err = db.Exec("CALL sys.create_tag(?, ?, ?)", "t", "p3", "x")
	if mysqlErrNo(err) != 1231 {
		t.Errorf("a bad bound value: %v, want 1231", err)
	}
	if _, err = db.Exec("CALL sys.create_tag(table => ?, tag => ?)", "t", "p4"); err == nil {
		t.Error("named arguments prepared server-side succeeded")
	}
}
