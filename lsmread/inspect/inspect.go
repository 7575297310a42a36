// Package inspect prints what a Paimon table holds (the `lakesql inspect`
// command): schema versions, tags, branches, snapshots and, for one
// snapshot, the live data files from the shared live-files scan
// (snapshot.Table.Scan) and the deletion-vector index files. It only reads;
// each Run is independent and may run concurrently with writers.
package inspect

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Usage is the inspect command line.
const Usage = "usage: lakesql inspect TABLE-PATH-OR-URL [--snapshot N] [--branch NAME]"

// ErrHelp is returned after --help printed the usage; the command exits 0.
var ErrHelp = errors.New("help printed")

// UsageError is a wrong command line; the command exits 2.
type UsageError struct{ error }

func (e UsageError) Unwrap() error { return e.error }

func printUsage(w io.Writer, fs *flag.FlagSet, usage string) {
	fmt.Fprintln(w, usage)
	fmt.Fprintln(w, "flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// Run prints what a table holds: its latest schema and schema versions,
// tags, branches, the snapshot list, and for one snapshot (the latest by
// default) the live data files after merging the base and delta manifests,
// grouped by partition and bucket, plus the deletion-vector index files of
// the snapshot's index manifest.
//
//	lakesql inspect TABLE-PATH-OR-URL [--snapshot N] [--branch NAME]
//
// It prints every section it can. A section that cannot be read (a corrupt
// file, ORC manifests) is reported in the output and in the returned error,
// which names the file and what is wrong.
func Run(ctx context.Context, w io.Writer, args []string) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	snapID := fs.Int64("snapshot", 0, "snapshot id to list the live files of (default: the latest)")
	branch := fs.String("branch", snapshot.MainBranch, "branch to inspect")
	// Flags may come before or after the table path.
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(w, fs, Usage)
				return ErrHelp
			}
			return UsageError{fmt.Errorf("inspect: %w\n%s", err, Usage)}
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		positional = append(positional, rest[0])
		rest = rest[1:]
	}
	if len(positional) != 1 {
		return UsageError{fmt.Errorf("inspect: want exactly one TABLE-PATH-OR-URL, got %d\n%s", len(positional), Usage)}
	}
	snapSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "snapshot" {
			snapSet = true
		}
	})
	if snapSet && *snapID <= 0 {
		return fmt.Errorf("inspect: --snapshot %d: snapshot ids start at 1", *snapID)
	}
	loc := positional[0]

	// storage.Open creates a missing local folder; check first so that a
	// mistyped path is reported instead of silently created.
	if !strings.Contains(loc, "://") || strings.HasPrefix(loc, "file://") {
		p := strings.TrimPrefix(loc, "file://")
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("inspect: table path %s does not exist", loc)
			}
			return fmt.Errorf("inspect: table path %s: %w", loc, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("inspect: table path %s is not a directory", loc)
		}
	}
	st, err := storage.Open(ctx, loc)
	if err != nil {
		return fmt.Errorf("inspect: open %s: %w", loc, err)
	}
	defer st.Close()

	in := &inspector{ctx: ctx, w: w, st: st, loc: loc, branch: *branch}
	return in.run(snapshot.SnapshotID(*snapID))
}

type inspector struct {
	ctx    context.Context
	w      io.Writer
	st     storage.Storage
	loc    string
	branch string

	schemas   *snapshot.SchemaManager
	snapshots *snapshot.SnapshotManager
	latest    *schema.TableSchema
	errs      []error
}

// fail records a section error and prints it where the section would be.
func (in *inspector) fail(err error) {
	in.errs = append(in.errs, err)
	fmt.Fprintf(in.w, "  ERROR: %v\n", err)
}

