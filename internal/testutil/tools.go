package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RequireTools reports whether missing external tools must fail a test
// instead of skipping it. .ci/run sets LAKESQL_REQUIRE_TOOLS=1 after it has
// installed every tool the tests use, so in CI a missing tool is a failure,
// never a silent skip; on a developer machine without them the tests skip
// and say which tool is missing and how to get it.
func RequireTools() bool { return os.Getenv("LAKESQL_REQUIRE_TOOLS") == "1" }

// missing skips (or, under RequireTools, fails) with the reason.
func missing(t testing.TB, what string) {
	t.Helper()
	if RequireTools() {
		t.Fatalf("%s is missing, and LAKESQL_REQUIRE_TOOLS=1 says .ci/run installed it", what)
	}
	t.Skipf("%s is missing: run .ci/run once to install it", what)
}

// CacheDir is $HOME/.cache/lakesql (or $LAKESQL_CACHE), where .ci/run keeps
// what it installs (the Python virtual environment, built Java harnesses).
func CacheDir() string {
	if d := os.Getenv("LAKESQL_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "lakesql")
}

// Python returns the interpreter of the virtual environment .ci/run creates
// ($LAKESQL_PYTHON, else CacheDir()/venv/bin/python), skipping the test when
// it is absent outside CI.
func Python(t testing.TB) string {
	t.Helper()
	p := os.Getenv("LAKESQL_PYTHON")
	if p == "" {
		p = filepath.Join(CacheDir(), "venv", "bin", "python")
	}
	if _, err := os.Stat(p); err != nil {
		missing(t, "the Python virtual environment ("+p+")")
	}
	return p
}

// Command returns the path of an executable on PATH, skipping the test when
// it is absent outside CI.
func Command(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, "the command "+name)
	}
	return p
}

// Built returns path when it exists (something .ci/run builds, such as a
// Java harness jar), skipping the test when it is absent outside CI; how
// says how to build it.
func Built(t testing.TB, path, how string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(t, path+" (built by "+how+")")
	}
	return path
}
