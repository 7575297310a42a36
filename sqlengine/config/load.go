package config

import (
	"encoding"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// Source says where a setting's value came from.
type Source uint8

// Sources, lowest precedence first.
const (
	FromDefault Source = iota
	FromFile
	FromEnv
	FromFlag
)

func (s Source) String() string {
	return [...]string{"default", "file", "env", "flag"}[s]
}

// Config is the effective configuration of one command: Settings, and
// where each value came from.
type Config struct {
	Settings
	// File is the config file read ("" when none).
	File    string
	sources map[string]Source // setting name (table-defaults.<key> for its keys) → source
}

// Source is where the setting name got its value.
func (c *Config) Source(name string) Source { return c.sources[name] }

// FlagError is a command line the flags cannot parse (an unknown flag, a
// bad value).
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// ConfigFlag names the config file; LAKESQL_CONFIG does too.
const ConfigFlag = "config"

// EnvPrefix prefixes every setting's environment variable.
const EnvPrefix = "LAKESQL_"

// EnvName is the environment variable of a setting.
func EnvName(setting string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(setting, "-", "_"))
}

// field is one setting of Settings.
type field struct {
	name, help string
	index      int
}

var fields = func() []field {
	t := reflect.TypeOf(Settings{})
	out := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		out = append(out, field{name: f.Tag.Get("toml"), help: f.Tag.Get("help"), index: i})
	}
	return out
}()

// Names lists every setting, in Settings order.
func Names() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

// Load reads the configuration of a command, with one precedence rule:
// flags > LAKESQL_* environment variables > the config file > defaults.
// The config file is --config FILE, else $LAKESQL_CONFIG, else none; its
// keys are the setting names (an unknown key is an error). Load defines
// --config and a flag for each setting in names (every setting when names
// is nil) on fs, beside the command's own flags, and parses args with it.
// getenv looks up environment variables (os.LookupEnv).
func Load(fs *flag.FlagSet, args []string, getenv func(string) (string, bool), names ...string) (*Config, error) {
	c := &Config{Settings: Defaults(), sources: map[string]Source{}}
	path, _ := getenv(EnvName(ConfigFlag))
	if p, ok := scanFlag(args, ConfigFlag); ok {
		path = p
	}
	if path != "" {
		if err := c.readFile(path); err != nil {
			return nil, err
		}
	}
	for _, f := range fields {
		env := EnvName(f.name)
		text, ok := getenv(env)
		if !ok {
			continue
		}
		if err := c.set(f, text, FromEnv); err != nil {
			return nil, fmt.Errorf("config: %s: %w", env, err)
		}
	}
	fs.String(ConfigFlag, path, "read settings from this TOML file (also $"+EnvName(ConfigFlag)+")")
	for _, f := range fields {
		if names != nil && !contains(names, f.name) {
			continue
		}
		fs.Var(&flagValue{c: c, f: f}, f.name, f.help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &FlagError{err}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scanFlag finds --name V, --name=V, -name V or -name=V in args before the
// first non-flag argument.
func scanFlag(args []string, name string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return "", false
		}
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func (c *Config) readFile(path string) error {
	md, err := toml.DecodeFile(path, &c.Settings)
	if err != nil {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return fmt.Errorf("config: %s: unknown setting %s (settings: %s)", path, strings.Join(keys, ", "), strings.Join(Names(), ", "))
	}
	c.File = path
	for _, f := range fields {
		if !md.IsDefined(f.name) {
			continue
		}
		c.sources[f.name] = FromFile
		if f.name == "table-defaults" {
			for k := range c.TableDefaults {
				if md.IsDefined(f.name, k) {
					c.sources[f.name+"."+k] = FromFile
				}
			}
		}
	}
	return nil
}

// set sets a setting from text (a flag or an environment variable).
func (c *Config) set(f field, text string, src Source) error {
	v := reflect.ValueOf(&c.Settings).Elem().Field(f.index)
	if v.Kind() == reflect.Map {
		pairs, err := parsePairs(text)
		if err != nil {
			return err
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for _, kv := range pairs {
			v.SetMapIndex(reflect.ValueOf(kv[0]), reflect.ValueOf(kv[1]))
			c.sources[f.name+"."+kv[0]] = src
		}
		c.sources[f.name] = src
		return nil
	}
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		if err := u.UnmarshalText([]byte(text)); err != nil {
			return err
		}
		c.sources[f.name] = src
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("true or false, not %q", text)
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return fmt.Errorf("an integer, not %q", text)
		}
		v.SetInt(int64(n))
	default:
		return fmt.Errorf("config: setting %s has unsupported type %s", f.name, v.Type())
	}
	c.sources[f.name] = src
	return nil
}

// parsePairs reads "k=v" pairs separated by ';'.
func parsePairs(text string) ([][2]string, error) {
	var out [][2]string
	for _, p := range strings.Split(text, ";") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		k = strings.Trim(strings.TrimSpace(k), `'"`)
		if !ok || k == "" {
			return nil, fmt.Errorf("key=value pairs separated by ';', not %q", p)
		}
		out = append(out, [2]string{k, strings.Trim(strings.TrimSpace(v), `'"`)})
	}
	return out, nil
}

// flagValue sets one setting from its flag.
type flagValue struct {
	c *Config
	f field
}

func (v *flagValue) Set(text string) error { return v.c.set(v.f, text, FromFlag) }

func (v *flagValue) String() string {
	if v == nil || v.c == nil {
		return ""
	}
	return formatValue(reflect.ValueOf(v.c.Settings).Field(v.f.index))
}

// IsBoolFlag lets a boolean setting be given as --name alone.
func (v *flagValue) IsBoolFlag() bool {
	return reflect.TypeOf(Settings{}).Field(v.f.index).Type.Kind() == reflect.Bool
}

func formatValue(v reflect.Value) string {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, _ := m.MarshalText()
		return string(b)
	}
	if v.Kind() == reflect.Map {
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + v.MapIndex(reflect.ValueOf(k)).String()
		}
		return strings.Join(parts, ";")
	}
	return fmt.Sprint(v.Interface())
}

