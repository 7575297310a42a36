package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The tests in this file read the fixture tables twice, once with a scan
// option and once without, and check that the option means what it says:
// reading with it equals applying it to the full read. Pruning (partition,
// manifest, file, row-group and bucket statistics) must never change the
// result, only the work.

// testSeed is the seed of the random tests: $LAKESQL_SEED or a fixed one.
func testSeed(t *testing.T) uint64 {
	if s := os.Getenv("LAKESQL_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return 20260110
}

// snapshotRead is a full read of one snapshot of a fixture.
type snapshotRead struct {
	fixture string
	id      snapshot.SnapshotID
	plan    *lsmread.Plan
	rows    [][]any
	// splitRows[i] are the rows of plan.Splits[i].
	splitRows [][][]any
}

func (s *snapshotRead) String() string { return fmt.Sprintf("%s@%d", s.fixture, s.id) }

// fixtureSnapshotReads reads every snapshot of every readable fixture (main
// branch), split by split.
func fixtureSnapshotReads(t *testing.T) []*snapshotRead {
	t.Helper()
	ctx := context.Background()
	var out []*snapshotRead
	for _, f := range readableFixtures(t) {
		ids, err := f.table.Snapshots().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			plan, err := f.table.Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: id}})
			if err != nil {
				if errors.Is(err, lsmread.ErrUnsupported) || errors.Is(err, manifest.ErrUnsupported) {
					continue
				}
				t.Fatalf("%s@%d: %v", f.name, id, err)
			}
			sr := &snapshotRead{fixture: f.name, id: id, plan: plan}
			r, err := plan.NewReader()
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range plan.Splits {
				rows, err := readSplit(ctx, r, split)
				if err != nil {
					t.Fatalf("%s: %v", sr, err)
				}
				sr.splitRows = append(sr.splitRows, rows)
				sr.rows = append(sr.rows, rows...)
			}
			out = append(out, sr)
		}
	}
	return out
}

func readSplit(ctx context.Context, r *lsmread.Reader, split *lsmread.DataSplit) ([][]any, error) {
	it, err := r.Read(ctx, split)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for {
		row, err := it.Next()
		if err != nil {
			it.Close()
			if errors.Is(err, io.EOF) {
				return rows, nil
			}
			return nil, err
		}
		rows = append(rows, row)
	}
}

// timeTravel is the scan of the same snapshot as s.
func (s *snapshotRead) spec() lsmread.ScanSpec {
	return lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: s.id}}
}

func projectRows(rows [][]any, idx []int) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		p := make([]any, len(idx))
		for j, k := range idx {
			p[j] = r[k]
		}
		out[i] = p
	}
	return out
}

// TestProjectionCommutes: reading with a projection equals projecting the
// full read, for random column subsets in random orders (and repeated
// columns), on every snapshot of every readable fixture.
func TestProjectionCommutes(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	n := 0
	for _, s := range fixtureSnapshotReads(t) {
		fields := s.plan.Schema.Fields
		for range 6 {
			k := 1 + rng.IntN(len(fields))
			idx := rng.Perm(len(fields))[:k]
			if rng.IntN(4) == 0 {
				idx = append(idx, idx[rng.IntN(len(idx))]) // a column twice
			}
			names := make([]string, len(idx))
			for i, j := range idx {
				names[i] = fields[j].Name
			}
			spec := s.spec()
			spec.Projection = names
			_, got := mustRead(t, s.plan.Table, spec)
			sameMultiset(t, fmt.Sprintf("%s projection %v (seed %d)", s, names, seed), got, projectRows(s.rows, idx))
			n++
		}
		// The empty projection reads one empty row per row.
		spec := s.spec()
		spec.Projection = []string{}
		_, got := mustRead(t, s.plan.Table, spec)
		if len(got) != len(s.rows) {
			t.Errorf("%s: empty projection read %d rows, want %d", s, len(got), len(s.rows))
		}
	}
	t.Logf("%d projections checked", n)
}

// comparable reports whether a predicate may compare values of type t.
func comparableType(t *schema.DataType) bool {
	switch t.Root {
	case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
		return false
	}
	return true
}

// predicateGen builds random predicates over the columns of a read, with
// literals taken from the data (and neighbours of them for integers).
type predicateGen struct {
	rng    *rand.Rand
	sch    *schema.TableSchema
	rows   [][]any
	fields []int // comparable field indexes
}

func (g *predicateGen) literal(field int) any {
	var v any
	for range 8 {
		if len(g.rows) == 0 {
			break
		}
		v = g.rows[g.rng.IntN(len(g.rows))][field]
		if v != nil {
			break
		}
	}
	if v == nil {
		return nil
	}
	if g.rng.IntN(3) == 0 {
		d := int64(g.rng.IntN(3) - 1)
		switch x := v.(type) {
		case int8:
			return x + int8(d)
		case int16:
			return x + int16(d)
		case int32:
			return x + int32(d)
		case int64:
			return x + d
		case string:
			if d > 0 {
				return x + "\x00"
			}
		}
	}
	return v
}

