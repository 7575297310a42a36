package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// ExecOptions say how Exec prints.
type ExecOptions struct {
	// Format of result sets: table (default), csv or json.
	Format string
	// Out receives result sets; Msgs the "N rows in set", "Query OK" and
	// error lines (nil: none of the first two; errors are returned).
	Out, Msgs io.Writer
	// Continue goes on after a failing statement (the shell does; a script
	// stops at the first error, as `mysql -e` does).
	Continue bool
}

// Exec runs the statements of a script one by one on the session's
// connection and prints their results. It returns the first error (or,
// with Continue, the last one).
func (s *Session) Exec(ctx context.Context, script string, o ExecOptions) error {
	stmts, rest := sqlengine.SplitStatements(script)
	if strings.TrimSpace(rest) != "" {
		stmts = append(stmts, strings.TrimSpace(rest))
	}
	var last error
	for _, q := range stmts {
		if err := s.execOne(ctx, q, o); err != nil {
			last = err
			if o.Msgs != nil {
				fmt.Fprintln(o.Msgs, ErrorText(err))
			}
			if !o.Continue {
				return err
			}
		}
	}
	return last
}

// ErrorText formats an error as the mysql client does:
// "ERROR 1146 (42S02): Table 'x' doesn't exist".
func ErrorText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		state := string(me.SQLState[:])
		if me.SQLState == [5]byte{} {
			state = "HY000"
		}
		return fmt.Sprintf("ERROR %d (%s): %s", me.Number, state, me.Message)
	}
	return "ERROR: " + err.Error()
}

func (s *Session) execOne(ctx context.Context, q string, o ExecOptions) error {
	start := time.Now()
	switch sqlengine.StatementKind(q) {
	case sqlengine.KindSelect, sqlengine.KindShow, sqlengine.KindCall, sqlengine.KindOther:
		rows, err := s.conn.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for set := 0; ; set++ {
			cols, err := rows.Columns()
			if err != nil {
				return err
			}
			if len(cols) > 0 {
				n, err := writeRows(o.Out, rows, o.Format)
				if err != nil {
					return err
				}
				if o.Msgs != nil && (o.Format == "" || o.Format == FormatTable) {
					fmt.Fprintf(o.Msgs, "%d %s in set (%s)\n\n", n, plural(n, "row"), elapsed(start))
				}
			} else if o.Msgs != nil {
				fmt.Fprintf(o.Msgs, "Query OK (%s)\n\n", elapsed(start))
			}
			if !rows.NextResultSet() {
				break
			}
		}
		return rows.Err()
	}
	res, err := s.conn.ExecContext(ctx, q)
	if err != nil {
		return err
	}
	if o.Msgs != nil {
		n, _ := res.RowsAffected()
		fmt.Fprintf(o.Msgs, "Query OK, %d %s affected (%s)\n\n", n, plural(int(n), "row"), elapsed(start))
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func elapsed(start time.Time) string {
	return fmt.Sprintf("%.2f sec", time.Since(start).Seconds())
}