// Validate checks the settings' values. A bad value given as a flag makes
// the error a *FlagError (the command line is wrong).
func (c *Config) Validate() error {
	s := &c.Settings
	var errs []error
	fromFlag := false
	bad := func(name, format string, args ...any) {
		if c.sources[name] == FromFlag {
			fromFlag = true
			errs = append(errs, fmt.Errorf("--%s "+format, append([]any{name}, args...)...))
			return
		}
		errs = append(errs, fmt.Errorf("config: %s (from %s): "+format, append([]any{name, c.sources[name]}, args...)...))
	}
	switch strings.ToLower(s.LogFormat) {
	case "text", "json":
	default:
		bad("log-format", "text or json, not %q", s.LogFormat)
	}
	switch strings.ToLower(s.LogLevel) {
	case "debug", "info", "warn", "warning", "error":
	default:
		bad("log-level", "debug, info, warn or error, not %q", s.LogLevel)
	}
	if s.Port < 0 || s.Port > 65535 {
		bad("port", "must be 0 … 65535 (not %d)", s.Port)
	}
	for name, n := range map[string]int{"slow-query-ms": s.SlowQueryMs, "compaction-workers": s.CompactionWorkers,
		"manifest-cache-entries": s.ManifestCacheEntries, "max-execution-time": s.MaxExecutionTime} {
		if n < 0 {
			bad(name, "must be 0 or more (not %d)", n)
		}
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		bad("tls-cert", "tls-cert and tls-key go together")
	}
	if s.RequireSecureTransport && s.TLSCert == "" {
		bad("require-secure-transport", "needs tls-cert and tls-key")
	}
	if s.Warehouse == "" {
		bad("warehouse", "must not be empty")
	}
	if err := storage.CheckLock(s.CommitLock); err != nil {
		bad("commit-lock", "must be none or file:/path/to/lock-folder, not %q", s.CommitLock)
	}
	if len(s.TableDefaults) > 0 {
		if _, err := schema.Options(s.TableDefaults).Core(); err != nil {
			bad("table-defaults", "%v", err)
		}
	}
	if fromFlag {
		return &FlagError{errors.Join(errs...)} // a bad command line: exit 2
	}
	return errors.Join(errs...)
}

// Print writes the effective configuration as a TOML config file, each
// value followed by where it came from.
func (c *Config) Print(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# lakesql configuration; precedence: flags > LAKESQL_* environment > config file > defaults\n")
	if c.File != "" {
		fmt.Fprintf(&b, "# config file: %s\n", c.File)
	}
	sv := reflect.ValueOf(c.Settings)
	var tables []field
	for _, f := range fields {
		v := sv.Field(f.index)
		if v.Kind() == reflect.Map {
			tables = append(tables, f)
			continue
		}
		line, err := tomlLine(f.name, v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%-40s # %s\n", line, c.sources[f.name])
	}
	for _, f := range tables {
		v := sv.Field(f.index)
		fmt.Fprintf(&b, "\n[%s]\n", f.name)
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		for _, k := range keys {
			line, err := tomlLine(k, v.MapIndex(reflect.ValueOf(k)))
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%-40s # %s\n", line, c.sources[f.name+"."+k])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tomlLine is `key = value` in TOML.
func tomlLine(key string, v reflect.Value) (string, error) {
	var val any = v.Interface()
	if m, ok := val.(encoding.TextMarshaler); ok {
		t, _ := m.MarshalText()
		val = string(t)
	}
	out, err := toml.Marshal(map[string]any{key: val})
	if err != nil {
		return "", fmt.Errorf("config: print %s: %w", key, err)
	}
	return strings.TrimSpace(string(out)), nil
}