func (g *predicateGen) leaf() lsmread.Predicate {
	f := g.fields[g.rng.IntN(len(g.fields))]
	fld := g.sch.Fields[f]
	l := lsmread.Leaf{Field: f, Name: fld.Name, Type: fld.Type}
	ops := []lsmread.Op{lsmread.OpEq, lsmread.OpNotEq, lsmread.OpLt, lsmread.OpLtEq, lsmread.OpGt, lsmread.OpGtEq,
		lsmread.OpIsNull, lsmread.OpIsNotNull, lsmread.OpIn, lsmread.OpNotIn}
	l.Op = ops[g.rng.IntN(len(ops))]
	switch l.Op {
	case lsmread.OpIsNull, lsmread.OpIsNotNull:
	case lsmread.OpIn, lsmread.OpNotIn:
		for range 1 + g.rng.IntN(3) {
			if v := g.literal(f); v != nil {
				l.Literals = append(l.Literals, v)
			}
		}
		if len(l.Literals) == 0 {
			l.Op = lsmread.OpIsNull
		}
	default:
		v := g.literal(f)
		if v == nil {
			l.Op = lsmread.OpIsNull
		} else {
			l.Literals = []any{v}
		}
	}
	return l
}

func (g *predicateGen) predicate() lsmread.Predicate {
	switch g.rng.IntN(6) {
	case 0:
		return lsmread.And{g.leaf(), g.leaf()}
	case 1:
		return lsmread.Or{g.leaf(), g.leaf()}
	case 2:
		return lsmread.And{lsmread.Or{g.leaf(), g.leaf()}, g.leaf()}
	}
	return g.leaf()
}

func filterRows(p lsmread.Predicate, rows [][]any) [][]any {
	var out [][]any
	for _, r := range rows {
		if lsmread.Test(p, func(f int) (any, bool) { return r[f], true }) == lsmread.True {
			out = append(out, r)
		}
	}
	return out
}

// TestPredicateEqualsFilteredRead: a read with a filter equals the full read
// filtered by lsmread.Test, for random predicates (=, !=, <, <=, >, >=, IS
// [NOT] NULL, [NOT] IN, AND, OR) over random columns with literals from the
// data, on every snapshot of every readable fixture. Partition, manifest,
// file, row-group and bucket pruning must not lose a row.
func TestPredicateEqualsFilteredRead(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	var n, nonEmpty, pruned int
	for _, s := range fixtureSnapshotReads(t) {
		g := &predicateGen{rng: rng, sch: s.plan.Schema, rows: s.rows}
		for i, f := range s.plan.Schema.Fields {
			if comparableType(&f.Type) {
				g.fields = append(g.fields, i)
			}
		}
		if len(g.fields) == 0 {
			continue
		}
		var ro [][]any // the read-optimized full read, when needed
		for range 40 {
			pred := g.predicate()
			spec := s.spec()
			spec.Filter = pred
			plan, got := mustRead(t, s.plan.Table, spec)
			want := filterRows(pred, s.rows)
			sameMultiset(t, fmt.Sprintf("%s WHERE %s (seed %d)", s, pred, seed), got, want)
			n++
			if rng.IntN(4) == 0 {
				// The same with a projection that may leave out the
				// filtered columns, and read-optimized.
				fields := s.plan.Schema.Fields
				idx := rng.Perm(len(fields))[:1+rng.IntN(len(fields))]
				names := make([]string, len(idx))
				for i, j := range idx {
					names[i] = fields[j].Name
				}
				if ro == nil {
					rs := s.spec()
					rs.ReadOptimized = true
					_, ro = mustRead(t, s.plan.Table, rs)
				}
				spec.Projection = names
				spec.ReadOptimized = true
				_, got := mustRead(t, s.plan.Table, spec)
				sameMultiset(t, fmt.Sprintf("%s read-optimized SELECT %v WHERE %s (seed %d)", s, names, pred, seed),
					got, projectRows(filterRows(pred, ro), idx))
				n++
			}
			if len(want) > 0 {
				nonEmpty++
			}
			if plan.Stats.FilesPruned > 0 || plan.Stats.ManifestsPruned > 0 || plan.Stats.BucketsPruned > 0 {
				pruned++
			}
		}
	}
	t.Logf("%d predicates checked, %d with rows, %d pruned something (seed %d)", n, nonEmpty, pruned, seed)
	if nonEmpty == 0 || pruned == 0 {
		t.Fatalf("the random predicates neither matched rows nor pruned files (%d, %d)", nonEmpty, pruned)
	}
}

// TestTrivialPredicates: an empty AND keeps every row, an empty OR none.
func TestTrivialPredicates(t *testing.T) {
	for _, f := range readableFixtures(t) {
		_, all := mustRead(t, f.table, lsmread.ScanSpec{Filter: lsmread.And{}})
		sameMultiset(t, f.name+" AND()", all, f.rows)
		_, none := mustRead(t, f.table, lsmread.ScanSpec{Filter: lsmread.Or{}})
		if len(none) != 0 {
			t.Errorf("%s: OR() read %d rows", f.name, len(none))
		}
	}
}

