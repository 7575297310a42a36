package tests

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// mysqlCLI runs the mysql command-line client (MariaDB's, which .ci/run
// installs) against the fixture server in batch mode without column names
// (-B -N) and returns the rows, split on tabs.
func mysqlCLI(t *testing.T, query string) [][]string {
	t.Helper()
	out, err := mysqlCLIRaw(t, query)
	if err != nil {
		t.Fatalf("mysql -e %q: %v\n%s", query, err, out)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

func mysqlCLIRaw(t *testing.T, query string) (string, error) {
	t.Helper()
	return mysqlCLIRawAt(t, serverAddr(t), fxDB, query)
}

// mysqlCLIAt is mysqlCLI against the server at addr, database db.
func mysqlCLIAt(t *testing.T, addr, db, query string) [][]string {
	t.Helper()
	out, err := mysqlCLIRawAt(t, addr, db, query)
	if err != nil {
		t.Fatalf("mysql -e %q: %v\n%s", query, err, out)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

func mysqlCLIRawAt(t *testing.T, addr, db, query string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("mysql")
	if err != nil {
		t.Fatalf("the mysql command-line client is not installed (.ci/run installs mariadb-client): %v", err)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--protocol=TCP", "-h", host, "-P", port, "-u", "root", "--skip-ssl",
		"-D", db, "-B", "-N", "-e", query)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

// TestServerCLI talks to the server through the mysql client.
func TestServerCLI(t *testing.T) {
	t.Run("version_comment", func(t *testing.T) {
		if got := mysqlCLI(t, "SELECT @@version_comment"); len(got) != 1 || got[0][0] != "lakesql" {
			t.Errorf("@@version_comment = %q, want lakesql", got)
		}
	})
	t.Run("SHOW DATABASES", func(t *testing.T) {
		got := column(mysqlCLI(t, "SHOW DATABASES"), 0)
		slices.Sort(got)
		if want := []string{fxDB, "information_schema", "mysql"}; !slices.Equal(got, want) {
			t.Errorf("SHOW DATABASES = %q, want %q", got, want)
		}
	})
	t.Run("SHOW TABLES", func(t *testing.T) {
		got := column(mysqlCLI(t, "SHOW TABLES"), 0)
		want := column(queryStrings(t, serverDB(t), "SHOW TABLES"), 0)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || !slices.Contains(got, ttTable) {
			t.Errorf("SHOW TABLES through mysql =\n%q\nthrough go-sql-driver\n%q", got, want)
		}
	})
	t.Run("DESCRIBE", func(t *testing.T) {
		got := mysqlCLI(t, "DESCRIBE "+ttTable)
		want := [][]string{
			{"f0", "varchar(16383)", "NO", "PRI", "NULL", ""},
			{"f1", "int", "NO", "PRI", "NULL", ""},
			{"f2", "int", "NO", "PRI", "NULL", ""},
			{"f3", "double", "YES", "", "NULL", ""},
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("DESCRIBE =\n%q\nwant\n%q", got, want)
		}
	})
	f := loadTTFixture(t)
	t.Run("ORDER BY", func(t *testing.T) {
		got := mysqlCLI(t, "SELECT f0, f1, f2, f3 FROM "+ttTable+" ORDER BY f0, f1, f2")
		var lines []string
		for _, r := range got {
			r[3] = normFloat(r[3])
			lines = append(lines, strings.Join(r, "|"))
		}
		// f0 is unique in this table: sort the expected rows by it.
		want := slices.Clone(f.latest)
		slices.SortFunc(want, func(a, b string) int {
			return strings.Compare(strings.SplitN(a, "|", 2)[0], strings.SplitN(b, "|", 2)[0])
		})
		if !slices.Equal(lines, want) {
			t.Errorf("ORDER BY through mysql:\n got %q\nwant %q", lines, want)
		}
	})
	t.Run("AS OF", func(t *testing.T) {
		got := mysqlCLI(t, "SELECT f0, f1, f2, f3 FROM "+ttTable+" AS OF 2 ORDER BY f0")
		var lines []string
		for _, r := range got {
			r[3] = normFloat(r[3])
			lines = append(lines, strings.Join(r, "|"))
		}
		slices.Sort(lines) // compared as a set; ORDER BY is checked above
		if !slices.Equal(lines, f.snap2) {
			t.Errorf("AS OF 2 through mysql:\n got %q\nwant %q", lines, f.snap2)
		}
	})
	t.Run("NULL and nested", func(t *testing.T) {
		got := mysqlCLI(t, "SELECT f3, f5, f6 FROM append_complex_build_in_fieldid ORDER BY f5")
		want := [][]string{
			{`{"f0": true, "f1": 2}`, "1970-01-25", "NULL"},
			{`{"f0": false, "f1": 2222}`, "1970-09-03", "0.12"},
			{`{"f0": true, "f1": 2}`, "1976-09-22", "0.22"},
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("through mysql:\n got %q\nwant %q", got, want)
		}
	})
	t.Run("error", func(t *testing.T) {
		out, err := mysqlCLIRaw(t, "SELECT * FROM no_such_table")
		if err == nil || !strings.Contains(out, "ERROR 1146") || !strings.Contains(out, "no_such_table") {
			t.Errorf("unknown table through mysql: err %v, output %q", err, out)
		}
	})
}
