package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"strings"

	"github.com/lakesql/lakesql/sqlengine/access"
)

// user runs `lakesql user add`.
func user(ctx context.Context, out io.Writer, args []string) error {
	if len(args) == 0 || args[0] != "add" {
		return errors.New("usage: " + userUsage)
	}
	fs := flag.NewFlagSet("user add", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "./warehouse", "warehouse path or URL")
	usersFile := fs.String("users-file", "", "the accounts file the server uses with --users-file")
	commitLock := fs.String("commit-lock", "none", "the commit lock the warehouse's servers use (needed where the store lacks conditional create): none or file:/path/to/lock-folder")
	password := fs.String("password", "", "the password (required; '-' reads it from the first line of standard input; hashed as mysql_native_password)")
	host := fs.String("host", "%", "the host part of the account ('%': any host)")
	admin := fs.Bool("admin", false, "grant every privilege WITH GRANT OPTION")
	replace := fs.Bool("replace", false, "change an existing account's password and privileges")
	// NAME may come before or after the flags.
	rest := args[1:]
	var name string
	if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		name, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() != 0 {
		return fmt.Errorf("user add: unexpected arguments %v", fs.Args())
	}
	if name == "" {
		return errors.New("user add: give the user NAME")
	}
	if *password == "-" {
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("user add: reading the password from standard input: %w", err)
		}
		*password = strings.TrimRight(line, "\r\n")
	}
	if *password == "" {
		return errors.New("user add: --password is required (an account without a password is what the defaults already give root@localhost)")
	}
	store, closeStore, err := access.OpenStore(ctx, *warehouse, *usersFile, *commitLock)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := access.AddUser(ctx, store, name, *host, *password, *admin, *replace); err != nil {
		return err
	}
	kind := "without privileges (GRANT them as an administrator)"
	if *admin {
		kind = "with every privilege"
	}
	fmt.Fprintf(out, "created '%s'@'%s' %s in %s\n", name, *host, kind, store)
	return nil
}

const userUsage = "lakesql user add NAME --password PASSWORD [--host %] [--admin] [--replace] [--warehouse PATH-OR-URL [--commit-lock file:DIR] | --users-file FILE]"
