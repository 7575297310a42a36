// Package compactjob is the dedicated compaction job (the `lakesql compact`
// command, Java's CompactAction): it compacts one table of a warehouse with
// lsmwrite.Compact, showing progress, while servers keep writing to it
// (tables whose servers leave compaction to the job have 'write-only' =
// 'true'). Each Run is independent; several may run at once (a conflict
// between two compactions of one bucket makes one give way and retry).
package compactjob

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// Usage is the compact command line.
const Usage = "usage: lakesql compact --warehouse PATH-OR-URL --table DB.TABLE [--partition K=V[,K=V...]]... [--full] [--branch NAME] [--option KEY=VALUE]... [--commit-lock file:DIR]"

// ErrHelp is returned after --help printed the usage; the command exits 0.
var ErrHelp = errors.New("help printed")

// UsageError is a wrong command line; the command exits 2.
type UsageError struct{ error }

func (e UsageError) Unwrap() error { return e.error }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// Run compacts one table: a minor compaction by default (each bucket
// compacts what the automatic picker picks), a full one with --full (every
// bucket of a primary-key table to one sorted run on the max level; append
// tables rewrite their small files). --partition (repeatable) limits it to
// partitions; --option KEY=VALUE overrides a table option for this run
// (e.g. target-file-size). Progress goes to progress: a bar on a terminal,
// plain lines otherwise; the result line to w.
func Run(ctx context.Context, w, progress io.Writer, args []string) error {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	warehouse := fs.String("warehouse", "", "warehouse path or URL (file://, s3://)")
	table := fs.String("table", "", "the table, as DB.TABLE")
	full := fs.Bool("full", false, "full compaction: every bucket to one sorted run on the max level")
	branch := fs.String("branch", snapshot.MainBranch, "branch to compact")
	commitLock := fs.String("commit-lock", "none", "the commit lock the warehouse's servers use (needed where the store lacks conditional create): none or file:/path/to/lock-folder")
	lockTimeout := fs.Duration("commit-lock-timeout", storage.DefaultLockTimeout, "longest wait for the commit lock")
	var partitions, options multiFlag
	fs.Var(&partitions, "partition", "compact only this partition, K=V[,K=V...] (repeatable)")
	fs.Var(&options, "option", "table option for this compaction, KEY=VALUE (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(w, Usage)
			fmt.Fprintln(w, "flags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
			return ErrHelp
		}
		return UsageError{fmt.Errorf("compact: %w\n%s", err, Usage)}
	}
	if fs.NArg() > 0 {
		return UsageError{fmt.Errorf("compact: unexpected argument %q (flags are written --name value)\n%s", fs.Arg(0), Usage)}
	}
	if *warehouse == "" || *table == "" {
		return UsageError{fmt.Errorf("compact: --warehouse and --table are required\n%s", Usage)}
	}
	db, name, ok := strings.Cut(*table, ".")
	if !ok || db == "" || name == "" || strings.Contains(name, ".") {
		return UsageError{fmt.Errorf("compact: --table %q: want DB.TABLE\n%s", *table, Usage)}
	}
	req := lsmwrite.CompactRequest{Full: *full, Branch: *branch}
	for _, p := range partitions {
		spec, err := parseSpec(p)
		if err != nil {
			return UsageError{fmt.Errorf("compact: --partition %q: %w\n%s", p, err, Usage)}
		}
		req.Partitions = append(req.Partitions, spec)
	}
	if len(options) > 0 {
		req.Options = map[string]string{}
		for _, o := range options {
			k, v, ok := strings.Cut(o, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return UsageError{fmt.Errorf("compact: --option %q: want KEY=VALUE\n%s", o, Usage)}
			}
			req.Options[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}

	if err := checkLocal(*warehouse); err != nil {
		return err
	}
	if err := storage.CheckLock(*commitLock); err != nil {
		return UsageError{fmt.Errorf("compact: --commit-lock: %w\n%s", err, Usage)}
	}
	raw, err := storage.Open(ctx, *warehouse)
	if err != nil {
		return fmt.Errorf("compact: open warehouse %s: %w", *warehouse, err)
	}
	defer raw.Close()
	// Its commit is atomic only through the store's conditional create or
	// the servers' commit lock.
	st, err := storage.ForCommits(ctx, raw, *commitLock, *lockTimeout)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	cat := snapshot.NewCatalog(st)
	dbName, err := cat.ResolveDatabase(ctx, db)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	tblName, found, err := cat.ResolveTable(ctx, dbName, name)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	if !found {
		return fmt.Errorf("compact: table %s.%s does not exist", dbName, name)
	}
	tbl := snapshot.OpenTable(cat.TableStorage(dbName, tblName), "")
	label := dbName + "." + tblName

	start := time.Now()
	rep := newReporter(progress, label)
	req.Progress = func(done, total int, s lsmwrite.CompactStats) { rep.progress(done, total, s) }
	out, err := lsmwrite.CompactGivingWay(ctx, tbl, req, lsmwrite.CompactAttempts, func(_ int, conflict error) {
		rep.finish()
		fmt.Fprintf(progress, "compact %s: a concurrent commit changed files being compacted; compacting again (%v)\n", label, conflict)
		rep = newReporter(progress, label)
	})
	rep.finish()
	if err != nil {
		return fmt.Errorf("compact %s: %w", label, err)
	}
	if out.Conflict != nil {
		return fmt.Errorf("compact %s: gave way to concurrent commits %d times; try again: %w", label, lsmwrite.CompactAttempts, out.Conflict)
	}
	s := out.Stats
	if out.Snapshot == nil {
		fmt.Fprintf(w, "compact %s: nothing to compact (%s)\n", label, time.Since(start).Round(time.Millisecond))
		return nil
	}
	fmt.Fprintf(w, "compact %s: snapshot %d (COMPACT): %d buckets, %d files replaced by %d (%d moved up a level), read %s in %d rows, wrote %s in %d rows, %s\n",
		label, out.Snapshot.ID, s.Buckets, s.FilesBefore, s.FilesAfter, s.Upgraded, metrics.FormatBytes(s.BytesRead), s.RowsRead,
		metrics.FormatBytes(s.BytesWritten), s.RowsWritten, time.Since(start).Round(time.Millisecond))
	// Like Java's dedicated compaction (write-only off for its own
	// commits), the job runs the table's maintenance after its commit:
	// servers writing a write-only table never expire its snapshots.
	res, err := lsmwrite.MaintainAfterCompaction(ctx, tbl)
	if err != nil {
		return fmt.Errorf("compact %s: the compaction is committed, but maintenance failed: %w", label, err)
	}
	if res.Expire.Snapshots > 0 || len(res.Partitions) > 0 || len(res.TagsCreated)+len(res.TagsExpired) > 0 {
		fmt.Fprintf(w, "compact %s: maintenance: %d snapshots expired (%s freed), %d partitions expired, tags created %v, expired %v\n",
			label, res.Expire.Snapshots, metrics.FormatBytes(res.Expire.BytesFreed), len(res.Partitions), res.TagsCreated, res.TagsExpired)
	}
	return nil
}

// parseSpec parses K=V[,K=V...].
func parseSpec(s string) (map[string]string, error) {
	spec := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("want K=V[,K=V...]")
		}
		spec[strings.TrimSpace(k)] = v
	}
	return spec, nil
}

