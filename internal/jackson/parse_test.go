package jackson_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/jackson"
	"github.com/lakesql/lakesql/internal/testutil"
)

// toAny turns a tree into what encoding/json decodes (UseNumber): the model
// the lenient parser is checked against.
func toAny(n *jackson.Node) any {
	switch n.Kind {
	case jackson.Bool:
		return n.Bool
	case jackson.Number:
		return json.Number(n.Text)
	case jackson.String:
		return n.Text
	case jackson.Array:
		out := make([]any, len(n.Elems))
		for i := range n.Elems {
			out[i] = toAny(&n.Elems[i])
		}
		return out
	case jackson.Object:
		out := make(map[string]any, len(n.Members))
		for i := range n.Members {
			out[n.Members[i].Key] = toAny(&n.Members[i].Value)
		}
		return out
	}
	return nil
}

func stdDecode(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, &json.SyntaxError{}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func depth(data []byte) int {
	d, max := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '{' || c == '['):
			if d++; d > max {
				max = d
			}
		case !inStr && (c == '}' || c == ']'):
			d--
		}
	}
	return max
}

// checkParse holds the parser's contract on one input:
//   - Lenient accepts exactly what encoding/json accepts (within MaxDepth)
//     and reads the same values: a repeated key's last value, invalid UTF-8
//     as U+FFFD, lone surrogates as U+FFFD;
//   - a repeated key keeps its first position;
//   - Strict accepts a subset, reads it as Lenient does, and refuses only
//     for a repeated key or invalid UTF-8;
//   - what either reads, the writer writes back (pretty and compact) into
//     bytes that parse to the same tree.
func checkParse(t *testing.T, data []byte) {
	lenient, lerr := jackson.Parse(data, jackson.Lenient)
	strict, serr := jackson.Parse(data, jackson.Strict)
	deep := depth(data) > jackson.MaxDepth
	std, stdErr := stdDecode(data)
	switch {
	case deep:
		if lerr == nil {
			t.Fatalf("nesting %d read without error", depth(data))
		}
	case (lerr == nil) != (stdErr == nil):
		t.Fatalf("lenient error %v, encoding/json error %v on %q", lerr, stdErr, data)
	case lerr == nil && !reflect.DeepEqual(toAny(&lenient), std):
		t.Fatalf("lenient read %#v, encoding/json %#v from %q", toAny(&lenient), std, data)
	}
	if serr == nil {
		if lerr != nil {
			t.Fatalf("strict read %q, lenient refused it: %v", data, lerr)
		}
		if !reflect.DeepEqual(strict, lenient) {
			t.Fatalf("strict and lenient trees differ on %q", data)
		}
	} else if lerr == nil && !strings.Contains(serr.Error(), "duplicate key") && !strings.Contains(serr.Error(), "invalid UTF-8") {
		t.Fatalf("strict refused %q for %v, lenient read it", data, serr)
	}
	if lerr != nil {
		return
	}
	for _, w := range []*jackson.Writer{jackson.New(), jackson.NewCompact()} {
		w.Node(&lenient)
		again, err := jackson.Parse(w.Bytes(), jackson.Strict)
		if err != nil {
			t.Fatalf("written %q does not parse: %v", w.Bytes(), err)
		}
		if !reflect.DeepEqual(again, lenient) {
			t.Fatalf("%q written as %q reads back differently", data, w.Bytes())
		}
	}
}

var parseSeeds = []string{
	`{}`, `[]`, `{ }`, `[ ]`, `null`, `true`, `false`, `0`, `-0`, `1.5e-3`, `-12E+4`, `"x"`,
	`{"a":1,"b":[1,2,{"c":null}],"d":"\u00e9\ud83d\ude00\n"}`,
	`{"a":1,"a":2}`, `{"a":1,"b":2,"a":{"x":[]}}`,
	"\"\xff\xfe ok\"", "{\"k\xc3\":1}",
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud83d\ude00"`,
	`01`, `-`, `1.`, `.5`, `1e`, `{"a" 1}`, `[1,]`, `{"a":1,}`, `"\x"`, "\"a\x01\"", `nul`,
	`{"a":1} x`, ` [1 , 2 ] `, `"\/\b\f\r\t\\\""`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":33,"k17":1717}`,
	strings.Repeat("[", 256) + strings.Repeat("]", 256),
	strings.Repeat("[", 257) + strings.Repeat("]", 257),
}

func TestParseSeeds(t *testing.T) {
	for _, s := range parseSeeds {
		checkParse(t, []byte(s))
	}
}

// TestParseRepeatedKeys: Lenient keeps a repeated key at its first place
// with its last value (Jackson into a LinkedHashMap); Strict refuses it;
// both also above the member count where the parser indexes keys.
func TestParseRepeatedKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"z":0`)
	for i := 0; i < 40; i++ {
		b.WriteString(`,"k`)
		b.WriteString(strings.Repeat("x", i))
		b.WriteString(`":1`)
	}
	b.WriteString(`,"z":9,"kxxx":7}`)
	n, err := jackson.Parse([]byte(b.String()), jackson.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Members) != 41 || n.Members[0].Key != "z" || n.Members[0].Value.Text != "9" || n.Get("kxxx").Text != "7" || n.Members[4].Key != "kxxx" {
		t.Fatalf("lenient read %d members, first %q=%q", len(n.Members), n.Members[0].Key, n.Members[0].Value.Text)
	}
	if _, err := jackson.Parse([]byte(b.String()), jackson.Strict); err == nil || !strings.Contains(err.Error(), `duplicate key "z"`) {
		t.Fatalf("strict: %v", err)
	}
	if _, err := jackson.Parse([]byte("\"\xff\""), jackson.Strict); err == nil {
		t.Fatal("strict read invalid UTF-8")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data) })
}

// TestJavaFixtureJSONRoundTrip: every JSON file of the Java fixtures reads in
// both modes to the same tree, and the writer writes Paimon's metadata
// files (schemas, snapshots, tags, consumers, written by Java's
// JsonSerdeUtil) back byte for byte; other JSON files read back equal.
func TestJavaFixtureJSONRoundTrip(t *testing.T) {
	root := testutil.FixturesDir(t)
	exact, other := 0, 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		dir := filepath.Base(filepath.Dir(path))
		metadata := dir == "schema" || dir == "snapshot" || dir == "tag" || dir == "consumer"
		if !metadata && filepath.Ext(path) != ".json" {
			return nil // data files and vectors in other notations
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if trimmed := bytes.TrimSpace(data); len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
			return nil // LATEST, EARLIEST: a number
		}
		n, err := jackson.Parse(data, jackson.Strict)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if l, err := jackson.Parse(data, jackson.Lenient); err != nil || !reflect.DeepEqual(l, n) {
			t.Errorf("%s: lenient read differs (%v)", path, err)
		}
		w := jackson.New()
		w.Node(&n)
		if metadata {
			exact++
			if !bytes.Equal(w.Bytes(), data) {
				t.Errorf("%s: written back differs:\n%s\nwant\n%s", path, w.Bytes(), data)
			}
		} else {
			other++
			again, err := jackson.Parse(w.Bytes(), jackson.Strict)
			if err != nil || !reflect.DeepEqual(again, n) {
				t.Errorf("%s: written back reads differently (%v)", path, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if exact < 100 {
		t.Fatalf("only %d metadata files found under %s", exact, root)
	}
	t.Logf("%d metadata files byte for byte, %d other JSON files", exact, other)
}
