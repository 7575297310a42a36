// Package terminal is lakesql for people without a MySQL client: an
// embedded server (sqlengine with Config.Embedded: no port, in-process
// connections through the same handler chain as MySQL clients) and what
// runs on it:
//
//   - Exec runs a script (lakesql sql -e "…") and prints each result as a
//     table, CSV or JSON (format.go);
//   - Shell is the interactive shell (lakesql shell): line editing and
//     history (github.com/chzyer/readline), statements over several lines
//     until ';', and the \d, \d TABLE, \l, \q helpers;
//   - Load bulk-loads a CSV or TSV file into a table (lakesql load FILE
//     INTO db.t) through LOAD DATA LOCAL INFILE, with a progress bar on a
//     terminal (github.com/schollz/progressbar/v3) and plain progress lines
//     otherwise.
//
// Concurrency: one Session serves one user; its functions are not meant to
// run concurrently.
package terminal
