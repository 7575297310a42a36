package datafile_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// osFile adapts an *os.File to storage.File.
type osFile struct {
	*os.File
	size int64
}

func (f osFile) Size() int64 { return f.size }

func openOS(t testing.TB, path string) osFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return osFile{f, st.Size()}
}

// bytesFile is an in-memory storage.File.
type bytesFile []byte

func (b bytesFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
func (b bytesFile) Close() error { return nil }
func (b bytesFile) Size() int64  { return int64(len(b)) }

// The schema JSON codec lives in internal/schema; these tests parse the few
// type spellings the fixtures use themselves, to stay independent of it.
var typeRe = regexp.MustCompile(`^([A-Z_]+(?: [A-Z]+)*?)(?:\((\d+)(?:,\s*(\d+))?\))?( WITH LOCAL TIME ZONE)?( NOT NULL)?$`)

func parseType(t testing.TB, v any) schema.DataType {
	t.Helper()
	switch x := v.(type) {
	case string:
		m := typeRe.FindStringSubmatch(x)
		if m == nil {
			t.Fatalf("unparsed type %q", x)
		}
		dt := schema.DataType{Nullable: m[5] == ""}
		p1, _ := strconv.Atoi(m[2])
		p2, _ := strconv.Atoi(m[3])
		switch m[1] {
		case "BOOLEAN":
			dt.Root = schema.TypeBoolean
		case "TINYINT":
			dt.Root = schema.TypeTinyInt
		case "SMALLINT":
			dt.Root = schema.TypeSmallInt
		case "INT", "INTEGER":
			dt.Root = schema.TypeInt
		case "BIGINT":
			dt.Root = schema.TypeBigInt
		case "FLOAT":
			dt.Root = schema.TypeFloat
		case "DOUBLE":
			dt.Root = schema.TypeDouble
		case "DECIMAL":
			dt.Root, dt.Precision, dt.Scale = schema.TypeDecimal, p1, p2
		case "STRING":
			dt.Root, dt.Length = schema.TypeVarChar, schema.MaxLength
		case "VARCHAR":
			dt.Root, dt.Length = schema.TypeVarChar, p1
		case "CHAR":
			dt.Root, dt.Length = schema.TypeChar, p1
		case "BYTES":
			dt.Root, dt.Length = schema.TypeVarBinary, schema.MaxLength
		case "VARBINARY":
			dt.Root, dt.Length = schema.TypeVarBinary, p1
		case "BINARY":
			dt.Root, dt.Length = schema.TypeBinary, p1
		case "DATE":
			dt.Root = schema.TypeDate
		case "TIME":
			dt.Root, dt.Precision = schema.TypeTime, p1
		case "TIMESTAMP":
			dt.Root, dt.Precision = schema.TypeTimestamp, p1
			if m[2] == "" {
				dt.Precision = 6
			}
			if m[4] != "" {
				dt.Root = schema.TypeLocalZonedTimestamp
			}
		case "BLOB":
			dt.Root = schema.TypeBlob
		default:
			t.Fatalf("unknown type %q", x)
		}
		return dt
	case map[string]any:
		typ, _ := x["type"].(string)
		nullable := !strings.HasSuffix(typ, " NOT NULL")
		typ = strings.TrimSuffix(typ, " NOT NULL")
		dt := schema.DataType{Nullable: nullable}
		switch typ {
		case "ARRAY", "MULTISET":
			dt.Root = schema.TypeArray
			if typ == "MULTISET" {
				dt.Root = schema.TypeMultiset
			}
			e := parseType(t, x["element"])
			dt.Elem = &e
		case "MAP":
			k, v := parseType(t, x["key"]), parseType(t, x["value"])
			dt.Root, dt.Key, dt.Value = schema.TypeMap, &k, &v
		case "ROW":
			dt.Root = schema.TypeRow
			for _, f := range x["fields"].([]any) {
				dt.Fields = append(dt.Fields, parseField(t, f.(map[string]any)))
			}
		default:
			t.Fatalf("unknown nested type %q", typ)
		}
		return dt
	}
	t.Fatalf("bad type %v", v)
	return schema.DataType{}
}

func parseField(t testing.TB, f map[string]any) schema.DataField {
	return schema.DataField{ID: int(f["id"].(float64)), Name: f["name"].(string), Type: parseType(t, f["type"])}
}

// tableSchemas reads every schema/schema-N of a table.
func tableSchemas(t testing.TB, tableDir string) map[int][]schema.DataField {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(tableDir, "schema", "schema-*"))
	out := map[int][]schema.DataField{}
	for _, p := range files {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(p), "schema-"))
		if err != nil {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var js struct {
			Fields []map[string]any `json:"fields"`
		}
		if err := json.Unmarshal(data, &js); err != nil {
			t.Fatal(err)
		}
		var fields []schema.DataField
		for _, f := range js.Fields {
			fields = append(fields, parseField(t, f))
		}
		out[id] = fields
	}
	return out
}

// readAll reads every remaining row, copying them out of the reused buffers.
func readAll(t testing.TB, r datafile.FileReader, batch int) [][]any {
	t.Helper()
	var out [][]any
	buf := make([][]any, batch)
	for {
		n, err := r.Next(buf)
		if errors.Is(err, io.EOF) {
			if n != 0 {
				t.Fatalf("Next returned %d rows with io.EOF", n)
			}
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range buf[:n] {
			out = append(out, append([]any(nil), row...))
		}
	}
}

// render prints a value of the value model canonically.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case []byte:
		return "b" + strconv.Quote(string(x))
	case schema.Decimal:
		return decimalString(x)
	case schema.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case schema.Time:
		return fmt.Sprintf("T%d", int32(x))
	case schema.Timestamp:
		return tsString(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case schema.Map:
		parts := make([]string, len(x.Keys))
		for i := range x.Keys {
			parts[i] = render(x.Keys[i]) + ": " + render(x.Values[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func decimalString(d schema.Decimal) string {
	u := big.NewInt(d.Compact)
	if d.Big != nil {
		u = d.Big
	}
	s := new(big.Int).Abs(u).String()
	for len(s) <= int(d.Scale) {
		s = "0" + s
	}
	if d.Scale > 0 {
		s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	}
	if u.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// tsString prints a timestamp as ISO local date-time with nanoseconds, the
// fraction trimmed of trailing zeros.
func tsString(ts schema.Timestamp) string {
	tm := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
	s := tm.Format("2006-01-02T15:04:05.000000000")
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func renderRow(row []any) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = render(v)
	}
	return strings.Join(parts, " | ")
}

func sortedRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = renderRow(r)
	}
	sort.Strings(out)
	return out
}
