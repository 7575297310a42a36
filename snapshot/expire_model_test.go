package snapshot_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The expiration model test: seeded random histories of commits (appends,
// compactions with upgrades, partition overwrites) on the main branch and
// on branches created from tags, with tags, consumers, tag deletions,
// rollbacks and expirations under random settings, checked after every
// maintenance step against an in-memory model:
//
//   - the snapshots left are exactly the ones the retention settings keep;
//   - every retained snapshot and every tag, of every branch, still lists
//     the files it was committed with, and each of those files is on
//     storage with its original bytes (nothing referenced was deleted);
//   - every data file and manifest file on storage is referenced by some
//     retained snapshot or tag (everything unreferenced was deleted) —
//     after a rollback once remove_orphan_files has run.
//
// -expire.seeds sets how many seeds run (each a history of ~120 steps).

var expireSeeds = flag.Int("expire.seeds", 6, "histories the expiration model test runs")

type expireModel struct {
	t     *testing.T
	ctx   context.Context
	st    storage.Storage
	rng   *rand.Rand
	clock time.Time
	seq   int
	// live[branch][id] are the live files of each snapshot ever committed.
	live map[string]map[snapshot.SnapshotID]model
	// content of every data file ever written, by path.
	content map[string]string
	// consumers of the main branch: id → next snapshot.
	consumers map[string]snapshot.SnapshotID
	orphans   bool // a rollback left unreferenced files behind
}

func (m *expireModel) now() time.Time { return m.clock }

func (m *expireModel) table(branch string) *snapshot.Table { return snapshot.OpenTable(m.st, branch) }

// partOf decodes the partition value of an entry of the test table.
func partOf(t testing.TB, e manifest.ManifestEntry) int32 {
	vals, err := binaryrow.DecodeSerialized(partTypes, e.Partition)
	if err != nil {
		t.Fatal(err)
	}
	return vals[0].(int32)
}

func dataPath(part, bucket int32, name string) string {
	return fmt.Sprintf("f1=%d/bucket-%d/%s", part, bucket, name)
}

// latestModel returns the latest snapshot id of branch and its live files.
func (m *expireModel) latestModel(branch string) (snapshot.SnapshotID, model) {
	id, ok, err := m.table(branch).Snapshots().LatestID(m.ctx)
	if err != nil {
		m.t.Fatal(err)
	}
	if !ok {
		return 0, model{}
	}
	return id, m.live[branch][id]
}

// commit makes one random commit on branch.
func (m *expireModel) commit(branch string) {
	t := m.t
	base, cur := m.latestModel(branch)
	next := cur.clone()
	ch := &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: fmt.Sprintf("u%d", m.seq), CommitIdentifier: snapshot.BatchCommitIdentifier}
	newFile := func(part, bucket, level int32) manifest.ManifestEntry {
		m.seq++
		name := fmt.Sprintf("data-%05d.parquet", m.seq)
		f := fileSpec{name: name, part: part, bucket: bucket, level: level, rows: int64(1 + m.rng.IntN(9)), minKey: name, maxKey: name}
		if err := m.st.WriteAll(m.ctx, dataPath(part, bucket, name), []byte("content of "+name)); err != nil {
			t.Fatal(err)
		}
		m.content[dataPath(part, bucket, name)] = "content of " + name
		return add(t, f)
	}
	liveList := slices.Collect(maps.Values(cur))
	sort.Slice(liveList, func(i, j int) bool { return liveList[i].File.FileName < liveList[j].File.FileName })
	switch r := m.rng.IntN(10); {
	case r < 5 || len(liveList) == 0: // append
		for range 1 + m.rng.IntN(3) {
			ch.Entries = append(ch.Entries, newFile(int32(m.rng.IntN(3)), int32(m.rng.IntN(2)), 0))
		}
	case r < 8: // compact: delete some files of a bucket, maybe upgrade one, add one
		ch.Kind = snapshot.CommitKindCompact
		pick := liveList[m.rng.IntN(len(liveList))]
		for _, e := range liveList {
			if string(e.Partition) != string(pick.Partition) || e.Bucket != pick.Bucket || m.rng.IntN(3) == 0 && e.File.FileName != pick.File.FileName {
				continue
			}
			d := e
			d.Kind = manifest.FileKindDelete
			ch.Entries = append(ch.Entries, d)
			if m.rng.IntN(4) == 0 { // upgrade: the same file on a higher level
				u := e
				u.Kind = manifest.FileKindAdd
				u.File.Level++
				ch.Entries = append(ch.Entries, u)
			}
		}
		part := partOf(t, pick)
		ch.Entries = append(ch.Entries, newFile(part, int32(pick.Bucket), 1+int32(m.rng.IntN(3))))
	default: // overwrite one partition
		part := int32(m.rng.IntN(3))
		ch.Kind = snapshot.CommitKindOverwrite
		ch.OverwritePartitions = [][]byte{partition(t, part)}
		for _, e := range liveList {
			if string(e.Partition) == string(partition(t, part)) {
				d := e
				d.Kind = manifest.FileKindDelete
				next.apply(t, []manifest.ManifestEntry{d})
			}
		}
		if m.rng.IntN(2) == 0 {
			ch.Entries = append(ch.Entries, newFile(part, int32(m.rng.IntN(2)), 0))
		}
	}
	next.apply(t, ch.Entries)
	m.clock = m.clock.Add(time.Minute)
	opts := testOptions()
	opts.Branch = branch
	opts.Now = m.now
	s, err := snapshot.NewCommitter(m.st, opts).Commit(m.ctx, 0, ch)
	if err != nil {
		t.Fatalf("commit on %s: %v", branch, err)
	}
	if s == nil || s.ID != base+1 && len(ch.Entries)+len(ch.OverwritePartitions) > 0 {
		t.Fatalf("commit on %s after %d gave %v", branch, base, s)
	}
	if s.ID != base {
		m.live[branch][s.ID] = next
	}
}

