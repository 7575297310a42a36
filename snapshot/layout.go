package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/lakesql/lakesql/internal/schema"
)

// File names and paths of the table metadata, relative to the table root
// (Java: SnapshotManager, SchemaManager, TagManager, BranchManager,
// ConsumerManager, HintFileUtils, Path.createTempPath). Every name built
// here parses back with the matching Parse function.

// MainBranch is the name of the default branch, whose files live in the
// table root (Java: DEFAULT_MAIN_BRANCH).
const MainBranch = "main"

// Hint file names inside a snapshot directory.
const (
	// EarliestHint holds the decimal id of the earliest snapshot; written
	// by expiration. A hint only: readers check it.
	EarliestHint = "EARLIEST"
	// LatestHint holds the decimal id of the latest snapshot; rewritten
	// after each commit, best effort.
	LatestHint = "LATEST"
)

// Directory and file-name prefixes.
const (
	snapshotDirName = "snapshot"
	schemaDirName   = "schema"
	tagDirName      = "tag"
	branchDirName   = "branch"
	consumerDirName = "consumer"

	snapshotPrefix = "snapshot-"
	schemaPrefix   = "schema-"
	tagPrefix      = "tag-"
	branchPrefix   = "branch-"
	consumerPrefix = "consumer-"
	tempSuffix     = ".tmp"
)

// IsMainBranch reports whether branch names the main branch ("" counts as
// main, as Java's BranchManager.normalizeBranch does for blank names).
func IsMainBranch(branch string) bool {
	return branch == MainBranch || strings.TrimSpace(branch) == ""
}

// BranchDir is the directory holding a branch's schema, snapshot and tag
// directories: "" for the main branch, else "branch/branch-<name>".
func BranchDir(branch string) string {
	if IsMainBranch(branch) {
		return ""
	}
	return branchDirName + "/" + BranchDirName(branch)
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// BranchDirName is "branch-<name>".
func BranchDirName(name string) string { return branchPrefix + name }

// ParseBranchDirName parses "branch-<name>".
func ParseBranchDirName(s string) (string, bool) {
	name, ok := strings.CutPrefix(s, branchPrefix)
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// SnapshotDir is the snapshot directory of a branch.
func SnapshotDir(branch string) string { return join(BranchDir(branch), snapshotDirName) }

// SnapshotFileName is "snapshot-<id>".
func SnapshotFileName(id SnapshotID) string { return snapshotPrefix + id.String() }

// ParseSnapshotFileName parses "snapshot-<id>" with a canonical
// non-negative decimal id.
func ParseSnapshotFileName(name string) (SnapshotID, bool) {
	n, ok := parseVersioned(name, snapshotPrefix)
	return SnapshotID(n), ok
}

// SnapshotPath is the path of snapshot id of a branch.
func SnapshotPath(branch string, id SnapshotID) string {
	return join(SnapshotDir(branch), SnapshotFileName(id))
}

// HintPath is the path of a hint file (EarliestHint or LatestHint) of a
// branch.
func HintPath(branch, hint string) string { return join(SnapshotDir(branch), hint) }

// SchemaDir is the schema directory of a branch.
func SchemaDir(branch string) string { return join(BranchDir(branch), schemaDirName) }

// SchemaFileName is "schema-<id>".
func SchemaFileName(id schema.SchemaID) string {
	return schemaPrefix + strconv.FormatInt(int64(id), 10)
}

// ParseSchemaFileName parses "schema-<id>".
func ParseSchemaFileName(name string) (schema.SchemaID, bool) {
	n, ok := parseVersioned(name, schemaPrefix)
	return schema.SchemaID(n), ok
}

// SchemaPath is the path of schema id of a branch.
func SchemaPath(branch string, id schema.SchemaID) string {
	return join(SchemaDir(branch), SchemaFileName(id))
}

// TagDir is the tag directory of a branch.
func TagDir(branch string) string { return join(BranchDir(branch), tagDirName) }

// TagFileName is "tag-<name>".
func TagFileName(name string) string { return tagPrefix + name }

// ParseTagFileName parses "tag-<name>".
func ParseTagFileName(s string) (string, bool) {
	name, ok := strings.CutPrefix(s, tagPrefix)
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// TagPath is the path of a tag of a branch.
func TagPath(branch, name string) string { return join(TagDir(branch), TagFileName(name)) }

// ConsumerDir is the consumer directory of a branch.
func ConsumerDir(branch string) string { return join(BranchDir(branch), consumerDirName) }

// ConsumerFileName is "consumer-<id>".
func ConsumerFileName(id string) string { return consumerPrefix + id }

// ParseConsumerFileName parses "consumer-<id>".
func ParseConsumerFileName(s string) (string, bool) {
	id, ok := strings.CutPrefix(s, consumerPrefix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}

// ConsumerPath is the path of a consumer of a branch.
func ConsumerPath(branch, id string) string { return join(ConsumerDir(branch), ConsumerFileName(id)) }

// TempFileName is the name Java gives the temporary file of an atomic
// write of name (Path.createTempPath): ".<name>.<uuid>.tmp", in the same
// directory.
func TempFileName(name, uuid string) string { return "." + name + "." + uuid + tempSuffix }

// ParseTempFileName splits a TempFileName back into the target name and
// the UUID (a UUID contains no '.').
func ParseTempFileName(s string) (name, uuid string, ok bool) {
	rest, ok := strings.CutPrefix(s, ".")
	if !ok {
		return "", "", false
	}
	rest, ok = strings.CutSuffix(rest, tempSuffix)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// parseVersioned parses prefix followed by a canonical non-negative
// decimal int64 (no sign, no leading zeros), so that names round-trip.
func parseVersioned(name, prefix string) (int64, bool) {
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok || digits == "" || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// baseName returns the last path element.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// ValidateBranchName checks a branch name as Java's
// BranchManager.validateBranch does, and that it is usable as a single
// path element.
func ValidateBranchName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("%w: branch name %q is blank", ErrInvalidName, name)
	case name == MainBranch:
		return fmt.Errorf("%w: branch name %q is the default branch and cannot be used", ErrInvalidName, name)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsDigit(r) }) < 0:
		return fmt.Errorf("%w: branch name cannot be a pure numeric string but is %q", ErrInvalidName, name)
	}
	return validatePathElement("branch", name)
}

// ValidateTagName checks that a tag name is not blank and is usable as a
// single path element.
func ValidateTagName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%w: tag name %q is blank", ErrInvalidName, name)
	}
	return validatePathElement("tag", name)
}

func validatePathElement(what, name string) error {
	if strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." {
		return fmt.Errorf("%w: %s name %q contains a path separator", ErrInvalidName, what, name)
	}
	return nil
}
