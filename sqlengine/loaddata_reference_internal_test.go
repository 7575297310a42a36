package sqlengine

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The reader scans a field's text up to the next byte that may end it
// (parse, stopBytes) instead of testing every byte against the
// terminators. TestLoadDataReaderEqualsReference and FuzzLoadDataReader
// compare it with the former byte-at-a-time reader, kept here as the
// oracle (referenceParse), over random input and terminators read whole,
// a byte at a time and in random chunks, and compare the batches the
// server reads (readBatches) with the records.

// readAllReference is readAll over referenceParse; skipBlank drops the
// blank lines nextRecord skips.
func readAllReference(t testing.TB, it *loadIter, skipBlank bool) ([][]string, error) {
	var out [][]string
	for {
		n, ok, err := it.referenceParse(it.buf[it.pos:])
		if err != nil {
			return out, err
		}
		if !ok {
			if it.eof {
				return out, nil
			}
			if err := it.fill(); err != nil {
				return out, err
			}
			continue
		}
		it.pos += n
		if skipBlank && len(it.fields) == 1 && it.fields[0].end == it.fields[0].start && !it.fields[0].quoted && !it.fields[0].null {
			continue
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

// readBatched returns the records readBatches sends (after IGNORE lines
// and blank lines, as the server reads them).
func readBatched(it *loadIter) ([][]string, error) {
	batches := make(chan *loadBatch, 2)
	stop := make(chan struct{})
	defer close(stop)
	go it.readBatches(batches, stop)
	var out [][]string
	for b := range batches {
		if b.err != nil {
			return out, b.err
		}
		for k := 0; k+1 < len(b.starts); k++ {
			var rec []string
			for _, f := range b.fields[b.starts[k]:b.starts[k+1]] {
				if f.Null {
					rec = append(rec, "<NULL>")
				} else {
					rec = append(rec, f.Text)
				}
			}
			out = append(out, rec)
		}
	}
	return out, nil
}

// chunkReader returns reads of random lengths.
type chunkReader struct {
	r   io.Reader
	rnd *rand.Rand
}

func (c chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), 1+c.rnd.Intn(97))])
}

// randomLoadInput is text made of the terminators, quotes, escapes and a
// few letters, so every path of the reader is taken.
func randomLoadInput(r *rand.Rand, term, line, enc, esc string) string {
	parts := []string{term, line, "a", "bc", "NULL", "N", "0", "x y", "é"}
	if enc != "" {
		parts = append(parts, enc, enc+enc)
	}
	if esc != "" {
		parts = append(parts, esc, esc+"N", esc+"t", esc+enc)
	}
	var sb strings.Builder
	for range r.Intn(200) {
		sb.WriteString(parts[r.Intn(len(parts))])
	}
	return sb.String()
}

