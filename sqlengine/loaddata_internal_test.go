package sqlengine

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/lakesql/lakesql/provider"
)

func testLoadIter(r io.Reader, term, line, enc, esc string) *loadIter {
	it := &loadIter{src: io.NopCloser(r), term: []byte(term), lineTerm: []byte(line), enc: []byte(enc), buf: make([]byte, 0, 4)}
	if esc != "" {
		it.esc, it.hasEsc = esc[0], true
	}
	it.maxTerm = max(len(it.term), len(it.lineTerm), 2*len(it.enc))
	return it
}

// readAll returns every record as its fields' text (NULL as "<NULL>").
func readAll(t testing.TB, it *loadIter) ([][]string, error) {
	var out [][]string
	for {
		err := it.record()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var rec []string
		for _, f := range it.fields {
			if f.null {
				rec = append(rec, "<NULL>")
			} else {
				rec = append(rec, string(it.val[f.start:f.end]))
			}
		}
		out = append(out, rec)
		if len(out) > 1<<20 {
			t.Fatal("runaway reader")
		}
	}
}

func TestLoadDataReader(t *testing.T) {
	in := "1,\"a,b\",\"x\"\"y\"\n2,\\N,NULL,\"NULL\",\"\\N\"\n3,\"multi\nline\",t\\tab,\\Nx\n4,,\"\"\n5,\"open"
	want := [][]string{
		{"1", "a,b", `x"y`},
		{"2", "<NULL>", "<NULL>", "NULL", "<NULL>"},
		{"3", "multi\nline", "t\tab", "Nx"},
		{"4", "", ""},
		{"5", "open"},
	}
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(in) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
	} {
		got, err := readAll(t, testLoadIter(r(), ",", "\n", `"`, `\`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s:\n got  %q\n want %q", name, got, want)
		}
	}
	// Multi-byte terminators, no quotes, no escapes.
	got, err := readAll(t, iterOf("a||b\r\nc||\\N\r\n", "||", "\r\n", "", ""))
	if err != nil || !slices.EqualFunc(got, [][]string{{"a", "b"}, {"c", `\N`}}, slices.Equal) {
		t.Errorf("multi-byte terminators: %q, %v", got, err)
	}
}

func iterOf(s, term, line, enc, esc string) *loadIter {
	return testLoadIter(iotest.OneByteReader(strings.NewReader(s)), term, line, enc, esc)
}

func TestParseCanonicalTime(t *testing.T) {
	for in, want := range map[string]string{
		"2024-02-29":                    "2024-02-29T00:00:00Z",
		"2024-02-29 23:59:59":           "2024-02-29T23:59:59Z",
		"2024-02-29 23:59:59.5":         "2024-02-29T23:59:59.5Z",
		"2024-02-29 23:59:59.123456789": "2024-02-29T23:59:59.123456789Z",
		"2023-02-29":                    "",
		"2024-13-01":                    "",
		"2024-01-01T00:00:00":           "",
		"2024-01-01 24:00:00":           "",
		"2024-01-01 00:00:00.":          "",
		"20240101":                      "",
	} {
		tm, ok := provider.ParseCanonicalTime([]byte(in), false)
		got := ""
		if ok {
			got = tm.Format(time.RFC3339Nano)
		}
		if got != want {
			t.Errorf("ParseCanonicalTime(%q) = %q, want %q", in, got, want)
		}
	}
	if _, ok := provider.ParseCanonicalTime([]byte("2024-01-01 00:00:00"), true); ok {
		t.Error("a DATE column accepted a time of day")
	}
}

// FuzzLoadDataReader: any input and terminators read without panic,
// reading one byte at a time gives the same records as reading at once,
// and the records are those of the byte-at-a-time reference reader.
func FuzzLoadDataReader(f *testing.F) {
	f.Add("1,\"a,b\"\n2,\\N\n", ",", "\n", `"`, `\`)
	f.Add("a||b\r\nc", "||", "\r\n", "", "")
	f.Add("\"\"\"\n\\", ",", "\n", `"`, `\`)
	f.Fuzz(func(t *testing.T, in, term, line, enc, esc string) {
		if term == "" || line == "" || len(enc) > 1 || len(esc) > 1 || len(term) > 8 || len(line) > 8 {
			return
		}
		whole, err1 := readAll(t, testLoadIter(strings.NewReader(in), term, line, enc, esc))
		bytewise, err2 := readAll(t, testLoadIter(iotest.OneByteReader(strings.NewReader(in)), term, line, enc, esc))
		if (err1 == nil) != (err2 == nil) || !slices.EqualFunc(whole, bytewise, slices.Equal) {
			t.Fatalf("whole %q (%v) != one byte at a time %q (%v)", whole, err1, bytewise, err2)
		}
		ref, err3 := readAllReference(t, testLoadIter(strings.NewReader(in), term, line, enc, esc), false)
		if (err1 == nil) != (err3 == nil) || !slices.EqualFunc(whole, ref, slices.Equal) {
			t.Fatalf("scanning reader %q (%v) != byte-at-a-time reference %q (%v)", whole, err1, ref, err3)
		}
	})
}
