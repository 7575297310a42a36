package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// attemptFiles writes the metadata files of one commit attempt (Java:
// ManifestFile, ManifestList, IndexManifestFile writers) and remembers
// them, so that an attempt that lost the race can remove what it wrote.
type attemptFiles struct {
	st         storage.Storage
	paths      *manifest.PathFactory
	opts       []manifest.WriteOption
	stats      *partitionStats
	schemaID   int64
	targetSize int64
	written    []string // paths relative to the table root
	// The background writes (writeFile, wait).
	wg      sync.WaitGroup
	sem     chan struct{}
	errOnce sync.Once
	err     error
}

// writeFile starts writing a metadata file in the background: the writes of
// an attempt overlap (on a local disk their fsyncs share journal commits,
// most of a small commit's latency), and wait collects them before the
// snapshot that references them is published. A write error is wait's.
func (w *attemptFiles) writeFile(ctx context.Context, name string, data []byte) error {
	p := manifest.Path(name)
	w.written = append(w.written, p)
	if w.sem == nil {
		w.sem = make(chan struct{}, maxParallelMetaWrites)
	}
	w.wg.Add(1)
	w.sem <- struct{}{}
	go func() {
		defer w.wg.Done()
		defer func() { <-w.sem }()
		if err := w.st.WriteAll(ctx, p, data); err != nil {
			w.errOnce.Do(func() { w.err = fmt.Errorf("snapshot: commit: write %s: %w", p, err) })
		}
	}()
	return nil
}

// maxParallelMetaWrites bounds the metadata files one attempt writes at once.
const maxParallelMetaWrites = 8

// wait waits for the attempt's writes and returns the first error.
func (w *attemptFiles) wait() error {
	w.wg.Wait()
	return w.err
}

// cleanup removes every file of the attempt, best effort: a file left
// behind is an orphan no snapshot references.
func (w *attemptFiles) cleanup(ctx context.Context) {
	_ = w.wait()
	ctx = context.WithoutCancel(ctx)
	for _, p := range w.written {
		_ = w.st.Delete(ctx, p)
	}
	w.written = nil
}

