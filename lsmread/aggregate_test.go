package lsmread_test

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// TestAggregateEqualsRowsOnFixtures: Plan.Aggregate over every snapshot of
// every Java-written fixture (dictionary-encoded pages, deletion vectors,
// merged and raw splits) equals a model computed from the row read: GROUP
// BY each column of a typed vector kind (and no key), COUNT(*), SUM of the
// integer and DECIMAL(p ≤ 18) columns, MIN and MAX of the string columns.
func TestAggregateEqualsRowsOnFixtures(t *testing.T) {
	ctx := context.Background()
	checked, strKeys := 0, 0
	for _, s := range fixtureSnapshotReads(t) {
		fields := s.plan.Schema.Fields
		var sums, strs []int
		keys := [][]int{nil}
		for i := range fields {
			switch lsmread.KindOf(&fields[i].Type) {
			case lsmread.VectorInt64, lsmread.VectorInt32, lsmread.VectorDecimal64:
				sums = append(sums, i)
				keys = append(keys, []int{i})
			case lsmread.VectorString:
				strs = append(strs, i)
				keys = append(keys, []int{i})
			}
		}
		for _, key := range keys {
			for _, statsOnly := range []bool{false, true} {
				if statsOnly && len(key) > 0 {
					continue
				}
				// The projection: the key, then the aggregated columns.
				proj := slices.Clone(key)
				spec := lsmread.AggregateSpec{Aggs: []lsmread.AggColumn{{Kind: lsmread.AggCountRows}}}
				if len(key) > 0 {
					spec.Keys = []int{0}
				}
				type agg struct {
					kind  lsmread.AggKind
					field int
				}
				aggs := []agg{{lsmread.AggCountRows, -1}}
				add := func(kind lsmread.AggKind, f int) {
					spec.Aggs = append(spec.Aggs, lsmread.AggColumn{Kind: kind, Col: len(proj)})
					proj = append(proj, f)
					aggs = append(aggs, agg{kind, f})
				}
				for _, f := range sums {
					if len(key) == 0 && statsOnly {
						// COUNT, MIN and MAX only: answered from file statistics
						// where the files allow it.
						add(lsmread.AggCount, f)
						add(lsmread.AggMin, f)
						add(lsmread.AggMax, f)
						continue
					}
					add(lsmread.AggSum, f)
				}
				for _, f := range strs {
					if len(key) == 0 && statsOnly {
						continue
					}
					add(lsmread.AggMin, f)
					add(lsmread.AggMax, f)
				}
				names := make([]string, len(proj))
				for i, f := range proj {
					names[i] = fields[f].Name
				}
				sp := s.spec()
				sp.Projection = names
				plan, err := s.plan.Table.Plan(ctx, sp)
				if err != nil {
					t.Fatal(err)
				}
				got, err := plan.Aggregate(ctx, spec)
				if err != nil {
					t.Fatalf("%s GROUP BY %v: %v", s, names[:len(key)], err)
				}
				// The model, from the rows of the full read.
				want := map[string][]string{}
				type acc struct {
					n        int64
					sum      *big.Int
					best     string
					best2    *big.Int // MIN/MAX of a number
					nonNulls int64
				}
				groups := map[string][]acc{}
				for _, row := range s.rows {
					k := "()"
					if len(key) > 0 {
						k = fmt.Sprint(row[key[0]])
					}
					accs, ok := groups[k]
					if !ok {
						accs = make([]acc, len(aggs))
						for a := range accs {
							accs[a].sum = new(big.Int)
						}
						groups[k] = accs
					}
					for a, ag := range aggs {
						ac := &accs[a]
						if ag.kind == lsmread.AggCountRows {
							ac.n++
							continue
						}
						v := row[ag.field]
						if v == nil {
							continue
						}
						var num *big.Int
						switch x := v.(type) {
						case int64:
							num = big.NewInt(x)
						case int32:
							num = big.NewInt(int64(x))
						case schema.Decimal:
							num = x.Big
							if num == nil {
								num = big.NewInt(x.Compact)
							}
						case string:
							if ac.nonNulls == 0 || ag.kind == lsmread.AggMin && x < ac.best || ag.kind == lsmread.AggMax && x > ac.best {
								ac.best = x
							}
						}
						if num != nil {
							ac.sum.Add(ac.sum, num)
							if ac.nonNulls == 0 || ag.kind == lsmread.AggMin && num.Cmp(ac.best2) < 0 || ag.kind == lsmread.AggMax && num.Cmp(ac.best2) > 0 {
								ac.best2 = num
							}
						}
						ac.nonNulls++
					}
				}
				render := func(kind lsmread.AggKind, n, nonNulls int64, sum *big.Int, best string) string {
					switch kind {
					case lsmread.AggCountRows:
						return fmt.Sprint(n)
					case lsmread.AggCount:
						return fmt.Sprint(nonNulls)
					case lsmread.AggSum:
						if nonNulls == 0 {
							return "NULL"
						}
						return sum.String()
					}
					if nonNulls == 0 {
						return "NULL"
					}
					return best
				}
				for k, accs := range groups {
					for a, ag := range aggs {
						best := accs[a].best
						if accs[a].best2 != nil {
							best = accs[a].best2.String()
						}
						want[k] = append(want[k], render(ag.kind, accs[a].n, accs[a].nonNulls, accs[a].sum, best))
					}
				}
				if len(key) == 0 && len(groups) == 0 {
					want["()"] = []string{"0"}
					for _, ag := range aggs[1:] {
						want["()"] = append(want["()"], render(ag.kind, 0, 0, nil, ""))
					}
				}
				have := map[string][]string{}
				for g := range got.Len() {
					kv := got.Key(g)
					k := "()"
					if len(key) > 0 {
						k = fmt.Sprint(kv[0])
					}
					if _, dup := have[k]; dup {
						t.Fatalf("%s GROUP BY %v: group %s twice", s, names[:len(key)], k)
					}
					for a, ag := range aggs {
						ac := got.Accum(g, a)
						sum := big.NewInt(ac.Sum)
						if ac.Big != nil {
							sum = ac.Big
						}
						best := ac.BestS
						if f := ag.field; f >= 0 && lsmread.KindOf(&fields[f].Type) != lsmread.VectorString {
							best = fmt.Sprint(ac.BestI)
						}
						have[k] = append(have[k], render(ag.kind, ac.N, ac.N, sum, best))
					}
				}
				if fmt.Sprint(have) != fmt.Sprint(want) {
					t.Fatalf("%s SELECT %s GROUP BY %v:\naggregate %v\n     rows %v", s, strings.Join(names, ", "), names[:len(key)], have, want)
				}
				checked++
				if len(key) > 0 && lsmread.KindOf(&fields[key[0]].Type) == lsmread.VectorString {
					strKeys++
				}
			}
		}
	}
	if n := lsmread.FilesAggregatedFromStats(); n == 0 {
		t.Fatal("no file aggregated from its statistics")
	} else {
		t.Logf("%d files aggregated from their statistics", n)
	}
	t.Logf("%d aggregates compared, %d grouped by a string", checked, strKeys)
	if checked == 0 || strKeys == 0 {
		t.Fatalf("%d aggregates compared, %d grouped by a string; want both", checked, strKeys)
	}
}