// checkLocal refuses a local warehouse folder that does not exist
// (storage.Open would create it).
func checkLocal(loc string) error {
	if strings.Contains(loc, "://") && !strings.HasPrefix(loc, "file://") {
		return nil
	}
	p := strings.TrimPrefix(loc, "file://")
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("compact: warehouse %s does not exist", loc)
	case err != nil:
		return fmt.Errorf("compact: warehouse %s: %w", loc, err)
	case !st.IsDir():
		return fmt.Errorf("compact: warehouse %s is not a directory", loc)
	}
	return nil
}

// reporter shows the progress of one compaction: a bar of buckets on a
// terminal, otherwise a line per bucket at most every second (and the
// last).
type reporter struct {
	w     io.Writer
	label string
	tty   bool
	bar   *progressbar.ProgressBar
	last  time.Time
}

func newReporter(w io.Writer, label string) *reporter {
	r := &reporter{w: w, label: label}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r.tty = true
	}
	return r
}

func (r *reporter) progress(done, total int, s lsmwrite.CompactStats) {
	if r.tty {
		if r.bar == nil {
			r.bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(r.w),
				progressbar.OptionSetDescription("compact "+r.label),
				progressbar.OptionShowCount(),
				progressbar.OptionSetItsString("buckets"),
				progressbar.OptionShowIts(),
				progressbar.OptionClearOnFinish(),
			)
		}
		_ = r.bar.Set(done)
		return
	}
	if done == 0 {
		fmt.Fprintf(r.w, "compact %s: %d buckets to look at\n", r.label, total)
		r.last = time.Now()
		return
	}
	if done == total || time.Since(r.last) >= time.Second {
		fmt.Fprintf(r.w, "compact %s: %d/%d buckets, %d compacted, %s read, %s written\n",
			r.label, done, total, s.Buckets, metrics.FormatBytes(s.BytesRead), metrics.FormatBytes(s.BytesWritten))
		r.last = time.Now()
	}
}

func (r *reporter) finish() {
	if r.bar != nil {
		_ = r.bar.Finish()
	}
}
