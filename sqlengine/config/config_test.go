package config_test

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine/config"
)

func load(t *testing.T, args []string, env map[string]string) (*config.Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return config.Load(fs, args, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lakesql.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPrecedence: every setting follows flags > env > file > defaults, and
// the keys of table-defaults merge key by key with the same rule.
func TestPrecedence(t *testing.T) {
	file := writeFile(t, `
port = 4001
host = "0.0.0.0"
log-level = "debug"
slow-query-ms = 250
shutdown-timeout = "5s"
query-memory-limit = "1GiB"

[table-defaults]
"bucket" = "4"
"file.compression" = "lz4"
"snapshot.num-retained.max" = "30"
`)
	env := map[string]string{
		"LAKESQL_CONFIG":         file,
		"LAKESQL_PORT":           "4002",
		"LAKESQL_LOG_LEVEL":      "warn",
		"LAKESQL_TABLE_DEFAULTS": "file.compression=zstd;manifest.format=avro",
	}
	c, err := load(t, []string{"--port", "4003", "--table-defaults", "bucket=8"}, env)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		got  any
		want any
		src  config.Source
	}{
		{"port", c.Port, 4003, config.FromFlag},
		{"log-level", c.LogLevel, "warn", config.FromEnv},
		{"host", c.Host, "0.0.0.0", config.FromFile},
		{"slow-query-ms", c.SlowQueryMs, 250, config.FromFile},
		{"shutdown-timeout", time.Duration(c.ShutdownTimeout), 5 * time.Second, config.FromFile},
		{"query-memory-limit", int64(c.QueryMemoryLimit), int64(1 << 30), config.FromFile},
		{"warehouse", c.Warehouse, config.DefaultWarehouse, config.FromDefault},
		{"table-defaults.bucket", c.TableDefaults["bucket"], "8", config.FromFlag},
		{"table-defaults.file.compression", c.TableDefaults["file.compression"], "zstd", config.FromEnv},
		{"table-defaults.manifest.format", c.TableDefaults["manifest.format"], "avro", config.FromEnv},
		{"table-defaults.snapshot.num-retained.max", c.TableDefaults["snapshot.num-retained.max"], "30", config.FromFile},
	}
	for _, ch := range checks {
		if ch.got != ch.want || c.Source(ch.name) != ch.src {
			t.Errorf("%s = %v from %v, want %v from %v", ch.name, ch.got, c.Source(ch.name), ch.want, ch.src)
		}
	}
	// The commit lock: its default, and the engine gets it.
	if c.CommitLock != "none" || time.Duration(c.CommitLockTimeout) != 50*time.Second || c.Engine().CommitLock != "none" {
		t.Errorf("commit-lock defaults: %q, %v", c.CommitLock, c.CommitLockTimeout)
	}
	c, err = load(t, []string{"--commit-lock-timeout", "3s"}, map[string]string{"LAKESQL_COMMIT_LOCK": "file:/run/lakesql-locks"})
	if err != nil || c.Engine().CommitLock != "file:/run/lakesql-locks" || c.Source("commit-lock") != config.FromEnv ||
		c.Engine().CommitLockTimeout != 3*time.Second || c.Source("commit-lock-timeout") != config.FromFlag {
		t.Errorf("commit-lock from env, timeout from a flag: %v, %+v", err, c.Engine())
	}
	// --config on the command line beats LAKESQL_CONFIG.
	other := writeFile(t, "port = 5000\n")
	c, err = load(t, []string{"--config", other}, map[string]string{"LAKESQL_CONFIG": file})
	if err != nil || c.Port != 5000 || c.Host != "127.0.0.1" || c.File != other {
		t.Errorf("--config: %v, port %d host %s file %s", err, c.Port, c.Host, c.File)
	}
}

// TestPrintRoundTrip: --print-config's output, read back as a config file,
// gives the same settings.
func TestPrintRoundTrip(t *testing.T) {
	c, err := load(t, []string{"--port", "4100", "--slow-query-ms", "7", "--table-defaults", "bucket=2", "--query-memory-limit", "64MiB",
		"--memory-limit", "1GiB", "--metrics-addr", "127.0.0.1:0", "--log-format", "json", "--read-only", "--commit-lock", "file:/tmp/locks", "--commit-lock-timeout", "2s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.Print(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "port = 4100") || !strings.Contains(b.String(), "# flag") {
		t.Errorf("print:\n%s", b.String())
	}
	back, err := load(t, []string{"--config", writeFile(t, b.String())}, nil)
	if err != nil {
		t.Fatalf("reading the printed config back: %v\n%s", err, b.String())
	}
	back.File = c.File
	if back.Settings.Port != c.Port || back.SlowQueryMs != c.SlowQueryMs || back.TableDefaults["bucket"] != "2" ||
		back.QueryMemoryLimit != c.QueryMemoryLimit || back.MemoryLimit != 1<<30 || back.MetricsAddr != c.MetricsAddr || back.LogFormat != "json" || !back.ReadOnly ||
		back.ShutdownTimeout != c.ShutdownTimeout || back.ManifestCacheEntries != c.ManifestCacheEntries ||
		back.CommitLock != "file:/tmp/locks" || back.CommitLockTimeout != c.CommitLockTimeout {
		t.Errorf("round trip changed the settings:\n%+v\n%+v", c.Settings, back.Settings)
	}
}

// TestBadSettings: each kind of bad input is an error naming the setting
// and where it came from; an unknown file key is refused.
func TestBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		file string
		want string
	}{
		{args: []string{"--port", "x"}, want: "invalid value"},
		{args: []string{"--port", "70000"}, want: "--port must be 0 … 65535"},
		{env: map[string]string{"LAKESQL_PORT": "x"}, want: "LAKESQL_PORT"},
		{env: map[string]string{"LAKESQL_LOG_FORMAT": "xml"}, want: "log-format (from env)"},
		{file: "nosuch = 1\n", want: "unknown setting nosuch"},
		{file: "port = \"x\"\n", want: "port"},
		{args: []string{"--table-defaults", "bucket=zero"}, want: "table-defaults"},
		{args: []string{"--table-defaults", "novalue"}, want: "key=value"},
		{args: []string{"--tls-cert", "a.pem"}, want: "tls-key go together"},
		{env: map[string]string{"LAKESQL_COMPACTION_WORKERS": "-1"}, want: "compaction-workers (from env): must be 0 or more"},
		{args: []string{"--query-memory-limit", "lots"}, want: "512MiB"},
		{env: map[string]string{"LAKESQL_MEMORY_LIMIT": "lots"}, want: "LAKESQL_MEMORY_LIMIT"},
		{args: []string{"--shutdown-timeout", "-1s"}, want: "negative"},
		{args: []string{"--commit-lock", "zookeeper:x"}, want: "--commit-lock must be none or file:/path/to/lock-folder"},
		{env: map[string]string{"LAKESQL_COMMIT_LOCK": "file:"}, want: "commit-lock (from env)"},
		{args: []string{"--commit-lock-timeout", "soon"}, want: "commit-lock-timeout"},
	} {
		args := c.args
		if c.file != "" {
			args = append([]string{"--config", writeFile(t, c.file)}, args...)
		}
		_, err := load(t, args, c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v %q: error %v, want one containing %q", c.args, c.env, c.file, err, c.want)
		}
	}
	_, err := load(t, []string{"--port", "x"}, nil)
	var fe *config.FlagError
	if !errors.As(err, &fe) {
		t.Errorf("a bad flag value is %T, want *config.FlagError (exit 2)", err)
	}
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "1k": 1024, "64MiB": 64 << 20, "2 gb": 2 << 30, "3t": 3 << 40} {
		got, err := config.ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
		back, err := config.ParseSize(config.FormatSize(got))
		if err != nil || back != got {
			t.Errorf("FormatSize(%d) = %q does not read back", got, config.FormatSize(got))
		}
	}
	for _, in := range []string{"", "-1", "1x", "9999999999t"} {
		if _, err := config.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// FuzzParseSize: any text either fails or gives a size that FormatSize
// writes back to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "1k", "64MiB", " 2 gb ", "3t", "-1", "1e9", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := config.ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		back, err := config.ParseSize(config.FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d; FormatSize gives %q → %d, %v", s, n, config.FormatSize(n), back, err)
		}
	})
}
