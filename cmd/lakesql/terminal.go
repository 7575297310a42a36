package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/lakesql/lakesql/sqlengine/config"
	"github.com/lakesql/lakesql/sqlengine/terminal"
)

const (
	sqlUsage   = `usage: lakesql sql [--warehouse W] [-e "STATEMENTS"] [--format table|csv|json] [--database DB] [--user root]   (statements from standard input without -e)`
	shellUsage = "usage: lakesql shell [--warehouse W] [--database DB] [--user root] [--format table|csv|json] [--history FILE]"
	loadUsage  = "usage: lakesql load FILE INTO [DB.]TABLE [--warehouse W] [--format csv|tsv] [--header] [--columns a,b,…]"
)

// terminalSettings are the settings the terminal commands take as flags
// (all of them still come from LAKESQL_* and the config file).
var terminalSettings = []string{"warehouse", "create", "users-file", "log-format", "log-level",
	"manifest-cache-entries", "table-defaults", "query-memory-limit", "memory-limit", "max-execution-time", "slow-query-ms"}

// openTerminal loads the configuration and opens an embedded session.
func openTerminal(ctx context.Context, c *config.Config, user, database string, stderr io.Writer) (*terminal.Session, error) {
	if c.Source("log-level") == config.FromDefault {
		c.LogLevel = "warn" // commit lines would drown the results
	}
	if err := setupLogging(c, stderr); err != nil {
		return nil, err
	}
	if _, err := c.PrepareWarehouse(); err != nil {
		return nil, err
	}
	return terminal.Open(ctx, terminal.Options{Engine: c.Engine(), User: user, Database: database})
}

// sqlCmd runs `lakesql sql`.
func sqlCmd(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	script := fs.String("e", "", "the statements to run (';' between them)")
	format := fs.String("format", terminal.FormatTable, "output format: table, csv or json")
	database := fs.String("database", "", "the current database at start")
	user := fs.String("user", "root", "the account to run as (from localhost)")
	c, err := loadConfig(fs, args, stdout, sqlUsage, terminalSettings...)
	if err != nil {
		return err
	}
	if err := terminal.CheckFormat(*format); err != nil {
		return usageError{err}
	}
	if *script == "" {
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usageError{fmt.Errorf("sql: give the statements with -e, or pipe them in (lakesql shell is interactive)\n%s", sqlUsage)}
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("sql: reading standard input: %w", err)
		}
		*script = string(b)
	}
	s, err := openTerminal(ctx, c, *user, *database, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Exec(ctx, *script, terminal.ExecOptions{Format: *format, Out: stdout})
}

// shellCmd runs `lakesql shell`.
func shellCmd(ctx context.Context, stdin io.ReadCloser, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", terminal.FormatTable, "output format: table, csv or json")
	database := fs.String("database", "", "the current database at start")
	user := fs.String("user", "root", "the account to run as (from localhost)")
	history := fs.String("history", defaultHistory(), "history file (\"\" keeps none)")
	c, err := loadConfig(fs, args, stdout, shellUsage, terminalSettings...)
	if err != nil {
		return err
	}
	if err := terminal.CheckFormat(*format); err != nil {
		return usageError{err}
	}
	s, err := openTerminal(ctx, c, *user, *database, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Shell(ctx, terminal.ShellOptions{In: stdin, Out: stdout, Err: stderr, HistoryFile: *history, Format: *format})
}

func defaultHistory() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".lakesql_history")
}

// loadCmd runs `lakesql load FILE INTO TABLE`.
func loadCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "csv", "file format: csv (RFC 4180) or tsv (MySQL's LOAD DATA defaults)")
	header := fs.Bool("header", false, "skip the first line")
	columns := fs.String("columns", "", "the table columns the fields fill, comma-separated (default: all, in order)")
	database := fs.String("database", "", "the database of an unqualified TABLE")
	user := fs.String("user", "root", "the account to run as (from localhost)")
	// FILE INTO TABLE come first; the flags follow.
	if len(args) >= 3 && !strings.HasPrefix(args[0], "-") {
		if !strings.EqualFold(args[1], "INTO") {
			return usageError{fmt.Errorf("load: expected FILE INTO TABLE, got %q\n%s", strings.Join(args[:3], " "), loadUsage)}
		}
	} else if len(args) == 0 || !isHelp(args) {
		return usageError{errors.New("load: expected FILE INTO TABLE\n" + loadUsage)}
	}
	file, table, rest := "", "", args
	if !isHelp(args) {
		file, table, rest = args[0], args[2], args[3:]
	}
	c, err := loadConfig(fs, rest, stdout, loadUsage, terminalSettings...)
	if err != nil {
		return err
	}
	var cols []string
	if *columns != "" {
		cols = strings.Split(*columns, ",")
	}
	s, err := openTerminal(ctx, c, *user, *database, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	tty := false
	if f, ok := stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	_, err = s.Load(ctx, terminal.LoadOptions{File: file, Table: table, Format: *format, Header: *header, Columns: cols,
		Progress: stderr, Terminal: tty})
	return err
}

func isHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help")
}
