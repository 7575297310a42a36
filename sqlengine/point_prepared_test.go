package sqlengine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// TestPreparedPointStmtEqualsParsing: a prepared statement's remembered
// parse, bound with each execution's values, equals parsing and binding it
// afresh — for 200 statement texts (more than the memo's slots, so they
// evict each other), point and not, executed in random order by 8
// goroutines with random integer and string values. It fails when an
// execution's binding leaks into the remembered statement.
func TestPreparedPointStmtEqualsParsing(t *testing.T) {
	var texts []string
	for i := range 200 {
		switch i % 5 {
		case 0:
			texts = append(texts, fmt.Sprintf("SELECT * FROM t%d WHERE id = ?", i))
		case 1:
			texts = append(texts, fmt.Sprintf("SELECT a, b FROM db.t%d WHERE id = ? AND dt = ?", i))
		case 2:
			texts = append(texts, fmt.Sprintf("SELECT a FROM t%d WHERE id = 5 AND code = ?", i))
		case 3:
			texts = append(texts, fmt.Sprintf("SELECT a FROM t%d WHERE id > ?", i)) // not a point query
		default:
			texts = append(texts, fmt.Sprintf("select `a` from t%d where k = ? and j = ? and dt = ?", i))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 4000 {
				q := texts[r.IntN(len(texts))]
				binds := map[string]*querypb.BindVariable{}
				for n := 1; n <= 3; n++ {
					if r.IntN(2) == 0 {
						binds["v"+strconv.Itoa(n)] = &querypb.BindVariable{Type: sqltypes.Int64, Value: []byte(strconv.Itoa(r.IntN(1000) - 500))}
					} else {
						binds["v"+strconv.Itoa(n)] = &querypb.BindVariable{Type: sqltypes.VarChar, Value: []byte(fmt.Sprintf("s%d", r.IntN(100)))}
					}
				}
				got, gotOK := preparedPointStmt(q)
				want, wantOK := parsePointStmt(q)
				if gotOK != wantOK {
					errs <- fmt.Sprintf("%s: ok %v, parsing says %v", q, gotOK, wantOK)
					return
				}
				if !gotOK {
					continue
				}
				gb, wb := bindPoint(got, binds), bindPoint(want, binds)
				if gb != wb || !reflect.DeepEqual(got, want) {
					errs <- fmt.Sprintf("%s %v: bound %v %+v, parsing %v %+v", q, binds, gb, got, wb, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