func (in *inspector) run(want snapshot.SnapshotID) error {
	ctx := in.ctx
	bm := snapshot.NewBranchManager(in.st)
	if !snapshot.IsMainBranch(in.branch) {
		if err := bm.Check(ctx, in.branch); err != nil {
			return fmt.Errorf("inspect: %s: %w", in.loc, err)
		}
	}
	in.schemas = bm.Schemas(in.branch)
	in.snapshots = bm.Snapshots(in.branch)

	ids, err := in.schemas.List(ctx)
	if err != nil {
		return fmt.Errorf("inspect: %s: list schemas: %w", in.loc, err)
	}
	if len(ids) == 0 {
		return fmt.Errorf("inspect: %s is not a Paimon table: no schema file in %s", in.loc, snapshot.SchemaDir(in.branch))
	}
	latest, err := in.schemas.Schema(ctx, ids[len(ids)-1])
	if err != nil {
		return fmt.Errorf("inspect: %s: %w", in.schemas.Path(ids[len(ids)-1]), err)
	}
	in.latest = latest

	if want != 0 {
		// Fail before printing anything when the requested snapshot does
		// not exist.
		ok, err := in.snapshots.Exists(ctx, want)
		if err != nil {
			return fmt.Errorf("inspect: %s: %w", in.snapshots.Path(want), err)
		}
		if !ok {
			ids, err := in.snapshots.List(ctx)
			if err != nil {
				return fmt.Errorf("inspect: %s: list snapshots: %w", in.loc, err)
			}
			return fmt.Errorf("inspect: %s: --snapshot %d: %w (branch %s has snapshots: %s)", in.loc, want,
				snapshot.ErrSnapshotNotFound, cmp.Or(in.branch, snapshot.MainBranch), idRange(ids))
		}
	}

	fmt.Fprintf(in.w, "Table:  %s\n", in.st.URL())
	fmt.Fprintf(in.w, "Branch: %s\n", cmp.Or(in.branch, snapshot.MainBranch))
	in.printSchema(latest)
	in.printSchemaVersions(ids)
	in.printTags()
	in.printBranches(bm)
	chosen := in.printSnapshots(want)
	if chosen != nil {
		in.printLiveFiles(chosen)
		in.printIndexFiles(chosen)
	}
	if len(in.errs) > 0 {
		return fmt.Errorf("inspect: %s: %w", in.loc, errors.Join(in.errs...))
	}
	return nil
}

func (in *inspector) printSchema(s *schema.TableSchema) {
	kind := "append"
	if s.IsPrimaryKeyTable() {
		kind = "primary-key"
	}
	fmt.Fprintf(in.w, "\nSchema %d (latest, %s table, highest field id %d)\n", s.ID, kind, s.HighestFieldID)
	tw := newTab(in.w)
	fmt.Fprintln(tw, "  ID\tNAME\tTYPE\tKEY")
	pk := map[string]bool{}
	for _, k := range s.PrimaryKeys {
		pk[k] = true
	}
	part := map[string]bool{}
	for _, k := range s.PartitionKeys {
		part[k] = true
	}
	for _, f := range s.Fields {
		var key []string
		if part[f.Name] {
			key = append(key, "partition")
		}
		if pk[f.Name] {
			key = append(key, "primary")
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", f.ID, f.Name, f.Type.String(), strings.Join(key, ","))
	}
	tw.Flush()
	fmt.Fprintf(in.w, "Partition keys: %s\n", listOrNone(s.PartitionKeys))
	fmt.Fprintf(in.w, "Primary keys:   %s\n", listOrNone(s.PrimaryKeys))
	if s.IsPrimaryKeyTable() {
		fmt.Fprintf(in.w, "Bucket keys:    %s\n", listOrNone(s.BucketKeys()))
	}
	if s.Comment != nil {
		fmt.Fprintf(in.w, "Comment:        %s\n", *s.Comment)
	}
	fmt.Fprintln(in.w, "Options:")
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		fmt.Fprintln(in.w, "  (none)")
	}
	tw = newTab(in.w)
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s\t= %s\n", k, s.Options[k])
	}
	tw.Flush()
}

