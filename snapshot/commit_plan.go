package snapshot

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// commitPlan is one Commit call: the changes and what every attempt needs.
type commitPlan struct {
	c        *Committer
	changes  *CommitChanges
	kind     CommitKind
	schemaID schema.SchemaID
	stats    *partitionStats
	keyTypes []schema.DataType
	// published holds the metadata files of the attempt that published.
	published *attemptFiles
}

func (c *Committer) newPlan(ctx context.Context, schemaID schema.SchemaID, ch *CommitChanges, kind CommitKind) (*commitPlan, error) {
	p := &commitPlan{c: c, changes: ch, kind: kind, schemaID: schemaID, keyTypes: c.opts.KeyTypes}
	partTypes := c.opts.PartitionTypes
	if partTypes == nil || p.keyTypes == nil {
		ts, err := c.schemas.Schema(ctx, schemaID)
		switch {
		case err == nil:
			if partTypes == nil {
				partTypes = fieldTypes(ts.PartitionFields())
			}
			if p.keyTypes == nil && len(ts.PrimaryKeys) > 0 {
				p.keyTypes = fieldTypes(ts.TrimmedPrimaryKeyFields())
			}
		case partTypes == nil:
			return nil, fmt.Errorf("snapshot: commit: partition types: %w", err)
		case !errors.Is(err, ErrSchemaNotFound):
			return nil, fmt.Errorf("snapshot: commit: key types: %w", err)
		}
	}
	p.stats = newPartitionStats(partTypes)
	return p, nil
}

func fieldTypes(fields []schema.DataField) []schema.DataType {
	out := make([]schema.DataType, len(fields))
	for i, f := range fields {
		out[i] = f.Type
	}
	return out
}

// latestSchemaID is the largest schema id of the branch, at least
// p.schemaID (Java records the latest schema at commit time).
func (p *commitPlan) latestSchemaID(ctx context.Context) (schema.SchemaID, error) {
	id, ok, err := p.c.schemas.LatestID(ctx)
	if err != nil {
		return 0, fmt.Errorf("snapshot: commit: latest schema: %w", err)
	}
	if !ok || id < p.schemaID {
		return p.schemaID, nil
	}
	return id, nil
}

// tryCommitOnce plans the changes on latest (nil for an empty table),
// writes the metadata files and publishes the snapshot. A lost race gives
// errLostRace (the attempt's files removed), an unsure publish an
// *uncertainError (files kept); every other error is final.
func (p *commitPlan) tryCommitOnce(ctx context.Context, latest *Snapshot) (*Snapshot, error) {
	c, ch := p.c, p.changes
	newID := FirstSnapshotID
	var baseMetas []manifest.ManifestFileMeta
	var prevIndex []manifest.IndexManifestEntry
	if latest != nil {
		newID = latest.ID + 1
		var err error
		if baseMetas, err = dataManifests(ctx, c.st, latest); err != nil {
			return nil, fmt.Errorf("snapshot: commit: %w", err)
		}
		if prevIndex, err = readIndexManifest(ctx, c.st, latest.IndexManifest); err != nil {
			return nil, fmt.Errorf("snapshot: commit: %w", err)
		}
	}
	// The base's entries are read at most once per attempt.
	var baseLists [][]manifest.ManifestEntry
	baseEntries := func() ([][]manifest.ManifestEntry, error) {
		if baseLists == nil && len(baseMetas) > 0 {
			var err error
			if baseLists, err = readManifests(ctx, c.st, baseMetas, nil); err != nil {
				return nil, fmt.Errorf("snapshot: commit: %w", err)
			}
		}
		return baseLists, nil
	}

	delta, index := ch.Entries, ch.IndexChanges
	if ch.OverwritePartitions != nil && latest != nil {
		lists, err := baseEntries()
		if err != nil {
			return nil, err
		}
		delta, index, err = p.overwriteChanges(lists, prevIndex)
		if err != nil {
			return nil, err
		}
	}

	if latest != nil && p.kind != CommitKindAppend {
		changed := changedPartitions(delta, index)
		lists, err := baseEntries()
		if err != nil {
			return nil, err
		}
		filtered := make([][]manifest.ManifestEntry, len(lists))
		for i, list := range lists {
			for _, e := range list {
				if changed[string(e.Partition)] {
					filtered[i] = append(filtered[i], e)
				}
			}
		}
		base, err := mergeLive(filtered)
		if err != nil {
			return nil, fmt.Errorf("snapshot: commit: base snapshot %d: %w", latest.ID, err)
		}
		if err := checkConflicts(base, delta, p.kind, p.keyTypes, latest.ID); err != nil {
			return nil, err
		}
	}

	if err := checkIndexDeletes(prevIndex, index, latest); err != nil {
		return nil, err
	}
	schemaID, err := p.latestSchemaID(ctx)
	if err != nil {
		return nil, err
	}
	w := &attemptFiles{
		st: c.st, paths: c.paths, opts: c.writeOps, stats: p.stats,
		schemaID: int64(schemaID), targetSize: c.opts.ManifestTargetSize,
	}
	s, err := p.writeAndBuild(ctx, w, latest, newID, schemaID, baseMetas, prevIndex, delta, index)
	// The snapshot file is written and fsynced while the metadata files
	// and the data files (Durable) finish theirs; it is published (linked)
	// once every file it references is durable.
	var staged storage.Staged
	if err == nil {
		var data []byte
		if data, err = EncodeSnapshot(s); err != nil {
			err = fmt.Errorf("snapshot: commit: encode snapshot %d: %w", newID, err)
		} else if staged, err = storage.StageIfNotExists(ctx, c.st, c.snaps.Path(newID), data); errors.Is(err, storage.ErrExist) {
			w.cleanup(ctx)
			return nil, fmt.Errorf("%w: snapshot %d: %w", errLostRace, newID, err)
		}
	}
	if err == nil {
		err = w.wait() // every file the snapshot references is written
	}
	if err == nil && ch.Durable != nil {
		err = ch.Durable(ctx) // and the data files are durable
	}
	if err == nil {
		// The table is still the one the commit wrote for, checked just
		// before publishing (not before the files were written, which takes
		// a while): a commit of a dropped table that published into a
		// table created again under its name would put its snapshot in the
		// new table's history, where the new table's writers build on it
		// until its check after publishing takes it back (issue 12).
		err = p.c.checkTable(ctx, p.schemaID)
	}
	if err != nil {
		if staged != nil {
			staged.Discard()
		}
		w.cleanup(ctx)
		return nil, err
	}
	err = staged.Publish(ctx)
	switch {
	case err == nil:
		p.published = w
		return s, nil
	case errors.Is(err, storage.ErrExist):
		w.cleanup(ctx)
		return nil, fmt.Errorf("%w: snapshot %d: %w", errLostRace, newID, err)
	case errors.Is(err, storage.ErrLock):
		// The commit lock was not taken: the snapshot was not written.
		w.cleanup(ctx)
		return nil, fmt.Errorf("snapshot: commit: publish snapshot %d: %w", newID, err)
	default:
		return nil, &uncertainError{fmt.Errorf("snapshot: commit: publish snapshot %d: %w", newID, err)}
	}
}

