// Package testutil finds the shared test fixtures. It is imported only by tests.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedDir returns the shared/ folder that lies beside the repository
// checkout (../shared from the repository root), or $LAKESQL_SHARED when set.
// A fresh clone has no ../shared: then (and only then) the test is skipped
// with one line saying so, since only the tests of the Java-written
// fixtures need it (the interop tests under tests/ write their own Java
// tables). A $LAKESQL_SHARED that does not exist fails the test.
func SharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("LAKESQL_SHARED"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "fixtures")); err != nil {
			t.Fatalf("testutil: LAKESQL_SHARED=%s: %v", d, err)
		}
		return d
	}
	if d, ok := findShared(); ok {
		return d
	}
	t.Skip("../shared/fixtures not present: the Java-written fixture tests need it")
	return ""
}

// findShared looks for shared/fixtures beside the repository (the module
// root holding go.mod, or the main module above bench/).
func findShared() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "bench")); err != nil || filepath.Base(dir) != "bench" {
				shared := filepath.Join(filepath.Dir(dir), "shared")
				if _, err := os.Stat(filepath.Join(shared, "fixtures")); err == nil {
					return shared, true
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
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