func (in *inspector) printSchemaVersions(ids []schema.SchemaID) {
	fmt.Fprintf(in.w, "\nSchema versions (%d)\n", len(ids))
	tw := newTab(in.w)
	fmt.Fprintln(tw, "  ID\tTIME (UTC)\tFIELDS\tHIGHEST FIELD ID")
	for _, id := range ids {
		s, err := in.schemas.Schema(in.ctx, id)
		if err != nil {
			tw.Flush()
			in.fail(fmt.Errorf("%s: %w", in.schemas.Path(id), err))
			continue
		}
		names := make([]string, len(s.Fields))
		for i, f := range s.Fields {
			names[i] = f.Name
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\n", id, formatMillis(s.TimeMillis), strings.Join(names, ","), s.HighestFieldID)
	}
	tw.Flush()
}

func (in *inspector) printTags() {
	tm := snapshot.NewTagManager(in.st, in.branch)
	names, err := tm.List(in.ctx)
	fmt.Fprintf(in.w, "\nTags (%d)\n", len(names))
	if err != nil {
		in.fail(fmt.Errorf("list tags: %w", err))
		return
	}
	if len(names) == 0 {
		fmt.Fprintln(in.w, "  (none)")
		return
	}
	tw := newTab(in.w)
	fmt.Fprintln(tw, "  NAME\tSNAPSHOT\tSCHEMA\tCOMMIT TIME (UTC)\tTOTAL RECORDS\tRETAINED")
	for _, n := range names {
		t, err := tm.Get(in.ctx, n)
		if err != nil {
			tw.Flush()
			in.fail(fmt.Errorf("%s: %w", tm.Path(n), err))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%d\t%s\n", n, t.ID, t.SchemaID, formatMillis(t.TimeMillis),
			t.TotalRecordCount, cmp.Or(t.TimeRetainedString(), "-"))
	}
	tw.Flush()
}

func (in *inspector) printBranches(bm *snapshot.BranchManager) {
	branches, err := bm.List(in.ctx)
	fmt.Fprintf(in.w, "\nBranches (%d besides main)\n", len(branches))
	if err != nil {
		in.fail(fmt.Errorf("list branches: %w", err))
		return
	}
	if len(branches) == 0 {
		fmt.Fprintln(in.w, "  (none)")
		return
	}
	tw := newTab(in.w)
	fmt.Fprintln(tw, "  NAME\tCREATED (UTC)\tLATEST SNAPSHOT\tLATEST SCHEMA")
	for _, b := range branches {
		snap, sch := "-", "-"
		if id, ok, err := bm.Snapshots(b.Name).LatestID(in.ctx); err != nil {
			tw.Flush()
			in.fail(fmt.Errorf("branch %s: %w", b.Name, err))
			continue
		} else if ok {
			snap = id.String()
		}
		if id, ok, err := bm.Schemas(b.Name).LatestID(in.ctx); err != nil {
			tw.Flush()
			in.fail(fmt.Errorf("branch %s: %w", b.Name, err))
			continue
		} else if ok {
			sch = id.String()
		}
		created := "-"
		if !b.CreateTime.IsZero() {
			created = b.CreateTime.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", b.Name, created, snap, sch)
	}
	tw.Flush()
}

// printSnapshots lists every snapshot and returns the chosen one (want, or
// the latest when want is 0); nil when there is none or it cannot be read.
func (in *inspector) printSnapshots(want snapshot.SnapshotID) *snapshot.Snapshot {
	ids, err := in.snapshots.List(in.ctx)
	fmt.Fprintf(in.w, "\nSnapshots (%d)\n", len(ids))
	if err != nil {
		in.fail(fmt.Errorf("list snapshots: %w", err))
		return nil
	}
	if len(ids) == 0 {
		fmt.Fprintln(in.w, "  (none)")
		if want != 0 {
			in.fail(fmt.Errorf("snapshot %d: %w: the table has no snapshot", want, snapshot.ErrSnapshotNotFound))
		}
		return nil
	}
	if want == 0 {
		latest, ok, err := in.snapshots.LatestID(in.ctx)
		if err != nil || !ok {
			latest = ids[len(ids)-1]
		}
		want = latest
	}
	tw := newTab(in.w)
	fmt.Fprintln(tw, "  ID\tKIND\tTIME (UTC)\tSCHEMA\tTOTAL RECORDS\tDELTA RECORDS\tCHANGELOG RECORDS\tCOMMIT USER\tINDEX MANIFEST")
	var chosen *snapshot.Snapshot
	for _, id := range ids {
		s, err := in.snapshots.Snapshot(in.ctx, id)
		if err != nil {
			tw.Flush()
			in.fail(fmt.Errorf("%s: %w", in.snapshots.Path(id), err))
			continue
		}
		if id == want {
			chosen = s
		}
		changelog := "-"
		if s.ChangelogRecordCount != nil {
			changelog = strconv.FormatInt(*s.ChangelogRecordCount, 10)
		}
		idx := "-"
		if s.IndexManifest != nil {
			idx = *s.IndexManifest
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", s.ID, s.CommitKind, formatMillis(s.TimeMillis), s.SchemaID,
			s.TotalRecordCount, s.DeltaRecordCount, changelog, shortUser(s.CommitUser), idx)
	}
	tw.Flush()
	if chosen == nil && !slices.Contains(ids, want) {
		in.fail(fmt.Errorf("snapshot %d: %w (branch %s has snapshots %s)", want, snapshot.ErrSnapshotNotFound,
			cmp.Or(in.branch, snapshot.MainBranch), idRange(ids)))
	}
	return chosen
}

// fileGroup is the live files of one partition and bucket.
type fileGroup struct {
	partition manifest.SerializedRow
	values    []any
	label     string // binaryrow.Format of the partition
	path      string // partition folder, "" when unpartitioned
	bucket    manifest.Bucket
	entries   []manifest.ManifestEntry
}

func (in *inspector) printLiveFiles(s *snapshot.Snapshot) {
	fmt.Fprintf(in.w, "\nLive data files of snapshot %d (base %s + delta %s)\n", s.ID, s.BaseManifestList, s.DeltaManifestList)
	var lists []string
	for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
		if list == "" {
			continue
		}
		// Read the list first so that a damaged one is named as such.
		if _, err := in.readManifestList(list); err != nil {
			in.fail(err)
			return
		}
		lists = append(lists, list)
	}
	live, stats, err := snapshot.OpenTable(in.st, in.branch).Scan(in.ctx, s, snapshot.ScanOptions{Lists: lists})
	if err != nil {
		in.fail(manifestErr(err))
		return
	}
	nManifests := stats.ManifestsTotal
	unmatched := stats.UnmatchedDeletes

	groups := map[string]*fileGroup{}
	var order []*fileGroup
	var rows, deletes, bytes int64
	for _, e := range live {
		key := string(e.Partition) + "\x00" + e.Bucket.String()
		g := groups[key]
		if g == nil {
			g = &fileGroup{partition: e.Partition, bucket: e.Bucket}
			if err := in.describePartition(g, e.File.SchemaID); err != nil {
				in.fail(fmt.Errorf("file %s: partition: %w", e.File.FileName, err))
				g.label = fmt.Sprintf("X'%x'", []byte(e.Partition))
			}
			groups[key] = g
			order = append(order, g)
		}
		g.entries = append(g.entries, e)
		rows += e.File.RowCount
		if e.File.DeleteRowCount != nil {
			deletes += *e.File.DeleteRowCount
		}
		bytes += e.File.FileSize
	}
	fmt.Fprintf(in.w, "  %d manifests, %d live files, %d rows (%d retract rows), %d bytes, %d partition/bucket groups\n",
		nManifests, len(live), rows, deletes, bytes, len(order))
	if unmatched > 0 {
		fmt.Fprintf(in.w, "  WARNING: %d DELETE entries match no ADD entry of this snapshot\n", unmatched)
	}
	slices.SortFunc(order, func(a, b *fileGroup) int {
		if c := in.comparePartitions(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a.bucket, b.bucket)
	})
	maxRuns := 0
	defer func() {
		if len(order) > 0 {
			fmt.Fprintf(in.w, "\n  sorted runs per bucket: max %d (a merging read of a bucket merges its level-0 files and one run per other level)\n", maxRuns)
		}
	}()
	for _, g := range order {
		path := g.path
		if path == "" {
			path = "(unpartitioned)"
		}
		files := make([]manifest.DataFileMeta, len(g.entries))
		for i := range g.entries {
			files[i] = g.entries[i].File
		}
		runs := manifest.SortedRuns(files)
		maxRuns = max(maxRuns, runs)
		fmt.Fprintf(in.w, "\n  partition %s  %s  bucket %d (%s)  %d files, %d sorted runs\n", g.label, path, g.bucket, lsmread.BucketDir(g.bucket), len(g.entries), runs)
		slices.SortStableFunc(g.entries, func(a, b manifest.ManifestEntry) int {
			return cmp.Or(cmp.Compare(b.File.Level, a.File.Level),
				cmp.Compare(a.File.MinSequenceNumber, b.File.MinSequenceNumber),
				strings.Compare(a.File.FileName, b.File.FileName))
		})
		tw := newTab(in.w)
		fmt.Fprintln(tw, "    FILE\tLEVEL\tROWS\tDELETES\tKEY RANGE\tSEQ RANGE\tSIZE\tSCHEMA\tSOURCE\tEXTERNAL PATH")
		for _, e := range g.entries {
			f := &e.File
			del := "-"
			if f.DeleteRowCount != nil {
				del = strconv.FormatInt(*f.DeleteRowCount, 10)
			}
			src := "-"
			if f.FileSource != nil {
				src = f.FileSource.String()
			}
			ext := "-"
			if f.ExternalPath != nil {
				ext = *f.ExternalPath
			}
			keys, err := in.keyRange(f)
			if err != nil {
				tw.Flush()
				in.fail(fmt.Errorf("file %s: key range: %w", f.FileName, err))
				keys = "?"
			}
			fmt.Fprintf(tw, "    %s\t%d\t%d\t%s\t%s\t%d..%d\t%d\t%d\t%s\t%s\n", f.FileName, f.Level, f.RowCount, del, keys,
				f.MinSequenceNumber, f.MaxSequenceNumber, f.FileSize, f.SchemaID, src, ext)
		}
		tw.Flush()
	}
}

func (in *inspector) readManifestList(name string) ([]manifest.ManifestFileMeta, error) {
	data, err := in.st.ReadAll(in.ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("manifest list %s: %w", name, err)
	}
	metas, err := manifest.ReadManifestList(data, name)
	if err != nil {
		return nil, manifestErr(err)
	}
	return metas, nil
}

// manifestErr adds what to do about ORC manifests.
func manifestErr(err error) error {
	if errors.Is(err, manifest.ErrORCManifest) {
		return fmt.Errorf("%w (the table was written with manifest.format=orc; lakesql reads Avro manifests only)", err)
	}
	return err
}

// schemaOf returns schema id of the inspected branch.
func (in *inspector) schemaOf(id int64) (*schema.TableSchema, error) {
	s, err := in.schemas.Schema(in.ctx, schema.SchemaID(id))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.schemas.Path(schema.SchemaID(id)), err)
	}
	return s, nil
}

