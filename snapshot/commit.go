package snapshot

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// CommitChanges is what one transaction commits to one table (Java: a
// ManifestCommittable whose CommitMessages are merged, as
// FileStoreCommitImpl.collectChanges does).
type CommitChanges struct {
	// Kind is CommitKindAppend (only ADDs), CommitKindOverwrite or
	// CommitKindCompact. An APPEND with DELETE entries or deletion-vector
	// index changes is committed as OVERWRITE, as Java does; so is any
	// commit with OverwritePartitions.
	Kind CommitKind
	// Entries ADD new data files and DELETE removed ones (a DELETE carries
	// the full DataFileMeta of the removed file).
	Entries []manifest.ManifestEntry
	// IndexChanges ADD and DELETE index files (DELETION_VECTORS, HASH).
	IndexChanges []manifest.IndexManifestEntry
	// ChangelogEntries are the changelog files of this commit (may be empty).
	ChangelogEntries []manifest.ManifestEntry
	// CommitUser identifies the writer; it must be unique per concurrent
	// writer (a fresh UUID per batch statement), since a retry recognizes
	// its own earlier success by (CommitUser, CommitIdentifier, Kind).
	CommitUser string
	// CommitIdentifier is BatchCommitIdentifier for SQL statements.
	CommitIdentifier int64
	// Properties are the snapshot properties; empty is written as absent.
	Properties map[string]string
	// OverwritePartitions, when non-nil, makes the commit an INSERT
	// OVERWRITE: every live file (and index file) of these partitions
	// (serialized BinaryRow bytes) in the base snapshot is deleted first.
	// An empty non-nil slice means the whole table. DELETE entries in
	// Entries for files the overwrite deletes anyway are dropped.
	OverwritePartitions [][]byte
	// Watermark is the input watermark, if any; the snapshot gets the max
	// of it and the previous snapshot's.
	Watermark *int64
	// Durable, when set, waits until the files the entries add are durable
	// (their fsyncs run in the background, storage.CloseDeferred): the
	// commit calls it, while its own metadata files are written, before
	// it publishes the snapshot. It may be called more than once. It is
	// not part of a transaction record (TxRecord): a record is written
	// only once its tables' Durable returned.
	Durable func(ctx context.Context) error `json:"-"`
}

// CommitOptions configure a Committer. Zero values mean Paimon's defaults.
type CommitOptions struct {
	// Branch is the branch committed to ("" or MainBranch for main).
	Branch string
	// PartitionTypes are the partition column types, for the
	// _PARTITION_STATS of manifest-list records. nil: read from the schema
	// given to Commit; a non-nil empty slice: the table is unpartitioned.
	PartitionTypes []schema.DataType
	// KeyTypes are the trimmed primary-key types, for the LSM key-range
	// conflict check. nil: from the schema given to Commit (no check for
	// append tables, or when PartitionTypes is set and the schema cannot
	// be read).
	KeyTypes []schema.DataType
	// ManifestCodec is the Avro codec (manifest.compression; zstd when
	// empty).
	ManifestCodec manifest.Codec
	// MaxRetries is commit.max-retries: attempts after a lost race before
	// giving up (0: 10; negative: no retry).
	MaxRetries int
	// MinRetryWait and MaxRetryWait bound the jittered exponential sleep
	// between attempts (commit.min-retry-wait 10ms, commit.max-retry-wait
	// 10s).
	MinRetryWait, MaxRetryWait time.Duration
	// ManifestTargetSize is manifest.target-file-size (8 MiB).
	ManifestTargetSize int64
	// ManifestMergeMinCount is manifest.merge-min-count (30).
	ManifestMergeMinCount int
	// ManifestFullCompactionSize is
	// manifest.full-compaction-threshold-size (16 MiB).
	ManifestFullCompactionSize int64
	// Now is the clock for timeMillis (tests); time.Now when nil.
	Now func() time.Time
	// BucketUnaware selects the index-manifest combination rule of
	// bucket-unaware tables (deletion vectors keyed by index file name).
	BucketUnaware bool
	// SchemaTimeMillis is the timeMillis of the schema the changes were
	// written with, when known: a commit then also fails with
	// ErrTableDropped when schema-<id> is another table's (the table was
	// dropped and created again). Without it only a missing schema file
	// fails the commit.
	SchemaTimeMillis int64
}