func TestLoadDataReaderEqualsReference(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	terms := []string{",", "\t", "||", ",;", "\n"}
	lines := []string{"\n", "\r\n", ";", "\n\n", "||"}
	for trial := 0; trial < 3000; trial++ {
		term, line := terms[r.Intn(len(terms))], lines[r.Intn(len(lines))]
		enc := []string{"", `"`, "'"}[r.Intn(3)]
		esc := []string{"", `\`}[r.Intn(2)]
		in := randomLoadInput(r, term, line, enc, esc)
		want, wantErr := readAllReference(t, testLoadIter(strings.NewReader(in), term, line, enc, esc), false)
		readers := map[string]io.Reader{
			"whole":    strings.NewReader(in),
			"one byte": iotest.OneByteReader(strings.NewReader(in)),
			"chunks":   chunkReader{strings.NewReader(in), r},
		}
		for name, rd := range readers {
			got, err := readAll(t, testLoadIter(rd, term, line, enc, esc))
			if (err == nil) != (wantErr == nil) || !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("trial %d (%s) %q term %q line %q enc %q esc %q:\n got  %q (%v)\n want %q (%v)", trial, name, in, term, line, enc, esc, got, err, want, wantErr)
			}
		}
		want, wantErr = readAllReference(t, testLoadIter(strings.NewReader(in), term, line, enc, esc), true)
		got, err := readBatched(testLoadIter(chunkReader{strings.NewReader(in), r}, term, line, enc, esc))
		if (err == nil) != (wantErr == nil) || !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d (batches) %q term %q line %q enc %q esc %q:\n got  %q (%v)\n want %q (%v)", trial, in, term, line, enc, esc, got, err, want, wantErr)
		}
	}
}

// TestLoadDataBatchesOwnTheirText: the text of a batch already sent is
// not overwritten by the records read after it (readBatches hands its
// buffer over as the batch's string).
func TestLoadDataBatchesOwnTheirText(t *testing.T) {
	var in bytes.Buffer
	n := 3 * loadBatchBytes / 20
	for k := range n {
		fmt.Fprintf(&in, "%d,v%07d\n", k, k)
	}
	it := testLoadIter(&in, ",", "\n", "", `\`)
	batches := make(chan *loadBatch, 64)
	stop := make(chan struct{})
	defer close(stop)
	go it.readBatches(batches, stop)
	var all []*loadBatch
	for b := range batches {
		if b.err != nil {
			t.Fatal(b.err)
		}
		all = append(all, b)
	}
	if len(all) < 2 {
		t.Fatalf("%d batches, want several", len(all))
	}
	k := 0
	for _, b := range all {
		for r := 0; r+1 < len(b.starts); r++ {
			f := b.fields[b.starts[r]:b.starts[r+1]]
			if len(f) != 2 || f[0].Text != fmt.Sprint(k) || f[1].Text != fmt.Sprintf("v%07d", k) {
				t.Fatalf("record %d reads %+v", k, f)
			}
			k++
		}
	}
	if k != n {
		t.Fatalf("%d records, want %d", k, n)
	}
}

// referenceParse is the reader's former parse, which looks at the input
// a byte at a time: the oracle of the scanning one.
func (it *loadIter) referenceParse(data []byte) (n int, ok bool, err error) {
	if len(data) == 0 {
		return 0, false, nil
	}
	it.val, it.fields = it.val[:0], it.fields[:0]
	more := func(i, need int) bool { return !it.eof && len(data)-i < need }
	i := 0
	for {
		f := loadField{start: len(it.val)}
		if len(it.enc) > 0 && bytes.HasPrefix(data[i:], it.enc) {
			f.quoted = true
			i += len(it.enc)
			closed := false
			for !closed {
				if more(i, it.maxTerm+1) {
					return 0, false, nil
				}
				if i >= len(data) {
					break // unterminated at end of input: take what there is
				}
				c := data[i]
				switch {
				case it.hasEsc && c == it.esc && i+1 < len(data):
					it.unescape(data[i+1], &f)
					i += 2
				case bytes.HasPrefix(data[i:], it.enc):
					j := i + len(it.enc)
					if bytes.HasPrefix(data[j:], it.enc) {
						it.val = append(it.val, it.enc...)
						i = j + len(it.enc)
					} else if j == len(data) || bytes.HasPrefix(data[j:], it.term) || bytes.HasPrefix(data[j:], it.lineTerm) {
						i, closed = j, true
					} else {
						it.val = append(it.val, it.enc...)
						i = j
					}
				default:
					it.val = append(it.val, c)
					i++
				}
			}
		} else {
			for {
				if more(i, it.maxTerm+1) {
					return 0, false, nil
				}
				if i >= len(data) || bytes.HasPrefix(data[i:], it.term) || bytes.HasPrefix(data[i:], it.lineTerm) {
					break
				}
				c := data[i]
				if it.hasEsc && c == it.esc && i+1 < len(data) {
					it.unescape(data[i+1], &f)
					i += 2
					continue
				}
				it.val = append(it.val, c)
				i++
			}
			if len(it.enc) > 0 && string(it.val[f.start:]) == "NULL" {
				f.null = true
			}
		}
		f.end = len(it.val)
		if f.escapedN && f.end-f.start == 1 {
			f.null = true // \N is NULL; inside a longer field it is the letter N
		}
		it.fields = append(it.fields, f)
		switch {
		case i >= len(data):
			return i, true, nil
		case bytes.HasPrefix(data[i:], it.term):
			i += len(it.term)
		case bytes.HasPrefix(data[i:], it.lineTerm):
			return i + len(it.lineTerm), true, nil
		default:
			return 0, false, fmt.Errorf("LOAD DATA: cannot read the field at byte %d of a record", i)
		}
	}
}