// overwriteChanges adds to the commit's changes a DELETE for every live
// file and index file of the overwritten partitions (Java:
// OverwriteChangesProvider). The commit's own DELETEs of those files are
// dropped.
func (p *commitPlan) overwriteChanges(lists [][]manifest.ManifestEntry, prevIndex []manifest.IndexManifestEntry) ([]manifest.ManifestEntry, []manifest.IndexManifestEntry, error) {
	ch := p.changes
	inScope := func(partition []byte) bool { return true }
	if len(ch.OverwritePartitions) > 0 {
		set := make(map[string]bool, len(ch.OverwritePartitions))
		for _, part := range ch.OverwritePartitions {
			set[string(part)] = true
		}
		inScope = func(partition []byte) bool { return set[string(partition)] }
	}
	filtered := make([][]manifest.ManifestEntry, len(lists))
	for i, list := range lists {
		for _, e := range list {
			// Java's overwrite scan skips postpone-bucket (negative) files
			// only for postpone-bucket tables; lakesql writes none.
			if inScope(e.Partition) {
				filtered[i] = append(filtered[i], e)
			}
		}
	}
	live, err := mergeLive(filtered)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot: commit: overwrite: %w", err)
	}
	deleted := make(map[manifest.FileIdentifier]bool, len(live))
	delta := make([]manifest.ManifestEntry, 0, len(live)+len(ch.Entries))
	for _, e := range live {
		deleted[e.Identifier()] = true
		e.Kind = manifest.FileKindDelete
		delta = append(delta, e)
	}
	for _, e := range ch.Entries {
		if e.Kind == manifest.FileKindDelete && deleted[e.Identifier()] {
			continue
		}
		delta = append(delta, e)
	}
	var index []manifest.IndexManifestEntry
	deletedIndex := map[string]bool{}
	for _, e := range prevIndex {
		if inScope(e.Partition) {
			deletedIndex[e.IndexFile.FileName] = true
			e.Kind = manifest.FileKindDelete
			index = append(index, e)
		}
	}
	for _, e := range ch.IndexChanges {
		if e.Kind == manifest.FileKindDelete && deletedIndex[e.IndexFile.FileName] {
			continue
		}
		index = append(index, e)
	}
	return delta, index, nil
}

