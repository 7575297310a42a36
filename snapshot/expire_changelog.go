package snapshot

import (
	"context"
	"fmt"
	"maps"
)

// ExpireChangelogs expires the long-lived changelogs of the branch
// (changelog/changelog-<id>, written by ExpireSnapshots when the changelog
// is decoupled) as Java's ExpireChangelogImpl does: the ids in
// [max(latest snapshot-ChangelogRetainMax+1, earliest changelog),
// min(latest snapshot-ChangelogRetainMin+1, the smallest consumer next
// snapshot, earliest changelog+MaxDeletes, latest changelog)], stopping at
// the first one younger than ChangelogTimeRetained. For each it deletes
// the changelog files, the data files its snapshot deleted that no tag or
// other branch holds, its manifest lists unless a retained changelog, tag
// or branch uses them, then the changelog file, and moves the EARLIEST
// hint of changelog/.
func (t *Table) ExpireChangelogs(ctx context.Context, cfg ExpireConfig) (ExpireResult, error) {
	var res ExpireResult
	if cfg.ChangelogRetainMin < 1 || cfg.ChangelogRetainMax < cfg.ChangelogRetainMin || cfg.MaxDeletes < 1 {
		return res, fmt.Errorf("%w: changelog retention min %d, max %d, limit %d", ErrInvalidConfig,
			cfg.ChangelogRetainMin, cfg.ChangelogRetainMax, cfg.MaxDeletes)
	}
	defer lockMaintenance(t.store, t.branch)()
	latestSnap, ok, err := t.snapshots.LatestID(ctx)
	if err != nil || !ok {
		return res, err
	}
	cm := NewChangelogManager(t.store, t.branch)
	latest, ok, err := cm.LatestID(ctx)
	if err != nil || !ok {
		return res, err
	}
	earliest, ok, err := cm.EarliestID(ctx)
	if err != nil || !ok {
		return res, err
	}
	lo := max(int64(latestSnap)-int64(cfg.ChangelogRetainMax)+1, int64(earliest))
	maxExclusive := int64(latestSnap) - int64(cfg.ChangelogRetainMin) + 1
	if next, ok, err := NewConsumerManager(t.store, t.branch).MinNextSnapshot(ctx); err != nil {
		return res, err
	} else if ok {
		maxExclusive = min(maxExclusive, int64(next))
	}
	maxExclusive = min(maxExclusive, int64(earliest)+int64(cfg.MaxDeletes), int64(latest))
	olderThan := cfg.now().Add(-cfg.ChangelogTimeRetained).UnixMilli()
	end := maxExclusive
	for id := lo; id <= maxExclusive; id++ {
		c, err := cm.read(ctx, SnapshotID(id))
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return res, err
		}
		if olderThan <= c.TimeMillis {
			end = id
			break
		}
	}
	return t.expireChangelogsUntil(ctx, cm, earliest, SnapshotID(end))
}

func (t *Table) expireChangelogsUntil(ctx context.Context, cm *ChangelogManager, earliest, end SnapshotID) (ExpireResult, error) {
	res := ExpireResult{Earliest: earliest}
	if end <= earliest {
		return res, nil
	}
	cc, err := t.newCleanContext(ctx)
	if err != nil {
		return res, err
	}
	d := cc.d
	endLog, err := cm.read(ctx, end)
	if err != nil {
		return res, err
	}
	skipping := maps.Clone(cc.foreign.metadata)
	if err := d.manifestSkippingSetOf(ctx, append(skippingTags(cc.tagged, earliest, end), endLog), skipping, true); err != nil {
		return res, err
	}
	for id := earliest; id < end; id++ {
		c, err := cm.read(ctx, id)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return res, err
		}
		skip, ok := cc.skipper(ctx, id)
		if !ok {
			continue
		}
		// Java: ChangelogDeletion.cleanUnusedDataFiles and
		// cleanUnusedManifests (the index manifest and statistics went
		// with the snapshot).
		if c.ChangelogManifestList != nil {
			d.deleteAddedFiles(ctx, *c.ChangelogManifestList)
		}
		if d.listExists(ctx, c.DeltaManifestList) {
			if err := d.cleanUnusedDataFiles(ctx, c.DeltaManifestList, skip); err != nil {
				return res, err
			}
		}
		if c.ChangelogManifestList != nil {
			d.cleanUnusedManifestList(ctx, *c.ChangelogManifestList, c.ChangelogManifestListSize, skipping)
		}
		if d.listExists(ctx, c.DeltaManifestList) {
			d.cleanUnusedManifestList(ctx, c.DeltaManifestList, c.DeltaManifestListSize, skipping)
		}
		if d.listExists(ctx, c.BaseManifestList) {
			d.cleanUnusedManifestList(ctx, c.BaseManifestList, c.BaseManifestListSize, skipping)
		}
		if err := t.store.Delete(ctx, cm.Path(id)); err != nil && !isNotExist(err) {
			return res, fmt.Errorf("snapshot: expire changelog %d: %w", id, err)
		}
		res.Changelogs++
	}
	if err := cm.writeHint(ctx, EarliestHint, end); err != nil {
		return res, err
	}
	res.Earliest = end
	res.CleanStats = d.stats
	return res, nil
}

// listExists reports whether a manifest list is still there.
func (d *fileDeletion) listExists(ctx context.Context, name string) bool {
	if name == "" {
		return false
	}
	ok, err := d.st.Exists(ctx, manifestPath(name))
	return err == nil && ok
}