func (in *inspector) describePartition(g *fileGroup, schemaID int64) error {
	s, err := in.schemaOf(schemaID)
	if err != nil {
		return err
	}
	fields := s.PartitionFields()
	types := fieldTypes(fields)
	vals, err := binaryrow.DecodeSerialized(types, g.partition)
	if err != nil {
		return err
	}
	g.values = vals
	g.label = binaryrow.Format(types, vals)
	legacy, err := s.Options.PartitionLegacyName()
	if err != nil {
		return err
	}
	g.path, err = schema.PartitionPath(fields, vals, s.Options.PartitionDefaultName(), legacy)
	return err
}

func (in *inspector) comparePartitions(a, b *fileGroup) int {
	if len(a.values) != len(b.values) || a.values == nil {
		return strings.Compare(string(a.partition), string(b.partition))
	}
	fields := in.latest.PartitionFields()
	for i := range a.values {
		var t *schema.DataType
		if i < len(fields) {
			t = &fields[i].Type
		}
		if t == nil {
			return strings.Compare(string(a.partition), string(b.partition))
		}
		if c := schema.Compare(t, a.values[i], b.values[i]); c != 0 {
			return c
		}
	}
	return 0
}

// keyRange renders min..max key of a data file, decoded with the trimmed
// primary key types of the file's schema; "-" for append tables.
func (in *inspector) keyRange(f *manifest.DataFileMeta) (string, error) {
	s, err := in.schemaOf(f.SchemaID)
	if err != nil {
		return "", err
	}
	types := fieldTypes(s.TrimmedPrimaryKeyFields())
	if len(types) == 0 {
		arity, _, err := binaryrow.SplitSerialized(f.MinKey)
		if err == nil && arity == 0 {
			return "-", nil
		}
	}
	lo, err := binaryrow.DecodeSerialized(types, f.MinKey)
	if err != nil {
		return "", fmt.Errorf("_MIN_KEY: %w", err)
	}
	hi, err := binaryrow.DecodeSerialized(types, f.MaxKey)
	if err != nil {
		return "", fmt.Errorf("_MAX_KEY: %w", err)
	}
	if len(types) == 0 {
		return "-", nil
	}
	return shorten(binaryrow.Format(types, lo), 40) + ".." + shorten(binaryrow.Format(types, hi), 40), nil
}

