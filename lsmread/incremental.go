package lsmread

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// IncrementalMode is Paimon's incremental-between-scan-mode: what an
// incremental read between two snapshots returns.
type IncrementalMode uint8

const (
	// IncrementalAuto reads the changelog when the table has a changelog
	// producer, else the delta.
	IncrementalAuto IncrementalMode = iota
	// IncrementalDelta reads the records the APPEND snapshots of the range
	// wrote to their data files, as written (Java ScanMode.DELTA).
	IncrementalDelta
	// IncrementalChangelog reads the changelog files of the snapshots of
	// the range (Java ScanMode.CHANGELOG; OVERWRITE snapshots are skipped).
	IncrementalChangelog
	// IncrementalDiff compares the merged rows of the two snapshots
	// (Java IncrementalDiffSplitRead): -D for a key that is gone, the new
	// record (its own row kind) for a key that is new or changed.
	IncrementalDiff
)

var incrementalModeNames = [...]string{"auto", "delta", "changelog", "diff"}

func (m IncrementalMode) String() string {
	if int(m) < len(incrementalModeNames) {
		return incrementalModeNames[m]
	}
	return fmt.Sprintf("IncrementalMode(%d)", uint8(m))
}

// ParseIncrementalMode parses a value of incremental-between-scan-mode
// (case-insensitive).
func ParseIncrementalMode(s string) (IncrementalMode, error) {
	for i, n := range incrementalModeNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return IncrementalMode(i), nil
		}
	}
	return 0, fmt.Errorf("%w: incremental-between-scan-mode %q is not one of auto, delta, changelog, diff", ErrInvalidRange, s)
}

// Incremental asks for the changes between two points of a table (Java's
// incremental-between and incremental-between-timestamp): after the start,
// up to and including the end. Exactly one pair is used: two tags (compared
// as a diff, as Java does), two timestamps (each naming the latest snapshot
// at or before it), or two snapshot ids (After may be 0: from the first
// snapshot on).
type Incremental struct {
	After, Upto            snapshot.SnapshotID
	StartTag, EndTag       string
	StartMillis, EndMillis *int64
	Mode                   IncrementalMode
}

// incrementalRange is an Incremental resolved against the table.
type incrementalRange struct {
	after, upto snapshot.SnapshotID
	mode        IncrementalMode
	// before and end are the compared snapshots of a diff (end also for the
	// other modes: the snapshot the read reports).
	before, end *snapshot.Snapshot
	empty       bool
}

func (inc Incremental) check() error {
	tags := inc.StartTag != "" || inc.EndTag != ""
	times := inc.StartMillis != nil || inc.EndMillis != nil
	switch {
	case tags && times, tags && (inc.After != 0 || inc.Upto != 0), times && (inc.After != 0 || inc.Upto != 0):
		return fmt.Errorf("%w: an incremental read takes two snapshot ids, two tags or two timestamps", ErrInvalidRange)
	case tags && (inc.StartTag == "" || inc.EndTag == ""), times && (inc.StartMillis == nil || inc.EndMillis == nil):
		return fmt.Errorf("%w: an incremental read needs a start and an end", ErrInvalidRange)
	}
	return nil
}

