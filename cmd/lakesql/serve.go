package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/lakesql/lakesql/sqlengine"
)

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var cfg sqlengine.Config
	fs.StringVar(&cfg.Warehouse, "warehouse", "./warehouse", "warehouse path or URL (file://, s3://, mem://)")
	fs.StringVar(&cfg.Host, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&cfg.Port, "port", 3307, "port to listen on")
	fs.BoolVar(&cfg.ReadOnly, "read-only", false, "reject statements that write")
	securityFlags(fs, &cfg.Security) // user.go
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, err := sqlengine.New(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "lakesql: serving %s on %s\n", cfg.Warehouse, srv.Addr())
	for _, n := range srv.SecurityNotes() {
		fmt.Fprintf(os.Stderr, "lakesql: %s\n", n)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Start() }()
	select {
	case <-ctx.Done():
		return srv.Close()
	case err := <-errc:
		srv.Close()
		return err
	}
}