func (in *inspector) printIndexFiles(s *snapshot.Snapshot) {
	if s.IndexManifest == nil {
		fmt.Fprintf(in.w, "\nIndex files of snapshot %d: none (no index manifest)\n", s.ID)
		return
	}
	name := *s.IndexManifest
	fmt.Fprintf(in.w, "\nIndex files of snapshot %d (index manifest %s)\n", s.ID, name)
	data, err := in.st.ReadAll(in.ctx, manifest.Path(name))
	if err != nil {
		in.fail(fmt.Errorf("index manifest %s: %w", name, err))
		return
	}
	entries, err := manifest.ReadIndexManifest(data, name)
	if err != nil {
		in.fail(manifestErr(err))
		return
	}
	if len(entries) == 0 {
		fmt.Fprintln(in.w, "  (none)")
		return
	}
	partTypes := fieldTypes(in.latest.PartitionFields())
	tw := newTab(in.w)
	fmt.Fprintln(tw, "  KIND\tTYPE\tPARTITION\tBUCKET\tINDEX FILE\tSIZE\tROWS\tDATA FILE\tOFFSET\tLENGTH\tCARDINALITY\tEXTERNAL PATH")
	for _, e := range entries {
		part := fmt.Sprintf("X'%x'", []byte(e.Partition))
		if vals, err := binaryrow.DecodeSerialized(partTypes, e.Partition); err == nil {
			part = binaryrow.Format(partTypes, vals)
		} else {
			tw.Flush()
			in.fail(fmt.Errorf("index manifest %s: index file %s: partition: %w", name, e.IndexFile.FileName, err))
		}
		f := &e.IndexFile
		ext := "-"
		if f.ExternalPath != nil {
			ext = *f.ExternalPath
		}
		prefix := fmt.Sprintf("  %s\t%s\t%s\t%d\t%s\t%d\t%d", e.Kind, f.IndexType, part, e.Bucket, f.FileName, f.FileSize, f.RowCount)
		if len(f.DVRanges) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s\n", prefix, ext)
			continue
		}
		for i, r := range f.DVRanges {
			card := "?"
			if r.Cardinality != nil {
				card = strconv.FormatInt(*r.Cardinality, 10)
			}
			if i > 0 {
				prefix = "  \t\t\t\t\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", prefix, r.DataFileName, r.Offset, r.Length, card, ext)
		}
	}
	tw.Flush()
}

func newTab(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

func fieldTypes(fields []schema.DataField) []schema.DataType {
	out := make([]schema.DataType, len(fields))
	for i, f := range fields {
		out[i] = f.Type
	}
	return out
}

func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

func shortUser(u string) string {
	if len(u) > 8 {
		return u[:8]
	}
	return cmp.Or(u, "-")
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
}

func idRange(ids []snapshot.SnapshotID) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) <= 10 {
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = id.String()
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%d..%d (%d ids)", ids[0], ids[len(ids)-1], len(ids))
}
