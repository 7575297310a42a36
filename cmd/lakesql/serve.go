package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/config"
	"github.com/lakesql/lakesql/sqlengine/flight"
	"github.com/lakesql/lakesql/sqlengine/observe"
)

const serveUsage = "usage: lakesql serve [--config FILE] [--warehouse PATH-OR-URL] [--create] [--host 127.0.0.1] [--port 3307] [--read-only] [--metrics-addr H:P] [--flight-addr H:P] [--print-config] [more settings: --help]"

func serve(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	printConfig := fs.Bool("print-config", false, "print the effective configuration as a TOML config file (each value's source in a comment) and exit")
	c, err := loadConfig(fs, args, stdout, serveUsage)
	if err != nil {
		return err
	}
	if *printConfig {
		return c.Print(stdout)
	}
	if err := setupLogging(c, stderr); err != nil {
		return err
	}
	created, err := c.PrepareWarehouse()
	if err != nil {
		return err
	}
	if created {
		slog.Info("created warehouse (it did not exist)", "path", c.Warehouse)
	}
	srv, err := sqlengine.New(ctx, c.Engine())
	if err != nil {
		return err
	}
	slog.Info("serving", "warehouse", c.Warehouse, "mysql", srv.Addr())
	for _, n := range srv.SecurityNotes() {
		slog.Info(n)
	}
	if c.MetricsAddr != "" {
		hs, err := observe.Listen(c.MetricsAddr, srv.Ready)
		if err != nil {
			srv.Close()
			return err
		}
		defer hs.Close()
		slog.Info("metrics endpoint", "addr", hs.Addr(), "paths", "/metrics /healthz /readyz")
	}
	if c.FlightAddr != "" {
		fsrv, err := flight.Listen(c.FlightAddr, srv)
		if err != nil {
			srv.Close()
			return err
		}
		defer fsrv.Close()
		slog.Info("Arrow Flight SQL endpoint", "addr", fsrv.Addr(), "tls", c.TLSCert != "")
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Start() }()
	select {
	case err := <-errc:
		srv.Close()
		return err
	case <-ctx.Done():
	}
	grace := time.Duration(c.ShutdownTimeout)
	slog.Info("shutting down: no new connections; waiting for running statements", "timeout", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	running, err := srv.Shutdown(sctx)
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	slog.Info("stopped", "statements_finished", running)
	return nil
}

// loadConfig reads a command's configuration (sqlengine/config: flags >
// LAKESQL_* > config file > defaults) with the settings names as flags
// (all when none), rejecting positional arguments; --help prints the usage
// and flags to stdout and returns errHelp.
func loadConfig(fs *flag.FlagSet, args []string, stdout io.Writer, usage string, names ...string) (*config.Config, error) {
	c, err := config.Load(fs, args, os.LookupEnv, names...)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs, usage)
			return nil, errHelp
		}
		var fe *config.FlagError
		if !errors.As(err, &fe) {
			return nil, err // a bad config file, environment variable or value: exit 1
		}
		return nil, usageError{fmt.Errorf("%s: %w\n%s", fs.Name(), err, usage)}
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("%s: unexpected argument %q (flags are written --name value)\n%s", fs.Name(), fs.Arg(0), usage)}
	}
	return c, nil
}

// setupLogging installs the process's slog logger (log-format, log-level).
func setupLogging(c *config.Config, stderr io.Writer) error {
	l, err := observe.NewLogger(stderr, c.LogFormat, c.LogLevel)
	if err != nil {
		return err
	}
	slog.SetDefault(l)
	return nil
}

// parseFlags parses args with fs, rejecting positional arguments (Go's flag
// package stops at the first one and would ignore the flags after it).
// --help prints the usage and flags to stdout and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, usage string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs, usage)
			return errHelp
		}
		return usageError{fmt.Errorf("%s: %w\n%s", fs.Name(), err, usage)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s: unexpected argument %q (flags are written --name value)\n%s", fs.Name(), fs.Arg(0), usage)}
	}
	return nil
}

func printUsage(w io.Writer, fs *flag.FlagSet, usage string) {
	fmt.Fprintln(w, usage)
	fmt.Fprintln(w, "flags (each also a LAKESQL_* environment variable and a config-file key):")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// errHelp: --help was asked for and printed; the command exits 0.
var errHelp = errors.New("help printed")

// usageError: the command line is wrong; the command exits 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }
