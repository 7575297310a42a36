package snapshot

import (
	"fmt"
	"strconv"
)

// SnapshotID identifies a snapshot; the first snapshot of a table is 1
// (org.apache.paimon.Snapshot.FIRST_SNAPSHOT_ID).
type SnapshotID int64

// FirstSnapshotID is the id of the first snapshot of every table and branch.
const FirstSnapshotID SnapshotID = 1

// String returns the decimal id, as used in file names.
func (id SnapshotID) String() string { return strconv.FormatInt(int64(id), 10) }

// CommitKind mirrors org.apache.paimon.Snapshot.CommitKind: what a commit
// did. It is written as its name ("APPEND", ...).
type CommitKind uint8

// The commit kinds. The zero value is invalid so that a forgotten kind is
// caught by EncodeSnapshot.
const (
	// CommitKindAppend: new data files were added, none deleted.
	CommitKindAppend CommitKind = iota + 1
	// CommitKindCompact: existing files were compacted into new ones.
	CommitKindCompact
	// CommitKindOverwrite: files were added to replace existing ones, or
	// deleted (also any user commit with DELETE entries or DV changes).
	CommitKindOverwrite
	// CommitKindAnalyze: only the statistics file changed.
	CommitKindAnalyze
)

var commitKindNames = [...]string{
	CommitKindAppend:    "APPEND",
	CommitKindCompact:   "COMPACT",
	CommitKindOverwrite: "OVERWRITE",
	CommitKindAnalyze:   "ANALYZE",
}

// String returns the Java enum name.
func (k CommitKind) String() string {
	if k >= CommitKindAppend && int(k) < len(commitKindNames) {
		return commitKindNames[k]
	}
	return fmt.Sprintf("CommitKind(%d)", uint8(k))
}

// Valid reports whether k is one of the defined kinds.
func (k CommitKind) Valid() bool { return k >= CommitKindAppend && int(k) < len(commitKindNames) }

// ParseCommitKind parses a Java enum name. Unknown names give an error
// wrapping ErrCorrupt.
func ParseCommitKind(s string) (CommitKind, error) {
	for k := CommitKindAppend; int(k) < len(commitKindNames); k++ {
		if commitKindNames[k] == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown commit kind %q", ErrCorrupt, s)
}