// expectedEnd is the model of Java's ExpireSnapshotsImpl.expire: the first
// snapshot id kept.
func (m *expireModel) expectedEnd(branch string, cfg snapshot.ExpireConfig) snapshot.SnapshotID {
	ids, err := m.table(branch).Snapshots().List(m.ctx)
	if err != nil {
		m.t.Fatal(err)
	}
	earliest, latest := int64(ids[0]), int64(ids[len(ids)-1])
	lo := max(latest-int64(cfg.RetainMax)+1, earliest)
	hi := latest - int64(cfg.RetainMin) + 1
	if branch == snapshot.MainBranch {
		for _, n := range m.consumers {
			hi = min(hi, int64(n))
		}
	}
	hi = min(hi, earliest+int64(cfg.MaxDeletes))
	older := cfg.Now().Add(-cfg.TimeRetained).UnixMilli()
	end := hi
	for id := lo; id < hi; id++ {
		s, err := m.table(branch).Snapshots().Snapshot(m.ctx, snapshot.SnapshotID(id))
		if err != nil {
			m.t.Fatal(err)
		}
		if s.TimeMillis >= older {
			end = id
			break
		}
	}
	return snapshot.SnapshotID(max(end, earliest))
}

func (m *expireModel) expire(branch string) {
	t := m.t
	cfg := snapshot.ExpireConfig{
		RetainMin:  1 + m.rng.IntN(4),
		MaxDeletes: 1 + m.rng.IntN(12),
		Now:        m.now,
	}
	cfg.RetainMax = cfg.RetainMin + m.rng.IntN(8)
	cfg.TimeRetained = time.Duration(m.rng.IntN(20)) * time.Minute
	want := m.expectedEnd(branch, cfg)
	if _, err := m.table(branch).ExpireSnapshots(m.ctx, cfg); err != nil {
		t.Fatalf("expire %s %+v: %v", branch, cfg, err)
	}
	ids, err := m.table(branch).Snapshots().List(m.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] != want {
		t.Fatalf("expire %s (min %d max %d limit %d time %v): earliest snapshot %d, want %d", branch,
			cfg.RetainMin, cfg.RetainMax, cfg.MaxDeletes, cfg.TimeRetained, ids[0], want)
	}
	if id, _, _ := m.table(branch).Snapshots().EarliestID(m.ctx); id != want {
		t.Fatalf("EARLIEST hint gives %d, want %d", id, want)
	}
}

// tagName returns a random existing tag of branch, or "".
func (m *expireModel) randomTag(branch string) string {
	names, err := m.table(branch).Tags().List(m.ctx)
	if err != nil {
		m.t.Fatal(err)
	}
	if len(names) == 0 {
		return ""
	}
	return names[m.rng.IntN(len(names))]
}

