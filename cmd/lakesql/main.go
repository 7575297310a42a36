// Command lakesql is a MySQL-protocol SQL server over Apache Paimon tables.
//
//	lakesql serve [--warehouse PATH-OR-URL] [--host H] [--port P] [--read-only]
//	lakesql inspect TABLE-PATH-OR-URL [--snapshot N]
//	lakesql user add NAME --password PASSWORD [--admin] [--warehouse …]
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/lakesql/lakesql/inspect"
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
		err = serve(ctx, os.Args[2:])
	case "inspect":
		err = inspect.Run(ctx, os.Stdout, os.Args[2:])
	case "user":
		err = user(ctx, os.Stdout, os.Args[2:])
	case "-h", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "lakesql: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lakesql: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  lakesql serve [--warehouse PATH-OR-URL] [--host 127.0.0.1] [--port 3307] [--read-only]
  lakesql inspect TABLE-PATH-OR-URL [--snapshot N]
  lakesql user add NAME --password PASSWORD [--host %] [--admin] [--replace] [--warehouse PATH-OR-URL | --users-file FILE]
`)
}
