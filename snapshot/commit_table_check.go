package snapshot

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// A commit and a DROP TABLE of the same table race safely, in one process
// or several: the drop deletes schema/ first and then lists and deletes
// everything else (Catalog.DropTable); a commit checks, just before it
// publishes the snapshot (its metadata written) and again after it
// published the snapshot and its hints, that the schema it wrote with is
// still there (checkTable). When the
// check after publishing finds the schema, the schema was deleted after
// everything the commit wrote, so the drop's listing saw and deleted it;
// when it does not, the commit deletes its snapshot and metadata files
// itself (unpublish) and fails with ErrTableDropped, and its caller
// removes the data files. A table dropped and created again has a new
// schema-0 (another timeMillis): a commit written for the old one fails
// the same way instead of publishing into the new table.

// checkTable fails with ErrTableDropped when schema id of the branch is
// gone, or (CommitOptions.SchemaTimeMillis set) is another table's.
func (c *Committer) checkTable(ctx context.Context, id schema.SchemaID) error {
	return checkTableIdentity(ctx, c.st, c.schemas.Path(id), id, c.opts.SchemaTimeMillis)
}

// CheckTableIdentity fails with ErrTableDropped when schema id of the
// table st's branch is gone, or, when timeMillis is not 0, is another
// table's (the table was dropped and created again: its schema-<id> has
// another timeMillis). A multi-table commit checks every table with it
// before it commits the first. It reads the schema file afresh: the schema
// manager's cache would hide a drop.
func CheckTableIdentity(ctx context.Context, st storage.Storage, branch string, id schema.SchemaID, timeMillis int64) error {
	return checkTableIdentity(ctx, st, NewSchemaManager(st, branch).Path(id), id, timeMillis)
}

func checkTableIdentity(ctx context.Context, st storage.Storage, p string, id schema.SchemaID, timeMillis int64) error {
	data, err := st.ReadAll(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("%w (schema %d is gone)", ErrTableDropped, id)
	}
	if err != nil {
		return fmt.Errorf("snapshot: commit: check the table: %w", err)
	}
	if timeMillis == 0 {
		return nil
	}
	ts, err := schema.DecodeTableSchema(data)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, p, err)
	}
	if ts.TimeMillis != timeMillis {
		return fmt.Errorf("%w (schema %d is another table's: the table was created again)", ErrTableDropped, id)
	}
	return nil
}

// unpublish takes back a published snapshot of a table dropped meanwhile:
// the snapshot file, the LATEST hint when it names the snapshot, and the
// metadata files the attempt wrote. Best effort: what stays is
// unreferenced.
//
// The snapshot file is deleted only while it is this commit's: the drop
// deleted it with the table, and the table created again under the name
// may have committed its own snapshot of that id since (issue 12).
func (p *commitPlan) unpublish(ctx context.Context, s *Snapshot) {
	ctx = context.WithoutCancel(ctx)
	c := p.c
	if ours, err := c.isOwnSnapshot(ctx, s); err == nil && ours {
		_ = c.st.Delete(ctx, c.snaps.Path(s.ID))
	} else {
		// Another table's now, or unreadable: the hints name the id
		// of that table's snapshot, and stay.
		if p.published != nil {
			p.published.cleanup(ctx)
			p.published = nil
		}
		return
	}
	for _, h := range []string{LatestHint, EarliestHint} {
		hp := HintPath(c.opts.Branch, h)
		if data, err := c.st.ReadAll(ctx, hp); err == nil && string(data) == s.ID.String() {
			_ = c.st.Delete(ctx, hp)
		}
	}
	if p.published != nil {
		p.published.cleanup(ctx)
		p.published = nil
	}
}

// isOwnSnapshot says snapshot file s.ID holds s (its commit user,
// identifier and time): a missing one is not.
func (c *Committer) isOwnSnapshot(ctx context.Context, s *Snapshot) (bool, error) {
	data, err := c.st.ReadAll(ctx, c.snaps.Path(s.ID))
	if errors.Is(err, storage.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	got, err := DecodeSnapshot(data)
	if err != nil {
		return false, err
	}
	return got.CommitUser == s.CommitUser && got.CommitIdentifier == s.CommitIdentifier && got.TimeMillis == s.TimeMillis, nil
}
