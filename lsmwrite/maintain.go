package lsmwrite

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// Maintainer runs a table's maintenance after each commit, as Java's
// TableCommitImpl.maintain does (synchronously, snapshot.expire.execution-mode
// sync): expire consumers (consumer.expiration-time), expire snapshots
// (snapshot.num-retained.min/max, snapshot.time-retained,
// snapshot.expire.limit) and the long-lived changelog
// (changelog.num-retained.*, changelog.time-retained), expire partitions
// (partition.expiration-time, at most once per
// partition.expiration-check-interval), create automatic tags
// (tag.automatic-creation, tag.num-retained-max) and expire tags past their
// retention. write-only tables get none of it. One Maintainer serves every
// table of a server and is safe for concurrent use; it remembers, per table
// branch, the partition-expiration clock and the automatic-tag position.
type Maintainer struct {
	// Now is the clock (time.Now when nil); Location the zone of wall-clock
	// times (tag names, partition times, file creation times; time.Local
	// when nil), as Java's system default zone.
	Now      func() time.Time
	Location *time.Location

	mu     sync.Mutex
	tables map[string]*maintainState
}

type maintainState struct {
	mu                 sync.Mutex
	lastPartitionCheck time.Time
	tags               snapshot.TagAutoCreation
	retentions         snapshot.TagRetentions
}

// MaintainResult says what one maintenance run did.
type MaintainResult struct {
	Consumers    int
	Expire       snapshot.ExpireResult
	Partitions   []snapshot.ExpiredPartition
	TagsCreated  []string
	TagsExpired  []string
	PartitionErr error // partition expiration is skipped on a conflict
}

// NewMaintainer returns a Maintainer.
func NewMaintainer() *Maintainer { return &Maintainer{tables: map[string]*maintainState{}} }

func (m *Maintainer) now() time.Time {
	loc := m.Location
	if loc == nil {
		loc = time.Local
	}
	if m.Now != nil {
		return m.Now().In(loc)
	}
	return time.Now().In(loc)
}

func (m *Maintainer) state(tbl *snapshot.Table) *maintainState {
	key := tbl.Storage().URL() + "|" + tbl.BranchName()
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.tables[key]
	if !ok {
		st = &maintainState{lastPartitionCheck: m.now()}
		m.tables[key] = st
	}
	return st
}

// AfterCommit runs the maintenance of tbl (one branch) with the table's
// schema sch. The commit stands whatever happens here; errors are returned
// for the log.
func (m *Maintainer) AfterCommit(ctx context.Context, tbl *snapshot.Table, sch *schema.TableSchema) (MaintainResult, error) {
	var res MaintainResult
	opts, err := sch.Options.Maintenance()
	if err != nil {
		return res, err
	}
	if opts.WriteOnly {
		return res, nil
	}
	st := m.state(tbl)
	st.mu.Lock()
	defer st.mu.Unlock()
	now := m.now()
	if opts.ConsumerExpirationTime != nil {
		if res.Consumers, err = snapshot.NewConsumerManager(tbl.Storage(), tbl.BranchName()).Expire(ctx, now.Add(-*opts.ConsumerExpirationTime)); err != nil {
			return res, err
		}
	}
	core, err := sch.Options.Core()
	if err != nil {
		return res, err
	}
	cfg := snapshot.ExpireConfigFromOptions(opts, core.ChangelogProducer)
	cfg.Now = m.Now
	if res.Expire, err = tbl.ExpireSnapshots(ctx, cfg); err != nil {
		return res, fmt.Errorf("expire snapshots: %w", err)
	}
	if cfg.ChangelogDecoupled {
		cres, err := tbl.ExpireChangelogs(ctx, cfg)
		if err != nil {
			return res, fmt.Errorf("expire changelogs: %w", err)
		}
		res.Expire.Changelogs = cres.Changelogs
		res.Expire.CleanStats.Add(cres.CleanStats)
	}
	if pcfg, ok := snapshot.PartitionExpireConfigFromOptions(&opts); ok && len(sch.PartitionKeys) > 0 &&
		(opts.PartitionExpirationCheckInterval == 0 || now.After(st.lastPartitionCheck.Add(opts.PartitionExpirationCheckInterval))) {
		st.lastPartitionCheck = now
		if res.Partitions, err = ExpirePartitions(ctx, tbl, sch, pcfg, now); err != nil {
			res.PartitionErr = err
		}
	}
	loc := now.Location()
	if res.TagsCreated, err = st.tags.Run(ctx, tbl, &opts, now, loc); err != nil {
		return res, fmt.Errorf("create tags: %w", err)
	}
	if res.TagsExpired, err = tbl.ExpireTags(ctx, now, &st.retentions); err != nil {
		return res, fmt.Errorf("expire tags: %w", err)
	}
	return res, nil
}

// ExpirePartitions drops the partitions expired at now (wall clock) in one
// OVERWRITE snapshot and returns them (Java: PartitionExpire.expire).
func ExpirePartitions(ctx context.Context, tbl *snapshot.Table, sch *schema.TableSchema, cfg snapshot.PartitionExpireConfig, now time.Time) ([]snapshot.ExpiredPartition, error) {
	parts, err := tbl.ExpiredPartitions(ctx, sch, cfg, now)
	if err != nil || len(parts) == 0 {
		return nil, err
	}
	rows := make([][]byte, len(parts))
	for i, p := range parts {
		rows[i] = p.Partition
	}
	if _, err := DropPartitions(ctx, tbl, sch, rows); err != nil {
		return nil, err
	}
	return parts, nil
}

// MaintainAfterCompaction runs the maintenance of tbl after a dedicated
// compaction (lakesql compact, CALL sys.compact) committed, with write-only
// off as Java's compaction job and procedure set it: tables whose writers
// are write-only are expired by their compaction job.
func MaintainAfterCompaction(ctx context.Context, tbl *snapshot.Table) (MaintainResult, error) {
	sch, err := tbl.Schemas().Latest(ctx)
	if err != nil {
		return MaintainResult{}, err
	}
	sch = sch.Copy()
	if sch.Options == nil {
		sch.Options = schema.Options{}
	}
	sch.Options[schema.OptWriteOnly] = "false"
	return NewMaintainer().AfterCommit(ctx, tbl, sch)
}
