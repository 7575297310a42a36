package lsmread_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// TestPointLookupNewestFirstEqualsModel: one-key lookups in tables whose
// keys are written, updated and deleted across many level-0 files (some
// commits flush several files, some are compacted into higher levels)
// equal the model of a deduplicate table, and equal the full read filtered
// for the engines where the newest record does not simply win
// (sequence.field, ignore-delete) — at the latest snapshot and AS OF each
// earlier one; keys present, deleted, never written, NULL values. It
// fails when the deduplicate lookups never stop early (the rule is not
// tested) or when they stop at a file that cannot hold the winner.
func TestPointLookupNewestFirstEqualsModel(t *testing.T) {
	defer lsmread.SetLookupFraction(0)()
	seed := testSeed(t)
	stops0 := lsmread.NewestFirstStops()
	for ei, eng := range []struct {
		name    string
		options map[string]string
		model   bool
	}{
		{"deduplicate", map[string]string{}, true},
		{"sequence-field", map[string]string{"sequence.field": "q"}, false},
		{"ignore-delete", map[string]string{"ignore-delete": "true"}, false},
		{"lookup-changelog", map[string]string{"changelog-producer": "lookup"}, true},
	} {
		t.Run(eng.name, func(t *testing.T) {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, 100+uint64(ei)))
			st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			opts := map[string]string{"bucket": "2", "write-only": "true"}
			for k, v := range eng.options {
				opts[k] = v
			}
			ts := &schema.TableSchema{
				Version: schema.SchemaVersionCurrent,
				Fields: []schema.DataField{
					{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
					{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
					{ID: 2, Name: "q", Type: schema.AtomicType(schema.TypeInt)},
				},
				HighestFieldID: 2,
				PrimaryKeys:    []string{"k"},
				Options:        opts,
			}
			if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
				t.Fatal(err)
			}
			tbl := lsmread.OpenTable(st, "")
			model := map[int32][]any{}
			type past struct {
				id    snapshot.SnapshotID
				model map[int32][]any
			}
			var pasts []past
			var base *snapshot.Snapshot
			lookup := func(what string, tt lsmread.TimeTravel, want map[int32][]any, k int32) {
				t.Helper()
				pred := lsmread.And{lsmread.Leaf{Field: 0, Name: "k", Type: ts.Fields[0].Type, Op: lsmread.OpEq, Literals: []any{k}}}
				_, got := mustRead(t, tbl, lsmread.ScanSpec{TimeTravel: tt, Filter: pred})
				var exp [][]any
				if eng.model {
					if r, ok := want[k]; ok {
						exp = [][]any{r}
					}
				} else {
					_, all := mustRead(t, tbl, lsmread.ScanSpec{TimeTravel: tt})
					exp = filterRows(pred, all)
				}
				sameMultiset(t, fmt.Sprintf("%s: k = %d (seed %d)", what, k, seed), got, exp)
			}
			for step := range 16 {
				w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for range 1 + rng.IntN(30) {
					k := int32(rng.IntN(60))
					row := []any{k, int64(rng.IntN(1000)), int32(rng.IntN(10))}
					if rng.IntN(4) == 0 {
						row[1+rng.IntN(2)] = nil
					}
					kind := kv.Insert
					if rng.IntN(4) == 0 {
						kind = kv.Delete
					}
					if err := w.Write(ctx, kind, row); err != nil {
						t.Fatal(err)
					}
					if kind == kv.Delete {
						delete(model, k)
					} else {
						model[k] = row
					}
					if rng.IntN(8) == 0 {
						if err := w.Flush(ctx); err != nil {
							t.Fatal(err)
						}
					}
				}
				if base, err = w.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(6) == 0 {
					if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{}); err != nil {
						t.Fatal(err)
					}
					if base, err = snapshot.OpenTable(st, "").Snapshots().Latest(ctx); err != nil {
						t.Fatal(err)
					}
				}
				pasts = append(pasts, past{base.ID, clonedModel(model)})
				what := fmt.Sprintf("%s step %d", eng.name, step)
				for range 25 {
					lookup(what, lsmread.TimeTravel{}, model, int32(rng.IntN(70))) // 60…69 never written
				}
				p := pasts[rng.IntN(len(pasts))]
				for range 5 {
					lookup(fmt.Sprintf("%s AS OF snapshot %d", what, p.id), lsmread.TimeTravel{SnapshotID: p.id}, p.model, int32(rng.IntN(70)))
				}
			}
		})
	}
	if n := lsmread.NewestFirstStops() - stops0; n == 0 {
		t.Fatalf("seed %d: no deduplicate lookup stopped before its split's last file: the newest-first rule was not tested", seed)
	} else {
		t.Logf("seed %d: %d lookups stopped early", seed, n)
	}
}

func clonedModel(m map[int32][]any) map[int32][]any {
	out := make(map[int32][]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
