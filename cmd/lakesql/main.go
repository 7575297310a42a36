// Command lakesql is a MySQL-protocol SQL server over Apache Paimon tables.
//
//	lakesql serve [--warehouse PATH-OR-URL] [--create] [--host H] [--port P] [--read-only] [--shutdown-timeout D] [security flags]
//	lakesql inspect TABLE-PATH-OR-URL [--snapshot N] [--branch NAME]
//	lakesql compact --warehouse PATH-OR-URL --table DB.TABLE [--partition K=V,…]… [--full]
//	lakesql user add NAME --password PASSWORD [--admin] [--warehouse …]
//	lakesql sql [--warehouse …] -e "STATEMENTS" [--format table|csv|json]
//	lakesql shell [--warehouse …]
//	lakesql load FILE INTO [DB.]TABLE [--warehouse …] [--format csv|tsv] [--header]
//	lakesql version
//
// Exit status: 0 on success (and for --help, and after a graceful shutdown
// on SIGINT/SIGTERM), 1 on an error, 2 on a wrong command line.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/lakesql/lakesql/lsmread/inspect"
	"github.com/lakesql/lakesql/lsmwrite/compactjob"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(ctx, os.Stdout, os.Stderr, os.Args[2:])
	case "inspect":
		err = inspect.Run(ctx, os.Stdout, os.Args[2:])
	case "compact":
		err = compactjob.Run(ctx, os.Stdout, os.Stderr, os.Args[2:])
	case "user":
		err = user(ctx, os.Stdout, os.Args[2:])
	case "sql":
		err = sqlCmd(ctx, os.Stdin, os.Stdout, os.Stderr, os.Args[2:])
	case "shell":
		err = shellCmd(ctx, os.Stdin, os.Stdout, os.Stderr, os.Args[2:])
	case "load":
		err = loadCmd(ctx, os.Stdout, os.Stderr, os.Args[2:])
	case "version", "--version":
		err = version(os.Stdout, os.Args[2:])
	case "-h", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "lakesql: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	var ue usageError
	var iue inspect.UsageError
	var cue compactjob.UsageError
	switch {
	case err == nil, errors.Is(err, errHelp), errors.Is(err, inspect.ErrHelp), errors.Is(err, compactjob.ErrHelp):
	case errors.As(err, &ue), errors.As(err, &iue), errors.As(err, &cue):
		fmt.Fprintf(os.Stderr, "lakesql: %v\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "lakesql: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, "usage:\n  "+serveUsage[len("usage: "):]+"\n  "+inspect.Usage[len("usage: "):]+
		"\n  "+compactjob.Usage[len("usage: "):]+"\n  "+userUsage+"\n  "+sqlUsage[len("usage: "):]+
		"\n  "+shellUsage[len("usage: "):]+"\n  "+loadUsage[len("usage: "):]+"\n  lakesql version\n")
}
