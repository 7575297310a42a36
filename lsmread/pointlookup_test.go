package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/lsmread"
)

// TestPointLookupEqualsFilteredRead: a filter that pins the whole primary
// key (key = v AND …, IN lists, ORs of keys; present and absent keys) read
// through lookup files equals the full read filtered, on every snapshot of
// every readable primary-key fixture, with and without a further filter and
// a projection.
func TestPointLookupEqualsFilteredRead(t *testing.T) {
	defer lsmread.SetLookupFraction(0)()
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	before := lsmread.LookupCacheStats()
	var n, found int
	for _, s := range fixtureSnapshotReads(t) {
		sch := s.plan.Schema
		if len(sch.PrimaryKeys) == 0 || len(s.rows) == 0 {
			continue
		}
		pk := sch.Projection(sch.PrimaryKeys)
		if len(pk) != len(sch.PrimaryKeys) {
			continue
		}
		leaf := func(f int, v any) lsmread.Leaf {
			return lsmread.Leaf{Field: f, Name: sch.Fields[f].Name, Type: sch.Fields[f].Type, Op: lsmread.OpEq, Literals: []any{v}}
		}
		key := func(row []any) lsmread.And {
			var and lsmread.And
			for _, f := range pk {
				and = append(and, leaf(f, row[f]))
			}
			return and
		}
		for range 12 {
			row := s.rows[rng.IntN(len(s.rows))]
			var pred lsmread.Predicate = key(row)
			switch rng.IntN(5) {
			case 0: // several keys
				var or lsmread.Or
				for range 1 + rng.IntN(4) {
					or = append(or, key(s.rows[rng.IntN(len(s.rows))]))
				}
				pred = or
			case 1: // an IN list on the last key column
				last := pk[len(pk)-1]
				var lits []any
				for range 1 + rng.IntN(5) {
					lits = append(lits, s.rows[rng.IntN(len(s.rows))][last])
				}
				and := key(row)
				and[len(and)-1] = lsmread.Leaf{Field: last, Name: sch.Fields[last].Name, Type: sch.Fields[last].Type, Op: lsmread.OpIn, Literals: lits}
				pred = and
			case 3: // the trimmed key only: every partition
				var and lsmread.And
				for _, l := range key(row) {
					if !slices.Contains(sch.PartitionKeys, l.(lsmread.Leaf).Name) {
						and = append(and, l)
					}
				}
				if len(and) > 0 {
					pred = and
				}
			case 2: // a further filter on another column
				f := rng.IntN(len(sch.Fields))
				if comparableType(&sch.Fields[f].Type) && row[f] != nil {
					pred = append(key(row), lsmread.Leaf{Field: f, Name: sch.Fields[f].Name, Type: sch.Fields[f].Type, Op: lsmread.OpGtEq, Literals: []any{row[f]}})
				}
			}
			spec := s.spec()
			spec.Filter = pred
			_, got := mustRead(t, s.plan.Table, spec)
			want := filterRows(pred, s.rows)
			sameMultiset(t, fmt.Sprintf("%s WHERE %s (seed %d)", s, pred, seed), got, want)
			n++
			if len(want) > 0 {
				found++
			}
		}
	}
	builds := lsmread.LookupCacheStats().Builds - before.Builds
	t.Logf("%d point lookups checked, %d found rows, %d lookup files built (seed %d)", n, found, builds, seed)
	if found == 0 || builds == 0 {
		t.Fatalf("no lookup found a row (%d) or no lookup file was built (%d): the lookup path was not tested", found, builds)
	}
}

// TestPointReadsLookUpInBatchScans: a point filter over raw splits
// (deletion-vector and first-row tables) read by the batch scan
// (ReadParallelBatches with a batch conversion, as the GMS adapter reads
// every scan and each probe of a lookup join) looks its keys up instead of
// decoding the splits' files into batches, and returns the filtered rows.
func TestPointReadsLookUpInBatchScans(t *testing.T) {
	defer lsmread.SetLookupFraction(0)()
	ctx := context.Background()
	checked := 0
	for _, s := range fixtureSnapshotReads(t) {
		sch := s.plan.Schema
		pk := sch.Projection(sch.PrimaryKeys)
		if len(sch.PrimaryKeys) == 0 || len(pk) != len(sch.PrimaryKeys) || len(s.rows) == 0 {
			continue
		}
		raw := true
		for _, sp := range s.plan.Splits {
			raw = raw && sp.Mode == lsmread.ReadRaw
		}
		if !raw || len(s.plan.Splits) == 0 {
			continue
		}
		row := s.rows[len(s.rows)/2]
		var pred lsmread.And
		for _, f := range pk {
			pred = append(pred, lsmread.Leaf{Field: f, Name: sch.Fields[f].Name, Type: sch.Fields[f].Type, Op: lsmread.OpEq, Literals: []any{row[f]}})
		}
		spec := s.spec()
		spec.Filter = pred
		plan, err := s.plan.Table.Plan(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := plan.NewReader()
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		it := r.ReadParallelBatches(ctx, plan.Splits, nil, func(b *lsmread.Batch, rows [][]any) ([][]any, error) {
			batches++
			for i := range b.Rows() {
				k := i
				if b.Sel != nil {
					k = int(b.Sel[i])
				}
				out := make([]any, len(b.Cols))
				for c := range b.Cols {
					out[c] = b.Cols[c].Value(k)
				}
				rows = append(rows, out)
			}
			return rows, nil
		})
		var got [][]any
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			got = append(got, row)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		sameMultiset(t, fmt.Sprintf("%s WHERE %s", s, pred), got, filterRows(pred, s.rows))
		if batches > 0 {
			t.Fatalf("%s WHERE %s: %d batches decoded for a point read", s, pred, batches)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no fixture snapshot with raw primary-key splits")
	}
	t.Logf("%d point reads of raw splits checked", checked)
}