func (m *expireModel) step() string {
	t := m.t
	branches, err := m.table("").Branches().List(m.ctx)
	if err != nil {
		t.Fatal(err)
	}
	branch := snapshot.MainBranch
	if len(branches) > 0 && m.rng.IntN(3) == 0 {
		branch = branches[m.rng.IntN(len(branches))].Name
	}
	tbl := m.table(branch)
	switch r := m.rng.IntN(100); {
	case r < 55:
		m.commit(branch)
		return "commit " + branch
	case r < 65: // tag a retained snapshot
		ids, err := tbl.Snapshots().List(m.ctx)
		if err != nil || len(ids) == 0 {
			return "no tag"
		}
		m.seq++
		name := fmt.Sprintf("tag%d", m.seq)
		id := ids[m.rng.IntN(len(ids))]
		if _, err := tbl.CreateTag(m.ctx, name, &id, nil, m.clock); err != nil {
			t.Fatalf("create tag: %v", err)
		}
		return fmt.Sprintf("tag %s on %s/%d", name, branch, id)
	case r < 70:
		name := m.randomTag(branch)
		if name == "" {
			return "no tag to delete"
		}
		if _, err := tbl.DeleteTag(m.ctx, name); err != nil {
			t.Fatalf("delete tag %s: %v", name, err)
		}
		return "delete tag " + name + " of " + branch
	case r < 73 && branch == snapshot.MainBranch: // a consumer
		ids, _ := tbl.Snapshots().List(m.ctx)
		if len(ids) == 0 {
			return "no consumer"
		}
		id := fmt.Sprintf("c%d", m.rng.IntN(2))
		if m.rng.IntN(3) == 0 {
			delete(m.consumers, id)
			_ = m.st.Delete(m.ctx, snapshot.ConsumerPath("", id))
			return "drop consumer " + id
		}
		next := ids[m.rng.IntN(len(ids))]
		m.consumers[id] = next
		if err := m.st.WriteAll(m.ctx, snapshot.ConsumerPath("", id), snapshot.EncodeConsumer(&snapshot.Consumer{NextSnapshot: next})); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("consumer %s at %d", id, next)
	case r < 76 && branch == snapshot.MainBranch && len(branches) < 2: // a branch from a tag
		tag := m.randomTag(branch)
		if tag == "" {
			return "no branch"
		}
		m.seq++
		name := fmt.Sprintf("b%d", m.seq)
		if err := tbl.CreateBranch(m.ctx, name, tag); err != nil {
			t.Fatalf("create branch: %v", err)
		}
		tg, err := tbl.Tags().Get(m.ctx, tag)
		if err != nil {
			t.Fatal(err)
		}
		m.live[name] = map[snapshot.SnapshotID]model{tg.ID: m.live[snapshot.MainBranch][tg.ID]}
		return fmt.Sprintf("branch %s from tag %s", name, tag)
	case r < 78: // rollback to a retained snapshot or a tag
		ids, _ := tbl.Snapshots().List(m.ctx)
		if len(ids) == 0 {
			return "no rollback"
		}
		var err error
		var to string
		if tag := m.randomTag(branch); tag != "" && m.rng.IntN(2) == 0 {
			_, err = tbl.RollbackToTag(m.ctx, tag)
			to = "tag " + tag
		} else {
			id := ids[m.rng.IntN(len(ids))]
			_, err = tbl.RollbackToSnapshot(m.ctx, id)
			to = fmt.Sprint(id)
		}
		if err != nil {
			t.Fatalf("rollback %s to %s: %v", branch, to, err)
		}
		m.orphans = true
		return "rollback " + branch + " to " + to
	case r < 80: // orphan-file cleaning
		res, err := snapshot.RemoveOrphanFiles(m.ctx, m.st, time.Now().Add(time.Hour), false)
		if err != nil {
			t.Fatalf("remove orphan files: %v", err)
		}
		if !m.orphans && res.Files > 0 {
			t.Fatalf("remove orphan files deleted %v, but nothing was orphaned", res.Paths)
		}
		m.orphans = false
		return fmt.Sprintf("remove orphan files: %d", res.Files)
	default:
		m.expire(branch)
		return "expire " + branch
	}
}

