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
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// defaultWarehouse is created on first start without --create, so the
// README's first command works on a fresh clone; any other missing local
// path needs --create, so a mistyped path is not silently made.
const defaultWarehouse = "./warehouse"

const serveUsage = "usage: lakesql serve [--warehouse PATH-OR-URL] [--create] [--host 127.0.0.1] [--port 3307] [--read-only] [--compaction-workers 1] [--shutdown-timeout 30s]"

func serve(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg sqlengine.Config
	fs.StringVar(&cfg.Warehouse, "warehouse", defaultWarehouse, "warehouse path or URL (file://, s3://, mem://)")
	create := fs.Bool("create", false, "create the warehouse folder when it does not exist")
	fs.StringVar(&cfg.Host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&cfg.Port, "port", 3307, "port to listen on")
	fs.BoolVar(&cfg.ReadOnly, "read-only", false, "reject statements that write")
	fs.IntVar(&cfg.CompactionWorkers, "compaction-workers", sqlengine.DefaultCompactionWorkers,
		"background workers of automatic compaction (0: compact inside the committing statement)")
	securityFlags(fs, &cfg.Security) // user.go
	grace := fs.Duration("shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long running statements may take to finish")
	if err := parseFlags(fs, args, stdout, serveUsage); err != nil {
		return err
	}
	if cfg.CompactionWorkers == 0 {
		cfg.CompactionWorkers = -1 // Config: negative is none
	} else if cfg.CompactionWorkers < 0 {
		return usageError{fmt.Errorf("serve: --compaction-workers must be 0 or more\n%s", serveUsage)}
	}
	if err := prepareWarehouse(&cfg, *create, stderr); err != nil {
		return err
	}
	srv, err := sqlengine.New(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lakesql: serving warehouse %s on %s\n", cfg.Warehouse, srv.Addr())
	for _, n := range srv.SecurityNotes() {
		fmt.Fprintf(stderr, "lakesql: %s\n", n)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Start() }()
	select {
	case err := <-errc:
		srv.Close()
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(stderr, "lakesql: shutting down: no new connections; waiting up to %s for running statements\n", *grace)
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	running, err := srv.Shutdown(sctx)
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	fmt.Fprintf(stderr, "lakesql: stopped (%d statements were running at the signal and finished)\n", running)
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
	fmt.Fprintln(w, "flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// errHelp: --help was asked for and printed; the command exits 0.
var errHelp = errors.New("help printed")

// usageError: the command line is wrong; the command exits 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// prepareWarehouse makes a local warehouse path absolute and checks that it
// exists, creating it with --create (or when it is the default path).
func prepareWarehouse(cfg *sqlengine.Config, create bool, log io.Writer) error {
	loc := cfg.Warehouse
	if strings.Contains(loc, "://") && !strings.HasPrefix(loc, "file://") {
		return nil // object stores have no folders to create
	}
	p := strings.TrimPrefix(loc, "file://")
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("warehouse %s: %w", loc, err)
	}
	cfg.Warehouse = abs
	st, err := os.Stat(abs)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("warehouse %s is not a directory", abs)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("warehouse %s: %w", abs, err)
	case !create && loc != defaultWarehouse:
		return fmt.Errorf("warehouse %s does not exist; pass --create to create it", abs)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("create warehouse %s: %w", abs, err)
	}
	fmt.Fprintf(log, "lakesql: created warehouse %s (it did not exist)\n", abs)
	return nil
}
