package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/snapshot"
)

// checkReadKeys fails with ErrReadConflict when a snapshot in
// (tx.ReadBase, latest] wrote a key tx.ReadKey accepts. It reads the key
// columns of every data file those snapshots' delta manifests add or
// delete (compactions are skipped: they change no row), through the shared
// sorted-run reader.
func checkReadKeys(ctx context.Context, h *snapshot.Table, tx TxCommit, latest *snapshot.Snapshot) error {
	sch := tx.Schema
	keyIdx := kv.KeyIndexes(sch)
	need := make([]bool, len(sch.Fields))
	for _, i := range keyIdx {
		need[i] = true
	}
	core, err := sch.Options.Core()
	if err != nil {
		return err
	}
	partFields := sch.PartitionFields()
	partTypes := make([]schema.DataType, len(partFields))
	for i := range partFields {
		partTypes[i] = partFields[i].Type
	}
	reader := sortedrun.NewReader(sortedrun.Source{Store: h.Storage(), Schemas: h.Schemas()}, sch.Fields, need, nil, time.UTC)
	paths := map[string]string{}
	var key []byte
	for id := tx.ReadBase + 1; id <= latest.ID; id++ {
		s := latest
		if id != latest.ID {
			if s, err = h.Snapshots().Snapshot(ctx, id); errors.Is(err, snapshot.ErrSnapshotNotFound) {
				// Expired before the commit: what it changed is unknown.
				return fmt.Errorf("%w: snapshot %d, committed after the transaction read, has expired", ErrReadConflict, id)
			} else if err != nil {
				return err
			}
		}
		if s.CommitKind == snapshot.CommitKindCompact {
			continue
		}
		metas, err := snapshot.CachedManifestList(ctx, h.Storage(), s.DeltaManifestList)
		if err != nil {
			return err
		}
		for _, m := range metas {
			entries, err := snapshot.CachedManifest(ctx, h.Storage(), m.FileName)
			if err != nil {
				return err
			}
			for i := range entries {
				e := &entries[i]
				dir, ok := paths[string(e.Partition)]
				if !ok {
					vals, err := binaryrow.DecodeSerialized(partTypes, e.Partition)
					if err != nil {
						return fmt.Errorf("lsmwrite: partition of %s: %w", e.File.FileName, err)
					}
					if dir, err = schema.PartitionPath(partFields, vals, core.PartitionDefaultName, core.PartitionLegacyName); err != nil {
						return err
					}
					paths[string(e.Partition)] = dir
				}
				f := &sortedrun.File{Name: e.File.FileName, Dir: dir + BucketDir(e.Bucket) + "/", SchemaID: e.File.SchemaID, Level: int(e.File.Level)}
				if e.File.ExternalPath != nil {
					f.ExternalPath = *e.File.ExternalPath
				}
				hit, err := fileHasReadKey(ctx, reader, f, keyIdx, tx.ReadKey, &key)
				if err != nil {
					return err
				}
				if hit {
					return fmt.Errorf("%w by snapshot %d (a concurrent commit after snapshot %d, which the transaction read)", ErrReadConflict, id, tx.ReadBase)
				}
			}
		}
	}
	return nil
}

// fileHasReadKey reports whether a row of f has a key readKey accepts.
func fileHasReadKey(ctx context.Context, reader *sortedrun.Reader, f *sortedrun.File, keyIdx []int, readKey func([]byte) bool, key *[]byte) (bool, error) {
	rr, err := reader.OpenRows(ctx, f, nil, nil)
	if err != nil {
		return false, err
	}
	defer rr.Close()
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return false, rr.Close()
		}
		if err != nil {
			return false, err
		}
		if *key = kv.AppendKey((*key)[:0], row, keyIdx); readKey(*key) {
			return true, nil
		}
	}
}
