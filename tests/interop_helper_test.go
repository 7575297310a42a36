package tests

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// The interop tests drive the Java Paimon harness of tests/interop/java (a
// shaded jar of Paimon 1.3.1's paimon-bundle and Hadoop's client jars,
// built by .ci/run) against lakesql on one warehouse folder. Each JVM runs a
// script of many commands (a JVM start costs seconds on 2 cores) and prints
// JSON lines; a "read" line is Java's own ReadBuilder read of one snapshot
// (or tag) with the files it planned.

const harnessJar = "interop/java/target/paimon-harness.jar"

// javaRead is one "read" line of the harness.
type javaRead struct {
	Op          string      `json:"op"`
	Table       string      `json:"table"`
	Snapshot    int64       `json:"snapshot"`
	Tag         *string     `json:"tag"`
	SchemaID    int64       `json:"schemaId"`
	CommitKind  string      `json:"commitKind"`
	Columns     []string    `json:"columns"`
	Rows        [][]*string `json:"rows"`
	Files       []javaFile  `json:"files"`
	Error       string      `json:"error"`
	Command     string      `json:"command"`
	Config      string      `json:"config"`
	Seed        int64       `json:"seed"`
	Compactions int         `json:"compactions"`
	// From and To are the range of a "changes" line (incremental-between).
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

type javaFile struct {
	BucketPath string `json:"bucketPath"`
	Bucket     int32  `json:"bucket"`
	File       string `json:"file"`
	Level      int32  `json:"level"`
	MinSeq     int64  `json:"minSeq"`
	MaxSeq     int64  `json:"maxSeq"`
	RowCount   int64  `json:"rowCount"`
}

// requireHarness returns the Java harness jar and the java command,
// skipping (failing under LAKESQL_REQUIRE_TOOLS=1) when either is missing;
// tests that do work before their first runHarness call it first, so a
// missing harness skips at once.
func requireHarness(t *testing.T) (jar, java string) {
	t.Helper()
	jar = testutil.Built(t, harnessJar, "`mvn -q -B -DskipTests package` in tests/interop/java (.ci/run does it)")
	return jar, testutil.Command(t, "java")
}

// runHarness runs one JVM over the script lines and returns its output
// lines; a command that failed fails the test with Java's message.
func runHarness(t *testing.T, script []string) []javaRead {
	t.Helper()
	jar, java := requireHarness(t)
	cmd := exec.Command(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-jar", jar, "script", "-")
	cmd.Stdin = strings.NewReader(strings.Join(script, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("java harness: %d commands in %v", len(script), time.Since(start).Round(time.Millisecond))
	var out []javaRead
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	failed := false
	for sc.Scan() {
		var r javaRead
		if jerr := json.Unmarshal(sc.Bytes(), &r); jerr != nil {
			t.Fatalf("java harness printed %q: %v", sc.Text(), jerr)
		}
		if r.Op == "error" {
			t.Errorf("java harness: %s: %s", r.Command, r.Error)
			failed = true
		}
		out = append(out, r)
	}
	if err != nil || failed {
		tail := stderr.String()
		if len(tail) > 4000 {
			tail = tail[len(tail)-4000:]
		}
		t.Fatalf("java harness: %v\n%s", err, tail)
	}
	return out
}

// reads returns the read lines of table (every table when table is "").
func reads(lines []javaRead, table string) []javaRead {
	var out []javaRead
	for _, l := range lines {
		if l.Op == "read" && (table == "" || l.Table == table) {
			out = append(out, l)
		}
	}
	return out
}

var tsText = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+$`)

// canon is the comparable text of a value: numbers by value (MySQL prints
// 1.50 and 3 where Java prints 1.5 and 3.0), timestamps without trailing
// zeros of the fraction, NULL as "NULL".
func ioCanon(s *string) string {
	if s == nil {
		return "NULL"
	}
	v := *s
	if tsText.MatchString(v) {
		v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
		return v
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXnN") {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return v
}

// javaRows is the sorted canonical text of a Java read (the row kind first
// when withKind).
func javaRows(r javaRead, withKind bool) []string {
	out := make([]string, 0, len(r.Rows))
	for _, row := range r.Rows {
		vals := make([]string, 0, len(row))
		for i, v := range row {
			if i == 0 && !withKind {
				continue
			}
			vals = append(vals, ioCanon(v))
		}
		out = append(out, strings.Join(vals, "|"))
	}
	slices.Sort(out)
	return out
}

// sqlRead reads columns of db.table at the snapshot (or tag) of r through
// the MySQL protocol.
func sqlRead(ctx context.Context, db *sql.DB, dbName, table string, cols []string, r javaRead) ([]string, error) {
	asOf := strconv.FormatInt(r.Snapshot, 10)
	if r.Tag != nil {
		asOf = "'" + *r.Tag + "'"
	}
	return sqlReadText(ctx, db, dbName, table, cols, "AS OF "+asOf)
}

// compareChanges checks every Java "changes" line of one table (Java's
// $audit_log read with incremental-between from,to) against lakesql's
// `t$audit_log` FOR VERSION BETWEEN from AND to through the MySQL protocol.
func compareChanges(t *testing.T, db *sql.DB, rs []javaRead, st *interopStats) {
	t.Helper()
	ctx := context.Background()
	for _, r := range rs {
		if r.Op != "changes" {
			continue
		}
		dbName, table, _ := strings.Cut(r.Table, ".")
		st.ranges++
		got, err := sqlReadText(ctx, db, dbName, table+"$audit_log", r.Columns, fmt.Sprintf("FOR VERSION BETWEEN %d AND %d", r.From, r.To))
		if err != nil {
			t.Errorf("%s $audit_log (%d, %d]: lakesql: %v", r.Table, r.From, r.To, err)
			st.mismatches++
			continue
		}
		st.changes += len(got)
		if d := ioDiffRows(javaRows(r, true), got); d != "" {
			t.Errorf("%s $audit_log FOR VERSION BETWEEN %d AND %d differs from Java's incremental-between read:\n%s", r.Table, r.From, r.To, d)
			st.mismatches++
		}
	}
}

// sqlReadText reads columns of db.table with a time-travel clause through
// the MySQL protocol, as sorted canonical rows.
func sqlReadText(ctx context.Context, db *sql.DB, dbName, table string, cols []string, clause string) ([]string, error) {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s.%s %s", strings.Join(q, ", "),
		quoteIdent(dbName), quoteIdent(table), clause))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		texts := make([]string, len(cols))
		for i, v := range vals {
			if v == nil {
				texts[i] = ioCanon(nil)
			} else {
				s := string(v)
				texts[i] = ioCanon(&s)
			}
		}
		out = append(out, strings.Join(texts, "|"))
	}
	slices.Sort(out)
	return out, rows.Err()
}

// libRead reads the snapshot (or tag) of r on branch ("" is main) with
// lsmread and returns the canonical rows of cols and the plan.
func libRead(ctx context.Context, st storage.Storage, branch string, cols []string, r javaRead) ([]string, *lsmread.Plan, error) {
	spec := lsmread.ScanSpec{Projection: cols}
	if r.Tag != nil {
		spec.Tag = *r.Tag
	} else {
		spec.SnapshotID = snapshot.SnapshotID(r.Snapshot)
	}
	if branch == "" {
		branch = snapshot.MainBranch
	}
	plan, err := lsmread.OpenTable(st, branch).Plan(ctx, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("plan: %w", err)
	}
	rd, err := plan.NewReader()
	if err != nil {
		return nil, nil, err
	}
	var out []string
	for _, split := range plan.Splits {
		it, err := rd.Read(ctx, split)
		if err != nil {
			return nil, nil, fmt.Errorf("read %v: %w", split, err)
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return nil, nil, fmt.Errorf("read %v: %w", split, err)
			}
			texts := make([]string, len(row))
			for i, v := range row {
				texts[i] = goValueText(v)
			}
			out = append(out, strings.Join(texts, "|"))
		}
		if err := it.Close(); err != nil {
			return nil, nil, err
		}
	}
	slices.Sort(out)
	return out, plan, nil
}

// goValueText is canon of a value of lakesql's Go value model.
func goValueText(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		s = "0"
		if x {
			s = "1"
		}
	case schema.Date:
		s = time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case schema.Timestamp:
		s = x.ToTime().UTC().Format("2006-01-02 15:04:05.999999999")
	case schema.Decimal:
		s = x.String()
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	default:
		s = fmt.Sprint(x)
	}
	return ioCanon(&s)
}

// planFiles is the sorted text of the files a plan reads, in the form of
// javaFiles.
func planFiles(p *lsmread.Plan) []string {
	var out []string
	for _, s := range p.Splits {
		for _, f := range s.Files {
			out = append(out, fmt.Sprintf("%s %s L%d seq %d..%d rows %d", s.BucketPath(), f.FileName, f.Level,
				f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount))
		}
	}
	slices.Sort(out)
	return out
}

func javaFiles(r javaRead) []string {
	var out []string
	for _, f := range r.Files {
		bp := f.BucketPath
		if !strings.HasSuffix(bp, "/") {
			bp += "/"
		}
		out = append(out, fmt.Sprintf("%s %s L%d seq %d..%d rows %d", bp, f.File, f.Level, f.MinSeq, f.MaxSeq, f.RowCount))
	}
	slices.Sort(out)
	return out
}

// interopStats counts what a comparison covered.
type interopStats struct {
	tables, snapshots, mismatches int
	// ranges and changes count the $audit_log ranges compared and their rows.
	ranges, changes int
}

// compareReads checks every Java read of one table against lakesql's read of
// the same snapshot through SQL and through lsmread: the same rows, and the
// same planned files (bucket folder, file, level, sequence range).
func compareReads(t *testing.T, db *sql.DB, wh string, rs []javaRead, st *interopStats) {
	t.Helper()
	ctx := context.Background()
	if len(rs) == 0 {
		t.Errorf("no Java reads to compare")
		return
	}
	dbName, table, _ := strings.Cut(rs[0].Table, ".")
	base, branch, _ := strings.Cut(table, "$branch_") // a branch: db.t$branch_b
	store, err := storage.Open(ctx, filepath.Join(wh, dbName+".db", base))
	if err != nil {
		t.Fatal(err)
	}
	st.tables++
	for _, r := range rs {
		what := fmt.Sprintf("%s snapshot %d (%s)", r.Table, r.Snapshot, r.CommitKind)
		if r.Tag != nil {
			what += " tag " + *r.Tag
		}
		st.snapshots++
		want := javaRows(r, false)
		bad := false
		got, err := sqlRead(ctx, db, dbName, table, r.Columns, r)
		if err != nil {
			t.Errorf("%s: lakesql SQL read: %v", what, err)
			bad = true
		} else if d := ioDiffRows(want, got); d != "" {
			t.Errorf("%s: lakesql SQL read differs from Java's (columns %v):\n%s", what, r.Columns, d)
			bad = true
		}
		lib, plan, err := libRead(ctx, store, branch, r.Columns, r)
		if err != nil {
			t.Errorf("%s: lsmread: %v", what, err)
			bad = true
		} else {
			if d := ioDiffRows(want, lib); d != "" {
				t.Errorf("%s: lsmread differs from Java's:\n%s", what, d)
				bad = true
			}
			if d := ioDiffRows(javaFiles(r), planFiles(plan)); d != "" {
				t.Errorf("%s: lsmread plans other files than Java:\n%s", what, d)
				bad = true
			}
		}
		if bad {
			st.mismatches++
		}
	}
}

// diffRows describes the difference of two sorted row lists ("" when equal).
func ioDiffRows(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	var b strings.Builder
	i, j := 0, 0
	n := 0
	for (i < len(want) || j < len(got)) && n < 12 {
		switch {
		case j >= len(got) || (i < len(want) && want[i] < got[j]):
			fmt.Fprintf(&b, "  java only:    %s\n", want[i])
			i++
			n++
		case i >= len(want) || got[j] < want[i]:
			fmt.Fprintf(&b, "  lakesql only: %s\n", got[j])
			j++
			n++
		default:
			i++
			j++
		}
	}
	fmt.Fprintf(&b, "  (%d rows from Java, %d from lakesql)", len(want), len(got))
	return b.String()
}