// changedPartitions is the set of partitions a commit touches (Java:
// ManifestEntryChanges.changedPartitions).
func changedPartitions(delta []manifest.ManifestEntry, index []manifest.IndexManifestEntry) map[string]bool {
	out := map[string]bool{}
	for i := range delta {
		out[string(delta[i].Partition)] = true
	}
	for i := range index {
		out[string(index[i].Partition)] = true
	}
	return out
}

// writeAndBuild writes the attempt's manifests and lists and builds the
// snapshot (Java: the body of tryCommitOnce before commitSnapshotImpl).
func (p *commitPlan) writeAndBuild(ctx context.Context, w *attemptFiles, latest *Snapshot, newID SnapshotID,
	schemaID schema.SchemaID, baseMetas []manifest.ManifestFileMeta, prevIndex []manifest.IndexManifestEntry,
	delta []manifest.ManifestEntry, index []manifest.IndexManifestEntry) (*Snapshot, error) {
	c, ch := p.c, p.changes
	var prevTotal int64
	watermark := ch.Watermark
	var statistics *string
	nextRowID := int64(0)
	if latest != nil {
		prevTotal = latest.TotalRecordCount
		if latest.Watermark != nil && (watermark == nil || *latest.Watermark > *watermark) {
			watermark = latest.Watermark
		}
		// Java inherits the statistics file unless it was computed for
		// another schema; the snapshot's schema id stands in for the
		// statistics file's own.
		if latest.Statistics != nil && latest.SchemaID == schemaID {
			statistics = latest.Statistics
		}
		if latest.NextRowID != nil {
			nextRowID = *latest.NextRowID
		}
	}

	merged := baseMetas
	if len(baseMetas) > 0 {
		var err error
		merged, err = w.mergeManifests(ctx, baseMetas, c.opts.ManifestMergeMinCount, c.opts.ManifestFullCompactionSize)
		if err != nil {
			return nil, fmt.Errorf("snapshot: commit: merge manifests: %w", err)
		}
	}
	baseName, baseSize, err := w.writeManifestList(ctx, merged)
	if err != nil {
		return nil, err
	}

	var added, removed int64
	for i := range delta {
		if delta[i].Kind == manifest.FileKindAdd {
			added += delta[i].File.RowCount
		} else {
			removed += delta[i].File.RowCount
		}
	}
	deltaMetas, err := w.writeManifests(ctx, delta)
	if err != nil {
		return nil, err
	}
	deltaName, deltaSize, err := w.writeManifestList(ctx, deltaMetas)
	if err != nil {
		return nil, err
	}

	var changelogName *string
	var changelogSize *int64
	var changelogRows int64
	if len(ch.ChangelogEntries) > 0 {
		metas, err := w.writeManifests(ctx, ch.ChangelogEntries)
		if err != nil {
			return nil, err
		}
		name, size, err := w.writeManifestList(ctx, metas)
		if err != nil {
			return nil, err
		}
		changelogName, changelogSize = &name, &size
		for i := range ch.ChangelogEntries {
			changelogRows += ch.ChangelogEntries[i].File.RowCount
		}
	}

	var indexName *string
	if latest != nil {
		indexName = latest.IndexManifest
	}
	if len(index) > 0 {
		combined, err := manifest.CombineIndexEntries(prevIndex, index, c.opts.BucketUnaware)
		if err != nil {
			return nil, fmt.Errorf("%w: index files: %w", ErrConflict, err)
		}
		name, err := w.writeIndexManifest(ctx, combined)
		if err != nil {
			return nil, err
		}
		indexName = &name
	}

	var props map[string]string
	if len(ch.Properties) > 0 {
		props = maps.Clone(ch.Properties)
	}
	return &Snapshot{
		Version:                   CurrentSnapshotVersion,
		ID:                        newID,
		SchemaID:                  schemaID,
		BaseManifestList:          baseName,
		BaseManifestListSize:      &baseSize,
		DeltaManifestList:         deltaName,
		DeltaManifestListSize:     &deltaSize,
		ChangelogManifestList:     changelogName,
		ChangelogManifestListSize: changelogSize,
		IndexManifest:             indexName,
		CommitUser:                ch.CommitUser,
		CommitIdentifier:          ch.CommitIdentifier,
		CommitKind:                p.kind,
		TimeMillis:                c.opts.Now().UnixMilli(),
		LogOffsets:                map[int32]int64{},
		TotalRecordCount:          prevTotal + added - removed,
		DeltaRecordCount:          added - removed,
		ChangelogRecordCount:      &changelogRows,
		Watermark:                 watermark,
		Statistics:                statistics,
		Properties:                props,
		NextRowID:                 &nextRowID,
	}, nil
}
