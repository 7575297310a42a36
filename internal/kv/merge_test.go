package kv_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// mergeEnv is the state of one merge-engine script.
type mergeEnv struct {
	fields  []schema.DataField
	pk      []string
	pkIdx   []int
	options map[string]string
	factory *kv.MergeFunctionFactory
}

// TestMergeEngines runs the data-driven scripts testdata/merge_*. Commands:
//
//	table pk=(a,b)        input: one "name TYPE" per field, and key=value
//	                      option lines; prints ok or the construction error
//	merge [raw] [lookup]  input: KeyValue lines; a line "run" starts the next
//	                      sorted run. Prints every merged result (including
//	                      -U/-D, which batch reads later drop) and the error,
//	                      if any. By default the merge function is wrapped in
//	                      the reducer like Java's read path; raw feeds it
//	                      directly; lookup uses the lookup merge function.
func TestMergeEngines(t *testing.T) {
	files, err := filepath.Glob("testdata/merge_*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no merge scripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			env := &mergeEnv{}
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				switch d.Cmd {
				case "table":
					return env.table(t, d)
				case "merge":
					return env.merge(t, d)
				}
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
				return ""
			})
		})
	}
}

func (e *mergeEnv) table(t *testing.T, d *datadriven.TestData) string {
	*e = mergeEnv{options: map[string]string{}}
	for _, arg := range d.CmdArgs {
		if arg.Key == "pk" {
			e.pk = arg.Vals
		}
	}
	for _, line := range strings.Split(d.Input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			e.options[k] = v
			continue
		}
		name, typ, _ := strings.Cut(line, " ")
		dt, err := parseType(typ)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		e.fields = append(e.fields, schema.DataField{ID: len(e.fields), Name: name, Type: dt})
	}
	for _, k := range e.pk {
		idx := -1
		for i, f := range e.fields {
			if f.Name == k {
				idx = i
			}
		}
		if idx < 0 {
			t.Fatalf("%s: unknown pk %s", d.Pos, k)
		}
		e.pkIdx = append(e.pkIdx, idx)
	}
	f, err := kv.NewMergeFunctionFactory(e.options, e.fields, e.pk)
	if err != nil {
		return "error: " + err.Error()
	}
	e.factory = f
	return "ok"
}

func (e *mergeEnv) types() []schema.DataType {
	ts := make([]schema.DataType, len(e.fields))
	for i, f := range e.fields {
		ts[i] = f.Type
	}
	return ts
}

func (e *mergeEnv) merge(t *testing.T, d *datadriven.TestData) string {
	if e.factory == nil {
		t.Fatalf("%s: merge without a valid table", d.Pos)
	}
	types := e.types()
	keyTypes := make([]schema.DataType, len(e.pkIdx))
	for i, k := range e.pkIdx {
		keyTypes[i] = types[k]
	}
	keyCmp := kv.NewKeyComparator(keyTypes)
	var runs [][]kv.KeyValue
	cur := []kv.KeyValue{}
	for _, line := range strings.Split(d.Input, "\n") {
		line = strings.TrimSpace(line)
		switch line {
		case "":
			continue
		case "run":
			runs = append(runs, cur)
			cur = []kv.KeyValue{}
			continue
		}
		r, err := kv.ParseKeyValue(line, types, e.pkIdx)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		cur = append(cur, r)
	}
	runs = append(runs, cur)

	seqCmp := e.factory.SequenceComparator()
	readers := make([]kv.RecordReader, len(runs))
	for i, run := range runs {
		for j := 1; j < len(run); j++ {
			if compareRecords(keyCmp, seqCmp, run[j-1], run[j]) > 0 {
				t.Fatalf("%s: run %d is not sorted at record %d", d.Pos, i, j)
			}
		}
		readers[i] = kv.NewSliceReader(run)
	}

	var fn kv.MergeFunction
	if d.HasArg("lookup") {
		fn = e.factory.NewLookup()
	} else {
		fn = e.factory.New()
	}
	if !d.HasArg("raw") {
		fn = kv.NewReducer(fn)
	}
	r := kv.NewSortMergeReader(readers, keyCmp, seqCmp, fn)
	var out strings.Builder
	for {
		res, ok, err := r.Next()
		if err != nil {
			fmt.Fprintf(&out, "error: %v\n", err)
			break
		}
		if !ok {
			break
		}
		out.WriteString(kv.FormatKeyValue(res))
		out.WriteByte('\n')
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		return "<empty>\n"
	}
	return out.String()
}

func compareRecords(keyCmp, seqCmp kv.Comparator, a, b kv.KeyValue) int {
	if c := keyCmp(a.Key, b.Key); c != 0 {
		return c
	}
	if seqCmp != nil {
		if c := seqCmp(a.Value, b.Value); c != 0 {
			return c
		}
	}
	switch {
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}