// verify checks the model's invariants on every branch.
func (m *expireModel) verify() {
	t := m.t
	refData := map[string]bool{}
	refMeta := map[string]bool{}
	check := func(what string, branch string, s *snapshot.Snapshot) {
		want, ok := m.live[branch][s.ID]
		if !ok {
			t.Fatalf("%s: snapshot %d of %s is not in the model", what, s.ID, branch)
		}
		checkLive(t, m.st, s, want)
		for _, e := range want {
			p := dataPath(partOf(t, e), int32(e.Bucket), e.File.FileName)
			b, err := m.st.ReadAll(m.ctx, p)
			if err != nil || string(b) != m.content[p] {
				t.Fatalf("%s: file %s of snapshot %d of %s: %q, %v", what, p, s.ID, branch, b, err)
			}
			refData[p] = true
		}
		for _, list := range []string{s.BaseManifestList, s.DeltaManifestList} {
			refMeta[manifest.ManifestDir+"/"+list] = true
			ms, err := snapshot.CachedManifestList(m.ctx, m.st, list)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for _, mf := range ms {
				refMeta[manifest.ManifestDir+"/"+mf.FileName] = true
			}
		}
	}
	branches := []string{snapshot.MainBranch}
	bs, err := m.table("").Branches().List(m.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		branches = append(branches, b.Name)
	}
	for _, b := range branches {
		tbl := m.table(b)
		snaps, err := tbl.Snapshots().All(m.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range snaps {
			check("snapshot", b, s)
		}
		tags, err := tbl.Tags().All(m.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range tags {
			check("tag "+tg.Name, b, &tg.Snapshot)
		}
	}
	if m.orphans {
		return
	}
	for info, err := range m.st.List(m.ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(info.Path, "f1="):
			if !refData[info.Path] {
				t.Fatalf("data file %s is referenced by no snapshot or tag but was not deleted%s", info.Path, m.whoMentions(baseOf(info.Path)))
			}
		case strings.HasPrefix(info.Path, manifest.ManifestDir+"/"):
			if !refMeta[info.Path] {
				t.Fatalf("manifest file %s is referenced by no snapshot or tag but was not deleted", info.Path)
			}
		}
	}
}

func TestExpireModel(t *testing.T) {
	for seed := range *expireSeeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ctx := context.Background()
			st, err := storage.Open(ctx, "mem://")
			if err != nil {
				t.Fatal(err)
			}
			newTestTable(t, st)
			m := &expireModel{t: t, ctx: ctx, st: st, rng: rand.New(rand.NewPCG(uint64(seed), 7)),
				clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), content: map[string]string{},
				live: map[string]map[snapshot.SnapshotID]model{snapshot.MainBranch: {}}, consumers: map[string]snapshot.SnapshotID{}}
			var log []string
			defer func() {
				if t.Failed() {
					t.Logf("seed %d, steps:\n%s", seed, strings.Join(log, "\n"))
				}
			}()
			m.commit(snapshot.MainBranch)
			for range 120 {
				log = append(log, m.step())
				m.verify()
				if t.Failed() {
					return
				}
			}
		})
	}
}

func baseOf(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// whoMentions lists the manifest entries of retained snapshots and tags
// naming file, for failure messages.
func (m *expireModel) whoMentions(file string) string {
	var out []string
	seen := map[string]bool{}
	for info, err := range m.st.List(m.ctx, manifest.ManifestDir+"/") {
		if err != nil || seen[info.Path] {
			continue
		}
		seen[info.Path] = true
		name := baseOf(info.Path)
		es, err := snapshot.CachedManifest(m.ctx, m.st, name)
		if err != nil {
			continue
		}
		for _, e := range es {
			if e.File.FileName == file {
				out = append(out, fmt.Sprintf("%s: %v level %d", name, e.Kind, e.File.Level))
			}
		}
	}
	ids, _ := m.table("").Snapshots().List(m.ctx)
	tags, _ := m.table("").Tags().All(m.ctx)
	var ts []string
	for _, tg := range tags {
		ts = append(ts, fmt.Sprintf("%s@%d", tg.Name, tg.ID))
	}
	return fmt.Sprintf("\n  snapshots %v tags %v\n  mentioned by %s", ids, ts, strings.Join(out, "\n  "))
}
