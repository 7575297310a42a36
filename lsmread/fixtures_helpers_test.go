package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// fixtureTable opens a fixture table read-only, mapping the fixtures'
// FILE:/tmp/external/ paths onto <table>.db/external.
func fixtureTable(t testing.TB, dir string) *lsmread.Table {
	t.Helper()
	st, err := storage.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	db := filepath.Dir(dir)
	return lsmread.OpenTable(st, "").WithExternalResolver(func(ctx context.Context, url string) (storage.File, error) {
		rel, ok := strings.CutPrefix(url, "FILE:/tmp/external/")
		if !ok {
			return nil, fmt.Errorf("unexpected external path %s", url)
		}
		ext, err := storage.OpenLocal(filepath.Join(db, "external"))
		if err != nil {
			return nil, err
		}
		f, err := ext.Open(ctx, rel)
		if err != nil {
			ext.Close()
			return nil, err
		}
		return &storageFile{File: f, st: ext}, nil
	})
}

type storageFile struct {
	storage.File
	st storage.Storage
}

func (f *storageFile) Close() error { return errors.Join(f.File.Close(), f.st.Close()) }

// readableFixture is a fixture table whose latest snapshot lsmread reads.
type readableFixture struct {
	name  string
	table *lsmread.Table
	plan  *lsmread.Plan // full read of the latest snapshot
	rows  [][]any
}

// readableFixtures returns every fixture table that reads at its latest
// snapshot, sorted by name. Tables failing with an unsupported-feature error
// are left out (tests/fixtures_read_test.go checks those errors); any other
// error fails the test.
func readableFixtures(t *testing.T) []readableFixture {
	t.Helper()
	ctx := context.Background()
	tables := testutil.FixtureTables(t)
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []readableFixture
	for _, name := range names {
		tbl := fixtureTable(t, tables[name])
		plan, err := tbl.Plan(ctx, lsmread.ScanSpec{})
		var rows [][]any
		if err == nil {
			rows, err = readPlan(ctx, plan)
		}
		if err != nil {
			if errors.Is(err, lsmread.ErrUnsupported) || errors.Is(err, manifest.ErrUnsupported) {
				continue
			}
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, readableFixture{name: name, table: tbl, plan: plan, rows: rows})
	}
	if len(out) < 20 {
		t.Fatalf("only %d fixture tables read", len(out))
	}
	return out
}

// readPlan reads every split of a plan.
func readPlan(ctx context.Context, plan *lsmread.Plan) ([][]any, error) {
	r, err := plan.NewReader()
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, split := range plan.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			return nil, err
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return nil, err
			}
			rows = append(rows, row)
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func mustRead(t *testing.T, tbl *lsmread.Table, spec lsmread.ScanSpec) (*lsmread.Plan, [][]any) {
	t.Helper()
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, spec)
	if err != nil {
		t.Fatalf("plan %+v: %v", spec, err)
	}
	rows, err := readPlan(ctx, plan)
	if err != nil {
		t.Fatalf("read %+v: %v", spec, err)
	}
	return plan, rows
}

// canonValue is a text of a value of the schema value model, equal for
// equal values.
func canonValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strconv.Quote(x)
	case []byte:
		return "x" + strconv.Quote(string(x))
	case float32:
		return "f" + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return "d" + strconv.FormatFloat(x, 'g', -1, 64)
	case schema.Decimal:
		return "dec" + x.String()
	case schema.Timestamp:
		return "ts" + strconv.FormatInt(x.EpochNanos(), 10)
	case *big.Int:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i := range x {
			parts[i] = canonValue(x[i])
		}
		return "[" + strings.Join(parts, ",") + "]"
	case schema.Map:
		parts := make([]string, len(x.Keys))
		for i := range x.Keys {
			parts[i] = canonValue(x.Keys[i]) + ":" + canonValue(x.Values[i])
		}
		slices.Sort(parts)
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func canonRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = canonValue(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// sameMultiset fails when two sets of rows differ as multisets.
func sameMultiset(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	g := make([]string, len(got))
	for i, r := range got {
		g[i] = canonRow(r)
	}
	w := make([]string, len(want))
	for i, r := range want {
		w[i] = canonRow(r)
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: rows differ\n got (%d): %s\nwant (%d): %s", what, len(g), strings.Join(g, " "), len(w), strings.Join(w, " "))
	}
}