// partitionSpecText is the text a user writes for a partition value: its
// SQL string, or the default partition name for NULL.
func partitionSpecText(t *testing.T, typ *schema.DataType, v any, defaultName string) string {
	if v == nil {
		return defaultName
	}
	str := schema.StringType()
	s, err := schema.CastValue(v, typ, &str)
	if err != nil {
		t.Fatalf("partition value %v as text: %v", v, err)
	}
	return s.(string)
}

// TestPartitionSpecsEqualFilteredRead: PartitionSpecs keep exactly the rows
// of the partitions named, for every partition alone, pairs of partitions,
// and specs naming only the first partition column.
func TestPartitionSpecsEqualFilteredRead(t *testing.T) {
	n := 0
	for _, s := range fixtureSnapshotReads(t) {
		sch := s.plan.Schema
		pfields := sch.PartitionFields()
		if len(pfields) == 0 || len(s.rows) == 0 {
			continue
		}
		pidx := make([]int, len(pfields))
		for i, f := range pfields {
			pidx[i] = sch.FieldIndex(f.Name)
		}
		defName := s.plan.Core.PartitionDefaultName
		type part struct {
			spec map[string]string
			vals []any
		}
		var parts []part
		seen := map[string]bool{}
		for _, r := range s.rows {
			vals := make([]any, len(pidx))
			for i, j := range pidx {
				vals[i] = r[j]
			}
			if k := canonRow(vals); !seen[k] {
				seen[k] = true
				spec := map[string]string{}
				for i, f := range pfields {
					spec[f.Name] = partitionSpecText(t, &f.Type, vals[i], defName)
				}
				parts = append(parts, part{spec, vals})
			}
		}
		inPart := func(r []any, vals []any, cols int) bool {
			for i := range cols {
				a, b := r[pidx[i]], vals[i]
				if (a == nil) != (b == nil) || a != nil && schema.Compare(&pfields[i].Type, a, b) != 0 {
					return false
				}
			}
			return true
		}
		check := func(specs []map[string]string, match func(r []any) bool) {
			spec := s.spec()
			spec.PartitionSpecs = specs
			_, got := mustRead(t, s.plan.Table, spec)
			var want [][]any
			for _, r := range s.rows {
				if match(r) {
					want = append(want, r)
				}
			}
			if len(want) == 0 {
				t.Errorf("%s: partition spec %v matches no row of the full read", s, specs)
			}
			sameMultiset(t, fmt.Sprintf("%s partitions %v", s, specs), got, want)
			n++
		}
		for i, p := range parts {
			check([]map[string]string{p.spec}, func(r []any) bool { return inPart(r, p.vals, len(pidx)) })
			q := parts[(i+1)%len(parts)]
			check([]map[string]string{p.spec, q.spec}, func(r []any) bool {
				return inPart(r, p.vals, len(pidx)) || inPart(r, q.vals, len(pidx))
			})
			if len(pidx) > 1 {
				first := map[string]string{pfields[0].Name: p.spec[pfields[0].Name]}
				check([]map[string]string{first}, func(r []any) bool { return inPart(r, p.vals, 1) })
			}
		}
	}
	t.Logf("%d partition specs checked", n)
	if n == 0 {
		t.Fatal("no partitioned fixture read")
	}
}

// TestBucketFilterEqualsSplitRows: a Bucket filter keeps exactly the rows of
// the splits of that bucket (a bucket with no split reads nothing).
func TestBucketFilterEqualsSplitRows(t *testing.T) {
	n := 0
	for _, s := range fixtureSnapshotReads(t) {
		byBucket := map[int][][]any{}
		for i, split := range s.plan.Splits {
			b := int(split.Bucket)
			byBucket[b] = append(byBucket[b], s.splitRows[i]...)
		}
		for _, b := range []int{0, 1, 2, 3, -1} {
			spec := s.spec()
			spec.Bucket = &b
			plan, got := mustRead(t, s.plan.Table, spec)
			for _, split := range plan.Splits {
				if int(split.Bucket) != b {
					t.Errorf("%s: bucket %d filter planned %s", s, b, split)
				}
			}
			sameMultiset(t, fmt.Sprintf("%s bucket %d", s, b), got, byBucket[b])
			n++
		}
	}
	t.Logf("%d bucket filters checked", n)
}

// TestDeduplicateOverrideChangesNothing: overriding merge-engine=deduplicate
// on a table that already deduplicates reads the same rows, on every
// snapshot.
func TestDeduplicateOverrideChangesNothing(t *testing.T) {
	n := 0
	for _, s := range fixtureSnapshotReads(t) {
		if len(s.plan.Schema.PrimaryKeys) == 0 || s.plan.Core.MergeEngine != schema.MergeEngineDeduplicate {
			continue
		}
		spec := s.spec()
		spec.OptionOverrides = map[string]string{"merge-engine": "deduplicate"}
		_, got := mustRead(t, s.plan.Table, spec)
		sameMultiset(t, s.String()+" merge-engine=deduplicate", got, s.rows)
		n++
	}
	t.Logf("%d deduplicate snapshots checked", n)
	if n == 0 {
		t.Fatal("no deduplicate fixture read")
	}
}
