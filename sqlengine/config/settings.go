package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/sqlengine"
)

// Settings are lakesql's configuration. Each field is one setting: its
// `toml` tag is its name in the config file, its command-line flag
// (--name) and, upper-cased with '-' as '_' and a LAKESQL_ prefix, its
// environment variable (LAKESQL_NAME).
type Settings struct {
	Warehouse       string   `toml:"warehouse" help:"warehouse path or URL (file://, s3://, mem://)"`
	Create          bool     `toml:"create" help:"create the warehouse folder when it does not exist"`
	Host            string   `toml:"host" help:"address the MySQL protocol listens on"`
	Port            int      `toml:"port" help:"port of the MySQL protocol (0 picks a free one)"`
	ReadOnly        bool     `toml:"read-only" help:"reject statements that write"`
	ShutdownTimeout Duration `toml:"shutdown-timeout" help:"on SIGINT/SIGTERM, how long running statements may take to finish"`

	CommitLock        string   `toml:"commit-lock" help:"lock every writer of the warehouse takes around each commit, needed where the store lacks conditional create: none, or file:/path/to/lock-folder (flock; servers on one host or a shared POSIX filesystem)"`
	CommitLockTimeout Duration `toml:"commit-lock-timeout" help:"longest wait for the commit lock; past it the statement fails with 1205"`

	UsersFile              string `toml:"users-file" help:"keep the accounts in this local file instead of <warehouse>/_lakesql/users"`
	TLSCert                string `toml:"tls-cert" help:"TLS certificate (PEM); with tls-key enables TLS (MySQL protocol and Flight SQL)"`
	TLSKey                 string `toml:"tls-key" help:"TLS private key (PEM)"`
	RequireSecureTransport bool   `toml:"require-secure-transport" help:"refuse connections without TLS"`
	SecureFilePriv         string `toml:"secure-file-priv" help:"the only directory LOAD DATA INFILE, SELECT … INTO OUTFILE and LOAD_FILE may use (default: disabled)"`
	LocalInfile            bool   `toml:"local-infile" help:"allow LOAD DATA LOCAL INFILE"`

	MetricsAddr string `toml:"metrics-addr" help:"serve /metrics (Prometheus), /healthz and /readyz on this host:port (default: off)"`
	FlightAddr  string `toml:"flight-addr" help:"serve Arrow Flight SQL on this host:port (default: off)"`

	LogFormat   string `toml:"log-format" help:"log format: text or json"`
	LogLevel    string `toml:"log-level" help:"log level: debug, info, warn or error"`
	SlowQueryMs int    `toml:"slow-query-ms" help:"log every statement that takes at least this many milliseconds (0: off)"`

	CompactionWorkers    int  `toml:"compaction-workers" help:"background workers of automatic compaction (0: compact inside the committing statement)"`
	ManifestCacheEntries int  `toml:"manifest-cache-entries" help:"decoded manifest records kept in memory (0: no cache)"`
	QueryMemoryLimit     Size `toml:"query-memory-limit" help:"default per-statement memory limit, e.g. 2GiB (0: none); SET lakesql_query_memory_limit changes it per session"`
	MemoryLimit          Size `toml:"memory-limit" help:"soft limit of the server's Go heap, e.g. 1GiB: near it the garbage collector runs more often instead of letting the heap grow to twice what is live (0: none, or the GOMEMLIMIT environment variable)"`
	MaxExecutionTime     int  `toml:"max-execution-time" help:"default max_execution_time of SELECT statements in milliseconds (0: none)"`
	GCHeadroom           Size `toml:"gc-headroom" help:"least the heap may grow between two garbage collections, e.g. 128MiB: GOGC is raised while the live heap is smaller (0: GOGC alone)"`

	TableDefaults map[string]string `toml:"table-defaults" help:"table options every new table gets unless CREATE TABLE sets the key (k=v; repeat the flag, or ';' between pairs)"`
}

// Defaults are the settings without a config file, environment or flags.
func Defaults() Settings {
	return Settings{
		Warehouse:            DefaultWarehouse,
		Host:                 "127.0.0.1",
		Port:                 3307,
		ShutdownTimeout:      Duration(30 * time.Second),
		CommitLock:           "none",
		CommitLockTimeout:    Duration(storage.DefaultLockTimeout),
		LogFormat:            "text",
		LogLevel:             "info",
		CompactionWorkers:    1,
		ManifestCacheEntries: 1 << 20,
		GCHeadroom:           Size(sqlengine.DefaultGCHeadroom),
		TableDefaults:        map[string]string{},
	}
}

// DefaultWarehouse is created on first start without --create, so that the
// README's first command works in a fresh folder.
const DefaultWarehouse = "./warehouse"

// Duration is a time.Duration written as Go writes it ("30s", "1m30s").
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("a duration such as 30s or 1m: %w", err)
	}
	if v < 0 {
		return fmt.Errorf("a duration must not be negative: %s", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Size is a number of bytes, written as a number with an optional unit:
// b, k/kb/kib, m/mb/mib, g/gb/gib, t/tb/tib (all powers of 1024, as
// Paimon's MemorySize reads them).
type Size int64

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*s = Size(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (s Size) MarshalText() ([]byte, error) { return []byte(FormatSize(int64(s))), nil }

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"tib", 1 << 40}, {"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10},
	{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1},
}

// ParseSize reads a Size.
func ParseSize(text string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(text))
	mult := int64(1)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("a size such as 512MiB or 2GiB, not %q", text)
	}
	return n * mult, nil
}

// FormatSize writes a size with the largest unit that divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// UnmarshalTOML lets a config file give a size as a number of bytes or as
// text with a unit.
func (s *Size) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("a size must not be negative: %d", x)
		}
		*s = Size(x)
		return nil
	case string:
		return s.UnmarshalText([]byte(x))
	}
	return fmt.Errorf("a size such as 512MiB or a number of bytes, not %v", v)
}
