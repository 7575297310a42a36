package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/chzyer/readline"

	"github.com/lakesql/lakesql/sqlengine"
)

// ShellOptions configure the interactive shell.
type ShellOptions struct {
	// In, Out and Err are the terminal (os.Stdin, os.Stdout, os.Stderr).
	In       io.ReadCloser
	Out, Err io.Writer
	// HistoryFile keeps the history between sessions ("" keeps none).
	HistoryFile string
	// Format of result sets (table by default).
	Format string
}

const (
	prompt     = "lakesql> "
	morePrompt = "      -> "
)

const shellHelp = `Statements end with ';' and may span lines. Helpers:
  \l          list databases (SHOW DATABASES)
  \d          list the tables of the current database (SHOW TABLES)
  \d TABLE    describe a table (DESCRIBE TABLE)
  \c          discard the statement being typed (also Ctrl-C)
  \q          quit (also Ctrl-D)
  \?          this help
Ctrl-C discards the statement being typed.
`

// Shell runs the interactive shell until \q or end of input.
func (s *Session) Shell(ctx context.Context, o ShellOptions) error {
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          prompt,
		HistoryFile:     o.HistoryFile,
		InterruptPrompt: "^C",
		EOFPrompt:       "\\q",
		Stdin:           o.In,
		Stdout:          o.Out,
		Stderr:          o.Err,
	})
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	defer rl.Close()
	eo := ExecOptions{Format: o.Format, Out: rl.Stdout(), Msgs: rl.Stdout(), Continue: true}
	fmt.Fprintln(rl.Stdout(), `lakesql shell: statements end with ';'; \? for help, \q to quit.`)
	var buf strings.Builder
	for {
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			buf.Reset()
			rl.SetPrompt(prompt)
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("terminal: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), `\`); ok {
			// Helpers work on any line, as the mysql client's do; \c
			// discards the statement being typed.
			if strings.TrimSpace(cmd) == "c" {
				buf.Reset()
				rl.SetPrompt(prompt)
				continue
			}
			quit, err := s.helper(ctx, cmd, eo)
			if err != nil {
				fmt.Fprintln(rl.Stdout(), ErrorText(err))
			}
			if quit {
				return nil
			}
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		stmts, rest := sqlengine.SplitStatements(buf.String())
		for _, q := range stmts {
			_ = s.Exec(ctx, q, eo) // errors are printed; the shell goes on
		}
		buf.Reset()
		if strings.TrimSpace(rest) != "" {
			buf.WriteString(rest)
			rl.SetPrompt(morePrompt)
		} else {
			rl.SetPrompt(prompt)
		}
	}
}

// helper runs a backslash command; quit is true for \q.
func (s *Session) helper(ctx context.Context, cmd string, eo ExecOptions) (quit bool, err error) {
	cmd = strings.TrimSuffix(strings.TrimSpace(cmd), ";")
	name, arg, _ := strings.Cut(cmd, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "q", "quit":
		return true, nil
	case "?", "h", "help":
		_, err := io.WriteString(eo.Out, shellHelp)
		return false, err
	case "l":
		return false, s.Exec(ctx, "SHOW DATABASES", eo)
	case "d":
		if arg == "" {
			return false, s.Exec(ctx, "SHOW TABLES", eo)
		}
		return false, s.Exec(ctx, "DESCRIBE "+quoteName(arg), eo)
	}
	return false, fmt.Errorf(`unknown command \%s (\? lists the commands)`, name)
}

// quoteName backquotes each part of a possibly qualified name (db.t),
// unless it is quoted already.
func quoteName(n string) string {
	if strings.Contains(n, "`") {
		return n
	}
	parts := strings.Split(n, ".")
	for i, p := range parts {
		parts[i] = "`" + p + "`"
	}
	return strings.Join(parts, ".")
}