// resolveIncremental resolves inc (Java AbstractDataTableScan
// .createIncrementalStartingScanner).
func (t *Table) resolveIncremental(ctx context.Context, inc Incremental, core *schema.CoreOptions) (*incrementalRange, error) {
	if err := inc.check(); err != nil {
		return nil, err
	}
	mode := inc.Mode
	if mode == IncrementalAuto {
		mode = IncrementalDelta
		if core.ChangelogProducer != schema.ChangelogProducerNone {
			mode = IncrementalChangelog
		}
	}
	r := &incrementalRange{mode: mode}
	switch {
	case inc.StartTag != "":
		before, err := t.ResolveSnapshot(ctx, TimeTravel{Tag: inc.StartTag})
		if err != nil {
			return nil, err
		}
		end, err := t.ResolveSnapshot(ctx, TimeTravel{Tag: inc.EndTag})
		if err != nil {
			return nil, err
		}
		r.mode, r.before, r.end, r.after, r.upto = IncrementalDiff, before, end, before.ID, end.ID
		return r, nil
	case inc.StartMillis != nil:
		start, end := *inc.StartMillis, *inc.EndMillis
		if end < start {
			return nil, fmt.Errorf("%w: the ending timestamp is before the starting timestamp", ErrInvalidRange)
		}
		earliest, err := t.snapshots.Earliest(ctx)
		if errors.Is(err, snapshot.ErrSnapshotNotFound) {
			r.empty = true
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		latest, err := t.snapshots.Latest(ctx)
		if err != nil {
			return nil, err
		}
		r.end = latest
		if start == end || start > latest.TimeMillis || end < earliest.TimeMillis {
			r.empty = true
			return r, nil
		}
		r.after = earliest.ID - 1
		if earliest.TimeMillis <= start {
			s, err := t.snapshots.EarlierOrEqualTime(ctx, start)
			if err != nil {
				return nil, err
			}
			r.after = s.ID
		}
		r.upto = latest.ID
		if e, err := t.snapshots.EarlierOrEqualTime(ctx, end); err == nil {
			r.upto = e.ID
		} else if !errors.Is(err, snapshot.ErrSnapshotNotFound) {
			return nil, err
		}
	default:
		r.after, r.upto = inc.After, inc.Upto
		if r.upto < r.after {
			return nil, fmt.Errorf("%w: the ending snapshot %d is before the starting snapshot %d", ErrInvalidRange, r.upto, r.after)
		}
		earliest, okE, err := t.snapshots.EarliestID(ctx)
		if err != nil {
			return nil, err
		}
		latest, okL, err := t.snapshots.LatestID(ctx)
		if err != nil {
			return nil, err
		}
		if !okE || !okL {
			r.empty = true
			return r, nil
		}
		if r.after < earliest-1 || r.upto > latest {
			return nil, fmt.Errorf("%w: snapshot range (%d, %d] is outside the available snapshots [%d, %d]",
				ErrInvalidRange, r.after, r.upto, earliest, latest)
		}
	}
	if r.upto > 0 {
		end, err := t.snapshots.Snapshot(ctx, r.upto)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		r.end = end
	}
	if r.after == r.upto {
		r.empty = true
		return r, nil
	}
	if r.mode == IncrementalDiff && r.after > 0 {
		before, err := t.snapshots.Snapshot(ctx, r.after)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		r.before = before
	}
	return r, nil
}

// incrementalLists are the manifest lists a delta or changelog read goes
// through, oldest snapshot first.
func (p *Plan) incrementalLists(ctx context.Context) ([]string, error) {
	r := p.inc
	lists := []string{}
	for id := r.after + 1; id <= r.upto; id++ {
		s, err := p.Table.snapshots.Snapshot(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
		}
		switch r.mode {
		case IncrementalDelta:
			if s.CommitKind == snapshot.CommitKindAppend {
				lists = append(lists, s.DeltaManifestList)
			}
		case IncrementalChangelog:
			if s.CommitKind != snapshot.CommitKindOverwrite && s.ChangelogManifestList != nil && *s.ChangelogManifestList != "" {
				lists = append(lists, *s.ChangelogManifestList)
			}
		}
	}
	return lists, nil
}

// planDiff plans a diff read: the live files of the before snapshot and of
// the end snapshot, paired by (partition, bucket).
func (p *Plan) planDiff(ctx context.Context) error {
	after := *p
	after.Splits, after.inc = nil, nil
	if err := after.planSplits(ctx); err != nil {
		return err
	}
	var before Plan
	if p.inc.before != nil {
		before = *p
		before.Snapshot, before.Splits, before.inc = p.inc.before, nil, nil
		if err := before.planSplits(ctx); err != nil {
			return err
		}
	}
	p.Stats = after.Stats
	byBucket := map[bucketKey]*DataSplit{}
	for _, s := range after.Splits {
		s.Mode = ReadDiff
		byBucket[bucketKey{string(s.Partition), s.Bucket}] = s
		p.Splits = append(p.Splits, s)
	}
	for _, b := range before.Splits {
		k := bucketKey{string(b.Partition), b.Bucket}
		s, ok := byBucket[k]
		if !ok {
			s = &DataSplit{SnapshotID: int64(p.Snapshot.ID), Partition: b.Partition, PartitionValues: b.PartitionValues,
				PartitionPath: b.PartitionPath, Bucket: b.Bucket, TotalBuckets: b.TotalBuckets, Mode: ReadDiff}
			byBucket[k] = s
			p.Splits = append(p.Splits, s)
		}
		s.BeforeFiles, s.BeforeDeletionFiles = b.Files, b.DeletionFiles
	}
	p.Stats.Splits = len(p.Splits)
	return nil
}

// planIncremental plans an incremental read (spec.Incremental) with the
// table's latest schema.
func (t *Table) planIncremental(ctx context.Context, spec ScanSpec) (*Plan, error) {
	sch, err := t.schemas.Latest(ctx)
	if err != nil {
		return nil, err
	}
	opts := sch.Options.Clone()
	if opts == nil {
		opts = schema.Options{}
	}
	for k, v := range spec.OptionOverrides {
		opts[k] = v
	}
	core, err := opts.Core()
	if err != nil {
		return nil, err
	}
	if err := checkSupported(sch, core); err != nil {
		return nil, err
	}
	inc, err := t.resolveIncremental(ctx, *spec.Incremental, core)
	if err != nil {
		return nil, err
	}
	p := &Plan{Table: t, Snapshot: inc.end, Schema: sch, Options: opts, Core: core, Spec: spec, inc: inc}
	if _, err := p.projection(); err != nil {
		return nil, err
	}
	if inc.empty || inc.end == nil {
		return p, nil
	}
	if inc.mode == IncrementalDiff {
		if !p.isPK() {
			return nil, fmt.Errorf("%w: an incremental diff (two tags, or incremental-between-scan-mode diff) of an append table", ErrUnsupported)
		}
		return p, p.planDiff(ctx)
	}
	return p, p.planSplits(ctx)
}
