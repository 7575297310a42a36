package binaryrow_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/testutil"
)

func ty(root schema.TypeRoot) schema.DataType { return schema.DataType{Root: root, Nullable: true} }

func dec(p, s int) schema.DataType {
	return schema.DataType{Root: schema.TypeDecimal, Precision: p, Scale: s, Nullable: true}
}

func ts(p int) schema.DataType {
	return schema.DataType{Root: schema.TypeTimestamp, Precision: p, Nullable: true}
}

func ltz(p int) schema.DataType {
	return schema.DataType{Root: schema.TypeLocalZonedTimestamp, Precision: p, Nullable: true}
}

var (
	tString = schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}
	tBytes  = schema.DataType{Root: schema.TypeVarBinary, Length: schema.MaxLength, Nullable: true}
)

// parseDecimal parses decimal text exactly; the scale is the number of digits
// after the point.
func parseDecimal(t testing.TB, s string) schema.Decimal {
	t.Helper()
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	x, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad decimal %q", s)
	}
	if x.IsInt64() {
		return schema.Decimal{Compact: x.Int64(), Scale: int32(scale)}
	}
	return schema.Decimal{Big: x, Scale: int32(scale)}
}

func tsFromNanos(n int64) schema.Timestamp {
	ms := n / 1e6
	nano := n - ms*1e6
	if nano < 0 {
		ms--
		nano += 1e6
	}
	return schema.Timestamp{Millis: ms, NanoOfMilli: int32(nano)}
}

// parseISO parses Java LocalDateTime.toString() output as UTC.
func parseISO(t testing.TB, s string) schema.Timestamp {
	t.Helper()
	var tm time.Time
	var err error
	if strings.Count(s, ":") == 1 {
		tm, err = time.Parse("2006-01-02T15:04", s)
	} else {
		tm, err = time.Parse("2006-01-02T15:04:05", s) // fraction accepted after seconds
	}
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	ns := tm.Nanosecond()
	return schema.Timestamp{Millis: tm.Unix()*1000 + int64(ns/1e6), NanoOfMilli: int32(ns % 1e6)}
}

func readVectorRows(t *testing.T, name string) [][]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.FixturesDir(t), "vectors", "bucket", name))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimRight(data, "\n")
	data = bytes.TrimSuffix(data, []byte(","))
	dec := json.NewDecoder(bytes.NewReader(append(append([]byte("["), data...), ']')))
	dec.UseNumber()
	var rows [][]any
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// convert turns one JSON cell into the value model of type dt.
func convert(t testing.TB, dt schema.DataType, cell any) any {
	t.Helper()
	if cell == nil {
		return nil
	}
	str := func() string {
		switch c := cell.(type) {
		case json.Number:
			return c.String()
		case string:
			return c
		}
		t.Fatalf("unexpected cell %T %v", cell, cell)
		return ""
	}
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatalf("cell %v for %v: %v", cell, dt.Root, err)
		}
		return v
	}
	switch dt.Root {
	case schema.TypeBoolean:
		return cell.(bool)
	case schema.TypeTinyInt:
		v, err := strconv.ParseInt(str(), 10, 8)
		return must(int8(v), err)
	case schema.TypeSmallInt:
		v, err := strconv.ParseInt(str(), 10, 16)
		return must(int16(v), err)
	case schema.TypeInt:
		v, err := strconv.ParseInt(str(), 10, 32)
		return must(int32(v), err)
	case schema.TypeDate:
		v, err := strconv.ParseInt(str(), 10, 32)
		return must(schema.Date(v), err)
	case schema.TypeBigInt:
		v, err := strconv.ParseInt(str(), 10, 64)
		return must(v, err)
	case schema.TypeFloat:
		v, err := strconv.ParseFloat(str(), 32)
		return must(float32(v), err)
	case schema.TypeDouble:
		v, err := strconv.ParseFloat(str(), 64)
		return must(v, err)
	case schema.TypeDecimal:
		return parseDecimal(t, str())
	case schema.TypeVarChar:
		return str()
	case schema.TypeVarBinary:
		return []byte(str())
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		if n, ok := cell.(json.Number); ok {
			v, err := strconv.ParseInt(n.String(), 10, 64)
			return must(tsFromNanos(v), err)
		}
		return parseISO(t, str())
	}
	t.Fatalf("unexpected type %v", dt.Root)
	return nil
}

