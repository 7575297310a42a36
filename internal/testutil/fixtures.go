// Package testutil finds the shared test fixtures. It is imported only by tests.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedDir returns the shared/ folder that lies beside the repository
// checkout (../shared from the repository root), or $LAKESQL_SHARED when set.
// The test fails when it cannot be found: the fixtures are part of the test
// environment, not optional.
func SharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("LAKESQL_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "bench")); err != nil || filepath.Base(dir) != "bench" {
				shared := filepath.Join(filepath.Dir(dir), "shared")
				if _, err := os.Stat(shared); err == nil {
					return shared
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testutil: cannot find ../shared beside the repository; set LAKESQL_SHARED")
		}
		dir = parent
	}
}

// FixturesDir returns shared/fixtures/paimon-java.
func FixturesDir(t testing.TB) string {
	return filepath.Join(SharedDir(t), "fixtures", "paimon-java")
}

// FixtureTables returns the path of every fixture table: each
// <name>.db/<name> folder under FixturesDir, sorted by name.
func FixtureTables(t testing.TB) map[string]string {
	t.Helper()
	root := FixturesDir(t)
	dbs, err := filepath.Glob(filepath.Join(root, "*.db"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, db := range dbs {
		name := filepath.Base(db)
		name = name[:len(name)-len(".db")]
		p := filepath.Join(db, name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out[name] = p
		}
	}
	return out
}
