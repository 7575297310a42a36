package lsmwrite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// RollForwardAge is how old a transaction record must be before a server
// that comes across it rolls it forward (RollForwardAll with a minimum
// age): a younger one is most likely still being committed by its writer.
// Rolling forward a record its writer is still committing is harmless, only
// wasted work.
const RollForwardAge = 5 * time.Second

// RollForwardResult says what a roll-forward did.
type RollForwardResult struct {
	// Transactions completed and their table commits made (tables already
	// committed, or dropped since, are not counted).
	Transactions, Commits int
}

// RollForwardAll rolls forward every transaction record of the warehouse
// wh last modified before olderThan (the zero time: all), a time of the
// store's clock (storage.Clock: the store stamps the records). A record
// that cannot be completed is kept and its error joined into the result's
// error; the others go on.
func RollForwardAll(ctx context.Context, wh storage.Storage, olderThan time.Time) (RollForwardResult, error) {
	var (
		res  RollForwardResult
		errs error
		ids  []string
	)
	for info, err := range snapshot.ListTxRecords(ctx, wh) {
		if err != nil {
			return res, err
		}
		if !olderThan.IsZero() && !info.ModTime.Before(olderThan) {
			continue
		}
		ids = append(ids, info.ID)
	}
	for _, id := range ids {
		n, err := RollForward(ctx, wh, id)
		if err != nil {
			errs = errors.Join(errs, err)
			continue
		}
		res.Transactions++
		res.Commits += n
	}
	return res, errs
}

// RollForward completes the transaction whose record is id in the
// warehouse wh: every table without a snapshot of the transaction since the
// record's base gets its commit, then the record is deleted. A table
// dropped since (or dropped and created again) is skipped. It returns the
// number of commits it made; a record already gone is not an error.
func RollForward(ctx context.Context, wh storage.Storage, id string) (int, error) {
	rec, err := snapshot.ReadTxRecord(ctx, wh, id)
	if errors.Is(err, storage.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var parts []*atomicPart
	for i := range rec.Tables {
		t := &rec.Tables[i]
		st := wh.Sub(t.Path)
		sch, err := snapshot.NewSchemaManager(st, t.Branch).Schema(ctx, t.SchemaID)
		if errors.Is(err, snapshot.ErrSchemaNotFound) || errors.Is(err, storage.ErrNotExist) {
			continue // dropped
		}
		if err != nil {
			return 0, fmt.Errorf("lsmwrite: roll forward transaction %s: table %s: %w", id, t.Path, err)
		}
		if sch.TimeMillis != t.SchemaTime {
			continue // dropped and created again
		}
		p := &atomicPart{
			path: t.Path, st: st, handle: snapshot.OpenTable(st, t.Branch), changes: &t.Changes,
			tx: TxCommit{Schema: sch, Options: Options{Branch: t.Branch, CommitUser: rec.ID}},
		}
		if t.Base > 0 {
			p.base = &snapshot.Snapshot{ID: t.Base}
		}
		w, err := NewTableWrite(ctx, st, sch, nil, p.tx.Options)
		if err != nil {
			return 0, fmt.Errorf("lsmwrite: roll forward transaction %s: table %s: %w", id, t.Path, err)
		}
		var keyTypes []schema.DataType
		if w.spec.pk {
			keyTypes = w.spec.keyTypes
		}
		p.co, err = commitOptions(w.core, t.Branch, w.partTypes, keyTypes, nil, w.mode == bucketUnaware)
		_ = w.Abort(ctx)
		if err != nil {
			return 0, fmt.Errorf("lsmwrite: roll forward transaction %s: table %s: %w", id, t.Path, err)
		}
		p.co.SchemaTimeMillis = sch.TimeMillis
		p.redo = func(ctx context.Context, latest *snapshot.Snapshot) (*TableWrite, *snapshot.CommitChanges, error) {
			return redoFromFiles(ctx, p, t, latest)
		}
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b *atomicPart) int { return strings.Compare(a.key(), b.key()) })
	keys := make([]string, len(parts))
	for i, p := range parts {
		keys[i] = p.key()
	}
	// Under the tables' commit locks: a writer of this process still
	// committing the transaction finishes first.
	lctx, unlock := snapshot.LockCommits(ctx, keys)
	defer unlock()
	commits := 0
	for _, p := range parts {
		before, err := p.latest(lctx)
		if err != nil {
			return commits, fmt.Errorf("lsmwrite: roll forward transaction %s: table %s: %w", id, p.path, err)
		}
		s, err := p.commit(lctx)
		if errors.Is(err, snapshot.ErrTableDropped) {
			p.abort(lctx)
			continue // dropped (or created again) meanwhile
		}
		if err != nil {
			return commits, fmt.Errorf("lsmwrite: roll forward transaction %s: table %s: %w", id, p.path, err)
		}
		if s != nil && (before == nil || s.ID > before.ID) {
			commits++
		}
	}
	if err := snapshot.DeleteTxRecord(ctx, wh, id); err != nil {
		return commits, err
	}
	return commits, nil
}