// Defaults of the commit options (CoreOptions).
const (
	DefaultCommitMaxRetries           = 10
	DefaultCommitMinRetryWait         = 10 * time.Millisecond
	DefaultCommitMaxRetryWait         = 10 * time.Second
	DefaultManifestTargetSize         = 8 << 20
	DefaultManifestMergeMinCount      = 30
	DefaultManifestFullCompactionSize = 16 << 20
)

// Committer commits changes to one branch of a table (Java:
// FileStoreCommitImpl), following the commit contract in the package doc.
// It holds no per-commit state and is safe for concurrent use; several
// Committers (in several processes) may commit to one table at once.
type Committer struct {
	st       storage.Storage
	opts     CommitOptions
	snaps    *SnapshotManager
	schemas  *SchemaManager
	paths    *manifest.PathFactory
	writeOps []manifest.WriteOption
}

// NewCommitter returns a committer for the table rooted at st.
func NewCommitter(st storage.Storage, opts CommitOptions) *Committer {
	if IsMainBranch(opts.Branch) {
		opts.Branch = MainBranch
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultCommitMaxRetries
	}
	if opts.MinRetryWait <= 0 {
		opts.MinRetryWait = DefaultCommitMinRetryWait
	}
	if opts.MaxRetryWait <= 0 {
		opts.MaxRetryWait = DefaultCommitMaxRetryWait
	}
	opts.MaxRetryWait = max(opts.MaxRetryWait, opts.MinRetryWait)
	if opts.ManifestTargetSize <= 0 {
		opts.ManifestTargetSize = DefaultManifestTargetSize
	}
	if opts.ManifestMergeMinCount <= 0 {
		opts.ManifestMergeMinCount = DefaultManifestMergeMinCount
	}
	if opts.ManifestFullCompactionSize <= 0 {
		opts.ManifestFullCompactionSize = DefaultManifestFullCompactionSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Committer{
		st:      st,
		opts:    opts,
		snaps:   NewSnapshotManager(st, opts.Branch),
		schemas: NewSchemaManager(st, opts.Branch),
		paths:   manifest.NewPathFactory(),
	}
	if opts.ManifestCodec != "" {
		c.writeOps = append(c.writeOps, manifest.WithCodec(opts.ManifestCodec))
	}
	return c
}

// errLostRace: snapshot-N existed already; the attempt's files were removed.
var errLostRace = errors.New("snapshot: lost the race for the snapshot id")

// uncertainError: publishing failed in a way that may or may not have
// created the snapshot; the attempt's files stay.
type uncertainError struct{ err error }

func (e *uncertainError) Error() string { return e.err.Error() }
func (e *uncertainError) Unwrap() error { return e.err }

// Commit writes the manifests, manifest lists, index manifest and snapshot
// N+1 of changes and publishes the snapshot atomically
// (Storage.CreateIfNotExists of snapshot/snapshot-N+1). It returns the new
// snapshot. It is CommitEach with changes that apply to any base.
//
// A lost race (another writer published N+1 first) is retried on the new
// latest snapshot, re-planning the overwrite deletions, the conflict check
// and the base manifest list, after a jittered sleep; up to
// CommitOptions.MaxRetries times, after which the error wraps ErrConflict.
// Before a retry it returns the snapshot an earlier attempt published, if
// any (same CommitUser, CommitIdentifier and kind).
//
// A real conflict (a DELETE of a file that is no longer live, a file added
// twice, overlapping key ranges in a (partition, bucket, level >= 1), a
// changed bucket count) fails with an error wrapping ErrConflict before
// anything is written. Empty changes produce no snapshot: Commit returns
// the latest snapshot (nil when there is none) and a nil error.
//
// schemaID is the schema the changes were written with; it gives the
// partition and key types when CommitOptions leave them nil. The snapshot
// records the latest schema id of the branch (at least schemaID).
func (c *Committer) Commit(ctx context.Context, schemaID schema.SchemaID, changes *CommitChanges) (*Snapshot, error) {
	if changes == nil {
		return nil, errors.New("snapshot: commit: nil changes")
	}
	return c.CommitEach(ctx, schemaID, func(context.Context, *Snapshot) (*CommitChanges, error) { return changes, nil })
}

// Prepare returns the changes to commit on latest, the snapshot an attempt
// builds on (nil for an empty table): the same *CommitChanges as for the
// previous attempt when they still apply to latest, or new ones (the caller
// wrote its files again for this base, and removes the files of the
// changes it replaced). An error aborts the commit. A transaction also
// checks here that nothing it read changed up to latest: the attempt then
// publishes latest+1 atomically, so no commit can slip in between.
type Prepare func(ctx context.Context, latest *Snapshot) (*CommitChanges, error)

// CommitEach is the one commit loop: before every attempt it asks prepare
// for the changes to commit on the latest snapshot, then tries to publish
// them as latest+1, retrying lost races as Commit describes. Changes keep
// their CommitUser, CommitIdentifier and kind across attempts (an earlier
// attempt's success is recognized by them). When the first attempt's
// changes are empty, no snapshot is made and the latest one is returned.
func (c *Committer) CommitEach(ctx context.Context, schemaID schema.SchemaID, prepare Prepare) (s *Snapshot, err error) {
	start, attempts, published := time.Now(), 0, false
	var (
		changes   *CommitChanges
		kind      CommitKind
		plan      *commitPlan
		checkFrom SnapshotID // first id an earlier attempt could have published
		lastErr   error
	)
	defer func() { c.observeCommit(ctx, start, changes, s, published, attempts, err) }() // commit_observe.go
	for attempt := 0; ; attempt++ {
		attempts = attempt + 1
		if attempt > 0 {
			metrics.CommitRetries.Inc()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// One attempt, under the table's commit lock (commit_lock.go):
		// writers of this process take turns instead of racing.
		done, s, err := func() (bool, *Snapshot, error) {
			unlock := lockCommits(ctx, CommitLockKey(c.st, c.opts.Branch))
			defer unlock()
			latest, err := c.snaps.Latest(ctx)
			if errors.Is(err, ErrSnapshotNotFound) {
				latest, err = nil, nil
			}
			if err != nil {
				return true, nil, fmt.Errorf("snapshot: commit: %w", err)
			}
			if attempt > 0 {
				s, err := c.findCommitted(ctx, checkFrom, latest, changes, kind)
				if err != nil || s != nil {
					published = s != nil
					return true, s, err
				}
			}
			if checkFrom == 0 {
				checkFrom = FirstSnapshotID
				if latest != nil {
					checkFrom = latest.ID + 1
				}
			}
			next, err := prepare(ctx, latest)
			if err != nil {
				return true, nil, err
			}
			if next == nil {
				return true, nil, errors.New("snapshot: commit: nil changes")
			}
			if next != changes {
				if changes != nil && (next.CommitUser != changes.CommitUser || next.CommitIdentifier != changes.CommitIdentifier) {
					return true, nil, errors.New("snapshot: commit: prepared changes of another commit user or identifier")
				}
				if kind, err = effectiveKind(next); err != nil {
					return true, nil, err
				}
				if attempt == 0 && len(next.Entries) == 0 && len(next.IndexChanges) == 0 &&
					len(next.ChangelogEntries) == 0 && next.OverwritePartitions == nil {
					return true, latest, nil
				}
				if err := validateEntries(next); err != nil {
					return true, nil, err
				}
				if plan, err = c.newPlan(ctx, schemaID, next, kind); err != nil {
					return true, nil, err
				}
				changes = next
			}
			s, err := plan.tryCommitOnce(ctx, latest)
			if err == nil {
				c.writeHints(ctx, s)
				// A DROP TABLE (of any process) deletes schema/ before
				// listing what to delete: when the schema is still here
				// now, the drop lists everything this commit wrote;
				// when it is not, the commit takes its files back.
				if err := c.checkTable(ctx, schemaID); err != nil {
					plan.unpublish(ctx, s)
					return true, nil, err
				}
				published = true
				return true, s, nil
			}
			var uncertain *uncertainError
			if !errors.Is(err, errLostRace) && !errors.As(err, &uncertain) {
				return true, nil, err
			}
			return false, nil, err
		}()
		if done {
			return s, err
		}
		lastErr = err
		if attempt >= c.opts.MaxRetries {
			return nil, fmt.Errorf("%w: commit by user %s (identifier %d, kind %v) failed after %d attempts: %w",
				ErrConflict, changes.CommitUser, changes.CommitIdentifier, kind, attempt+1, lastErr)
		}
		if err := c.sleep(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// effectiveKind is the kind the snapshot records (Java: commit upgrades an
// APPEND with deletions or DV changes to OVERWRITE).
func effectiveKind(ch *CommitChanges) (CommitKind, error) {
	switch ch.Kind {
	case CommitKindAppend, CommitKindOverwrite:
	case CommitKindCompact:
		if ch.OverwritePartitions != nil {
			return 0, errors.New("snapshot: commit: a COMPACT commit cannot overwrite partitions")
		}
		return CommitKindCompact, nil
	default:
		return 0, fmt.Errorf("snapshot: commit: unsupported commit kind %v", ch.Kind)
	}
	if ch.Kind == CommitKindOverwrite || ch.OverwritePartitions != nil {
		return CommitKindOverwrite, nil
	}
	for i := range ch.Entries {
		if ch.Entries[i].Kind == manifest.FileKindDelete {
			return CommitKindOverwrite, nil
		}
	}
	for i := range ch.IndexChanges {
		if ch.IndexChanges[i].IndexFile.IndexType == manifest.IndexTypeDeletionVectors {
			return CommitKindOverwrite, nil
		}
	}
	return CommitKindAppend, nil
}

func validateEntries(ch *CommitChanges) error {
	for i := range ch.Entries {
		e := &ch.Entries[i]
		if e.Kind != manifest.FileKindAdd && e.Kind != manifest.FileKindDelete {
			return fmt.Errorf("snapshot: commit: entry for %s has %v", e.File.FileName, e.Kind)
		}
		if e.File.FileName == "" {
			return errors.New("snapshot: commit: entry without a file name")
		}
	}
	for i := range ch.ChangelogEntries {
		if ch.ChangelogEntries[i].Kind != manifest.FileKindAdd {
			return fmt.Errorf("snapshot: commit: changelog entry for %s is not an ADD", ch.ChangelogEntries[i].File.FileName)
		}
	}
	for i := range ch.IndexChanges {
		e := &ch.IndexChanges[i]
		if e.Kind != manifest.FileKindAdd && e.Kind != manifest.FileKindDelete {
			return fmt.Errorf("snapshot: commit: index entry for %s has %v", e.IndexFile.FileName, e.Kind)
		}
	}
	return nil
}

// findCommitted looks for a snapshot in [from, latest] published by an
// earlier attempt of this commit.
func (c *Committer) findCommitted(ctx context.Context, from SnapshotID, latest *Snapshot, ch *CommitChanges, kind CommitKind) (*Snapshot, error) {
	if latest == nil || from == 0 {
		return nil, nil
	}
	for id := from; id <= latest.ID; id++ {
		s := latest
		if id != latest.ID {
			var err error
			s, err = c.snaps.read(ctx, id)
			if errors.Is(err, storage.ErrNotExist) {
				continue // expired meanwhile
			}
			if err != nil {
				return nil, fmt.Errorf("snapshot: commit: check earlier attempts: %w", err)
			}
		}
		if s.CommitUser == ch.CommitUser && s.CommitIdentifier == ch.CommitIdentifier && s.CommitKind == kind {
			return s, nil
		}
	}
	return nil, nil
}

// sleep waits before retry attempt+1: exponential from MinRetryWait,
// capped at MaxRetryWait, with jitter (Java: RetryWaiter).
func (c *Committer) sleep(ctx context.Context, attempt int) error {
	d := c.opts.MinRetryWait << min(attempt, 20)
	if d <= 0 || d > c.opts.MaxRetryWait {
		d = c.opts.MaxRetryWait
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// writeHints rewrites LATEST (and EARLIEST for the first snapshot), best
// effort and without fsync (Java's HintFileUtils overwrites them without
// one too): readers never trust hints blindly.
func (c *Committer) writeHints(ctx context.Context, s *Snapshot) {
	ctx = context.WithoutCancel(ctx)
	_ = storage.WriteAllVolatile(ctx, c.st, HintPath(c.opts.Branch, LatestHint), []byte(s.ID.String()))
	if s.ID == FirstSnapshotID {
		_ = storage.WriteAllVolatile(ctx, c.st, HintPath(c.opts.Branch, EarliestHint), []byte(s.ID.String()))
	}
}
