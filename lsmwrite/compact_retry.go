package lsmwrite

import (
	"context"

	"github.com/lakesql/lakesql/snapshot"
)

// CompactAttempts bounds how often an explicit compaction (CALL
// sys.compact, lakesql compact) compacts again after giving way to a
// concurrent commit, such as the server's own automatic compaction of the
// same files.
const CompactAttempts = 3

// CompactGivingWay runs Compact up to attempts times while it gives way to
// concurrent commits (the outcome's Conflict), each time at the then latest
// snapshot; retrying, when set, is called before each new attempt with the
// conflict that ended the previous one. The last outcome is returned: its
// Conflict is set only when every attempt gave way.
func CompactGivingWay(ctx context.Context, tbl *snapshot.Table, req CompactRequest, attempts int, retrying func(attempt int, conflict error)) (*CompactOutcome, error) {
	for attempt := 1; ; attempt++ {
		out, err := Compact(ctx, tbl, req)
		if err != nil || out.Conflict == nil || attempt >= attempts {
			return out, err
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if retrying != nil {
			retrying(attempt+1, out.Conflict)
		}
	}
}