// writeManifests writes entries as manifest files, rolling to a new file
// when one would exceed the target size (manifest.target-file-size), and
// returns their manifest-list records. No entries give no file.
func (w *attemptFiles) writeManifests(ctx context.Context, entries []manifest.ManifestEntry) ([]manifest.ManifestFileMeta, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	data, err := manifest.WriteManifest(entries, w.opts...)
	if err != nil {
		return nil, fmt.Errorf("snapshot: commit: encode manifest: %w", err)
	}
	if int64(len(data)) <= w.targetSize || len(entries) == 1 {
		m, err := w.writeManifest(ctx, entries, data)
		if err != nil {
			return nil, err
		}
		return []manifest.ManifestFileMeta{m}, nil
	}
	// Like Java's rolling writer, every file but the last reaches the
	// target size, so a rolled file is not merged again at once.
	parts := max(int64(len(data))/w.targetSize, 1)
	chunk := (len(entries) + int(parts) - 1) / int(parts)
	var out []manifest.ManifestFileMeta
	for i := 0; i < len(entries); i += chunk {
		part := entries[i:min(i+chunk, len(entries))]
		data, err := manifest.WriteManifest(part, w.opts...)
		if err != nil {
			return nil, fmt.Errorf("snapshot: commit: encode manifest: %w", err)
		}
		m, err := w.writeManifest(ctx, part, data)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (w *attemptFiles) writeManifest(ctx context.Context, entries []manifest.ManifestEntry, data []byte) (manifest.ManifestFileMeta, error) {
	stats, err := w.stats.of(entries)
	if err != nil {
		return manifest.ManifestFileMeta{}, err
	}
	name := w.paths.NewManifestName()
	if err := w.writeFile(ctx, name, data); err != nil {
		return manifest.ManifestFileMeta{}, err
	}
	return manifest.NewManifestFileMeta(name, int64(len(data)), entries, w.schemaID, stats), nil
}

// writeManifestList writes metas as a new manifest list and returns its
// name and size.
func (w *attemptFiles) writeManifestList(ctx context.Context, metas []manifest.ManifestFileMeta) (string, int64, error) {
	data, err := manifest.WriteManifestList(metas, w.opts...)
	if err != nil {
		return "", 0, fmt.Errorf("snapshot: commit: encode manifest list: %w", err)
	}
	name := w.paths.NewManifestListName()
	if err := w.writeFile(ctx, name, data); err != nil {
		return "", 0, err
	}
	return name, int64(len(data)), nil
}

// writeIndexManifest writes entries as a new index manifest.
func (w *attemptFiles) writeIndexManifest(ctx context.Context, entries []manifest.IndexManifestEntry) (string, error) {
	data, err := manifest.WriteIndexManifest(entries, w.opts...)
	if err != nil {
		return "", fmt.Errorf("snapshot: commit: encode index manifest: %w", err)
	}
	name := w.paths.NewIndexManifestName()
	if err := w.writeFile(ctx, name, data); err != nil {
		return "", err
	}
	return name, nil
}

// mergeManifests compacts the manifests of a base list as Java's
// ManifestFileMerger does: a full compaction when the manifests that must
// change (holding DELETE entries, or smaller than the target size) reach
// fullSize bytes, else a minor compaction that merges runs of small
// manifests once there are at least minCount of them. Merging cancels ADD
// and DELETE entries of the same file; the merged list describes the same
// live files as the input.
func (w *attemptFiles) mergeManifests(ctx context.Context, input []manifest.ManifestFileMeta, minCount int, fullSize int64) ([]manifest.ManifestFileMeta, error) {
	out, ok, err := w.fullCompaction(ctx, input, fullSize)
	if err != nil || ok {
		return out, err
	}
	return w.minorCompaction(ctx, input, minCount)
}

func (w *attemptFiles) minorCompaction(ctx context.Context, input []manifest.ManifestFileMeta, minCount int) ([]manifest.ManifestFileMeta, error) {
	var result, candidates []manifest.ManifestFileMeta
	var total int64
	for _, m := range input {
		total += m.FileSize
		candidates = append(candidates, m)
		if total >= w.targetSize {
			merged, err := w.mergeCandidates(ctx, candidates)
			if err != nil {
				return nil, err
			}
			result = append(result, merged...)
			candidates, total = nil, 0
		}
	}
	if len(candidates) >= minCount {
		merged, err := w.mergeCandidates(ctx, candidates)
		if err != nil {
			return nil, err
		}
		return append(result, merged...), nil
	}
	return append(result, candidates...), nil
}

// mergeCandidates merges consecutive manifests into new ones. DELETE
// entries whose ADD lies in an earlier manifest stay, so the order of the
// list keeps its meaning.
func (w *attemptFiles) mergeCandidates(ctx context.Context, candidates []manifest.ManifestFileMeta) ([]manifest.ManifestFileMeta, error) {
	if len(candidates) == 1 {
		return candidates, nil
	}
	lists, err := readManifests(ctx, w.st, candidates, nil)
	if err != nil {
		return nil, err
	}
	m := manifest.NewEntryMerger()
	for _, list := range lists {
		for _, e := range list {
			if err := m.Add(e); err != nil {
				return nil, err
			}
		}
	}
	return w.writeManifests(ctx, m.Entries())
}

func (w *attemptFiles) fullCompaction(ctx context.Context, input []manifest.ManifestFileMeta, fullSize int64) ([]manifest.ManifestFileMeta, bool, error) {
	mustChange := func(m *manifest.ManifestFileMeta) bool {
		return m.NumDeletedFiles > 0 || m.FileSize < w.targetSize
	}
	var deltaSize int64
	for i := range input {
		if mustChange(&input[i]) {
			deltaSize += input[i].FileSize
		}
	}
	if deltaSize < fullSize || len(input) <= 1 {
		return nil, false, nil
	}
	lists, err := readManifests(ctx, w.st, input, nil)
	if err != nil {
		return nil, false, err
	}
	deleted := map[manifest.FileIdentifier]bool{}
	for _, list := range lists {
		for i := range list {
			if list[i].Kind == manifest.FileKindDelete {
				deleted[list[i].Identifier()] = true
			}
		}
	}
	var result []manifest.ManifestFileMeta
	var rewrite []manifest.ManifestEntry
	for i := range input {
		change := mustChange(&input[i])
		var keep []manifest.ManifestEntry
		for _, e := range lists[i] {
			if e.Kind == manifest.FileKindDelete {
				continue
			}
			if deleted[e.Identifier()] {
				change = true
				continue
			}
			keep = append(keep, e)
		}
		if change {
			rewrite = append(rewrite, keep...)
		} else {
			result = append(result, input[i])
		}
	}
	merged, err := w.writeManifests(ctx, rewrite)
	if err != nil {
		return nil, false, err
	}
	return append(result, merged...), true, nil
}

// partitionStats computes the _PARTITION_STATS of a manifest: min, max and
// null count of every partition column over the entries' partition rows,
// collected in full mode (Java: SimpleStatsCollector in ManifestFile's
// writer). The stats rows use the partition types made nullable.
type partitionStats struct {
	types    []schema.DataType
	nullable []schema.DataType
}

func newPartitionStats(types []schema.DataType) *partitionStats {
	nullable := make([]schema.DataType, len(types))
	for i, t := range types {
		t.Nullable = true
		nullable[i] = t
	}
	return &partitionStats{types: types, nullable: nullable}
}

var errPartitionArity = errors.New("partition arity does not match the partition types")

func (p *partitionStats) of(entries []manifest.ManifestEntry) (manifest.SimpleStats, error) {
	if len(p.types) == 0 {
		return manifest.EmptyStats(), nil
	}
	// Decode each distinct partition once; null counts count entries.
	counts := map[string]int64{}
	var order []string
	for i := range entries {
		k := string(entries[i].Partition)
		if _, ok := counts[k]; !ok {
			order = append(order, k)
		}
		counts[k]++
	}
	n := len(p.types)
	mins, maxs := make([]any, n), make([]any, n)
	nulls := make([]int64, n)
	for _, k := range order {
		row, err := binaryrow.DecodeSerialized(p.types, []byte(k))
		if err != nil {
			return manifest.SimpleStats{}, fmt.Errorf("snapshot: commit: partition %x: %w", k, err)
		}
		if len(row) != n {
			return manifest.SimpleStats{}, fmt.Errorf("snapshot: commit: partition %x: %w (%d fields, %d types)", k, errPartitionArity, len(row), n)
		}
		for i, v := range row {
			if v == nil {
				nulls[i] += counts[k]
				continue
			}
			if mins[i] == nil || schema.Compare(&p.types[i], v, mins[i]) < 0 {
				mins[i] = v
			}
			if maxs[i] == nil || schema.Compare(&p.types[i], v, maxs[i]) > 0 {
				maxs[i] = v
			}
		}
	}
	minRow, err := binaryrow.EncodeSerialized(p.nullable, mins)
	if err != nil {
		return manifest.SimpleStats{}, fmt.Errorf("snapshot: commit: partition stats: %w", err)
	}
	maxRow, err := binaryrow.EncodeSerialized(p.nullable, maxs)
	if err != nil {
		return manifest.SimpleStats{}, fmt.Errorf("snapshot: commit: partition stats: %w", err)
	}
	nc := make([]*int64, n)
	for i := range nulls {
		v := nulls[i]
		nc[i] = &v
	}
	return manifest.SimpleStats{MinValues: minRow, MaxValues: maxRow, NullCounts: nc}, nil
}