func TestJavaBucketVectors(t *testing.T) {
	files := []struct {
		name  string
		types []schema.DataType
	}{
		{"record_for_bucket_id.data", []schema.DataType{
			ty(schema.TypeBoolean), ty(schema.TypeTinyInt), ty(schema.TypeSmallInt), ty(schema.TypeInt),
			ty(schema.TypeBigInt), ty(schema.TypeFloat), ty(schema.TypeDouble), ty(schema.TypeDate),
			ts(9), dec(30, 20), tString, tBytes,
		}},
		{"record_with_null_for_bucket_id.data", []schema.DataType{
			ty(schema.TypeBoolean), ty(schema.TypeTinyInt), ty(schema.TypeSmallInt), ty(schema.TypeInt),
			ty(schema.TypeBigInt), ty(schema.TypeFloat), ty(schema.TypeDouble), ty(schema.TypeDate),
			ts(9), dec(5, 2), dec(30, 2), tString, tBytes,
		}},
		{"record_with_timestamp_for_bucket_id.data", []schema.DataType{
			ts(0), ts(3), ts(6), ts(9), ltz(0), ltz(3), ltz(6), ltz(9),
		}},
	}
	const numBuckets = 12345
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			rows := readVectorRows(t, f.name)
			if len(rows) != 5000 {
				t.Fatalf("got %d rows, want 5000", len(rows))
			}
			keys := make([]int, len(f.types))
			for i := range keys {
				keys[i] = i
			}
			b, err := binaryrow.NewBucketer(f.types, keys, numBuckets, binaryrow.BucketFunctionDefault)
			if err != nil {
				t.Fatal(err)
			}
			codec, err := binaryrow.NewCodec(f.types)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for ri, cells := range rows {
				if len(cells) != len(f.types)+1 {
					t.Fatalf("row %d has %d cells", ri, len(cells))
				}
				row := make([]any, len(f.types))
				for i := range f.types {
					row[i] = convert(t, f.types[i], cells[i])
				}
				want, err := strconv.Atoi(cells[len(cells)-1].(json.Number).String())
				if err != nil {
					t.Fatal(err)
				}
				got, err := b.Bucket(row)
				if err != nil {
					t.Fatalf("row %d: %v", ri, err)
				}
				if got != want {
					bad++
					if bad <= 5 {
						t.Errorf("row %d %s: bucket %d, Java %d", ri, binaryrow.Format(f.types, row), got, want)
					}
				}
				// The same through the lower-level API, and a decode round trip.
				data, err := codec.Encode(row)
				if err != nil {
					t.Fatal(err)
				}
				if g := binaryrow.Bucket(binaryrow.HashCode(data), numBuckets); g != got {
					t.Fatalf("row %d: HashCode/Bucket %d, Bucketer %d", ri, g, got)
				}
				back, err := codec.Decode(data)
				if err != nil {
					t.Fatalf("row %d: decode: %v", ri, err)
				}
				if !equalRows(back, row, false) {
					t.Fatalf("row %d: decoded %s, want %s", ri, binaryrow.Format(f.types, back), binaryrow.Format(f.types, row))
				}
			}
			if bad > 0 {
				t.Fatalf("%d/%d rows differ from Java", bad, len(rows))
			}
		})
	}
}

// equalRows compares value-model rows; floats compare by bits, or (loose)
// any NaN equals any NaN; decimals compare by value and scale.
func equalRows(a, b []any, loose bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalValue(a[i], b[i], loose) {
			return false
		}
	}
	return true
}

func equalValue(a, b any, loose bool) bool {
	switch x := a.(type) {
	case float32:
		y, ok := b.(float32)
		if !ok {
			return false
		}
		if loose && x != x && y != y {
			return true
		}
		return fmt.Sprintf("%x", mathFloat32bits(x)) == fmt.Sprintf("%x", mathFloat32bits(y))
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if loose && x != x && y != y {
			return true
		}
		return mathFloat64bits(x) == mathFloat64bits(y)
	case schema.Decimal:
		y, ok := b.(schema.Decimal)
		if !ok || x.Scale != y.Scale {
			return false
		}
		bx, by := x.Big, y.Big
		if bx == nil {
			bx = big.NewInt(x.Compact)
		}
		if by == nil {
			by = big.NewInt(y.Compact)
		}
		return bx.Cmp(by) == 0
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && equalRows(x, y, loose)
	case schema.Map:
		y, ok := b.(schema.Map)
		return ok && equalRows(x.Keys, y.Keys, loose) && equalRows(x.Values, y.Values, loose)
	}
	return a == b
}