// redoFromFiles writes the records of a recorded commit again on latest:
// read back from its data files in sequence order per bucket. Append
// tables keep the recorded files (their rows have no order to keep).
func redoFromFiles(ctx context.Context, p *atomicPart, t *snapshot.TxRecordTable, latest *snapshot.Snapshot) (*TableWrite, *snapshot.CommitChanges, error) {
	sch := p.tx.Schema
	if !sch.IsPrimaryKeyTable() {
		return nil, p.changes, nil
	}
	recs, err := readBackRecords(ctx, p.st, t.Branch, sch, t.Changes.Entries)
	if err != nil {
		return nil, nil, err
	}
	tx := p.tx
	tx.Records = recs
	w, ch, err := writeRecords(ctx, p.st, tx, latest)
	if err != nil {
		return nil, nil, err
	}
	if t.Changes.OverwritePartitions != nil {
		ch.Kind = snapshot.CommitKindOverwrite
		ch.OverwritePartitions = t.Changes.OverwritePartitions
	}
	return w, ch, nil
}

// readBackRecords reads the records of the ADD entries' data files of a
// primary-key table, each bucket's in sequence order.
func readBackRecords(ctx context.Context, st storage.Storage, branch string, sch *schema.TableSchema, entries []manifest.ManifestEntry) ([]kv.KeyValue, error) {
	core, err := sch.Options.Core()
	if err != nil {
		return nil, err
	}
	partFields := sch.PartitionFields()
	partTypes := make([]schema.DataType, len(partFields))
	for i := range partFields {
		partTypes[i] = partFields[i].Type
	}
	keyIdx := sch.Projection(sch.TrimmedPrimaryKeys())
	reader := sortedrun.NewReader(sortedrun.Source{Store: st, Schemas: snapshot.NewSchemaManager(st, branch)}, sch.Fields, nil, keyIdx, time.UTC)
	type bucketKey struct {
		part   string
		bucket manifest.Bucket
	}
	groups := map[bucketKey][]kv.KeyValue{}
	var order []bucketKey
	for i := range entries {
		e := &entries[i]
		if e.Kind != manifest.FileKindAdd {
			continue
		}
		vals, err := binaryrow.DecodeSerialized(partTypes, e.Partition)
		if err != nil {
			return nil, fmt.Errorf("lsmwrite: partition of %s: %w", e.File.FileName, err)
		}
		dir, err := schema.PartitionPath(partFields, vals, core.PartitionDefaultName, core.PartitionLegacyName)
		if err != nil {
			return nil, err
		}
		f := &sortedrun.File{Name: e.File.FileName, Dir: dir + BucketDir(e.Bucket) + "/", SchemaID: e.File.SchemaID, Level: int(e.File.Level)}
		if e.File.ExternalPath != nil {
			f.ExternalPath = *e.File.ExternalPath
		}
		rd, err := reader.OpenKeyValues(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("lsmwrite: read back %s: %w", e.File.FileName, err)
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		for {
			r, ok, err := rd.Next()
			if err == nil && !ok {
				err = io.EOF
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rd.Close()
				return nil, fmt.Errorf("lsmwrite: read back %s: %w", e.File.FileName, err)
			}
			groups[k] = append(groups[k], kv.KeyValue{Kind: r.Kind, Seq: r.Seq, Value: r.Value, Level: -1})
		}
		if err := rd.Close(); err != nil {
			return nil, err
		}
	}
	var out []kv.KeyValue
	for _, k := range order {
		g := groups[k]
		slices.SortStableFunc(g, func(a, b kv.KeyValue) int { return cmp.Compare(a.Seq, b.Seq) })
		out = append(out, g...)
	}
	return out, nil
}
