package snapshot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// observeCommit records the outcome of one Commit call: the commit and
// retry counters, the table's retained-snapshot gauge and an info log line
// per published snapshot (a warning for a conflict).
func (c *Committer) observeCommit(ctx context.Context, start time.Time, ch *CommitChanges, s *Snapshot, published bool, attempts int, err error) {
	table := metrics.TableLabel(c.st.URL())
	if !IsMainBranch(c.opts.Branch) {
		table += "$branch_" + c.opts.Branch
	}
	if err != nil {
		if errors.Is(err, ErrConflict) {
			metrics.CommitConflicts.Inc()
			slog.Warn("commit conflict", "table", table, "attempts", attempts, "duration", time.Since(start), "err", err)
		}
		return
	}
	if !published || s == nil {
		return
	}
	kind := s.CommitKind.String()
	metrics.Commits.With(kind).Inc()
	added, deleted := 0, 0
	for i := range ch.Entries {
		if ch.Entries[i].Kind == manifest.FileKindAdd {
			added++
		} else {
			deleted++
		}
	}
	if earliest, ok, err := c.snaps.EarliestID(context.WithoutCancel(ctx)); err == nil && ok && earliest <= s.ID {
		metrics.TableSnapshots.With(table).Set(int64(s.ID - earliest + 1))
	}
	slog.Info("commit", "table", table, "snapshot", int64(s.ID), "kind", kind,
		"files_added", added, "files_deleted", deleted, "attempts", attempts, "duration", time.Since(start))
}
