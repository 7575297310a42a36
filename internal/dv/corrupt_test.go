package dv_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/dv"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantCorrupt(t *testing.T, name string, err error, substr string) {
	t.Helper()
	if !errors.Is(err, dv.ErrCorrupt) {
		t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		return
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("%s: error %q does not mention %q", name, err, substr)
	}
}

// TestCorruptBitmaps feeds portable roaring bitmaps with valid blob framing
// and CRC, so the roaring validation itself must catch each defect.
func TestCorruptBitmaps(t *testing.T) {
	bitset := make([]byte, 8192)
	bitset[0] = 0xff // 8 values, header claims 5000
	cases := []struct{ name, hex, want string }{
		{"ok", "3a300000 01000000 0000 0100 10000000 0200 0300", ""},
		{"bad cookie", "3a310000 01000000 0000 0100 10000000 0200 0300", "cookie"},
		{"too many containers", "3a300000 01000100", "containers"},
		{"truncated header", "3a300000 02000000 0000 0100", "truncated"},
		{"wrong offset", "3a300000 01000000 0000 0100 11000000 0200 0300", "offset"},
		{"unsorted array", "3a300000 01000000 0000 0100 10000000 0300 0200", "not ascending"},
		{"duplicate array value", "3a300000 01000000 0000 0100 10000000 0300 0300", "not ascending"},
		{"truncated array", "3a300000 01000000 0000 0200 10000000 0200 0300", "truncated"},
		{"keys not ascending", "3a300000 02000000 0100 0000 0000 0000 18000000 1a000000 0100 0200", "keys not ascending"},
		{"overlapping runs", "3b300000 01 0000 0500 0200 0000 0400 0300 0000", "overlapping"},
		{"run past 65535", "3b300000 01 0000 0100 0100 ffff 0100", "past 65535"},
		{"run without runs", "3b300000 01 0000 0000 0000", "no runs"},
		{"run cardinality", "3b300000 01 0000 0900 0100 0000 0400", "header says"},
		{"trailing bytes", "3a300000 01000000 0000 0100 10000000 0200 0300 00", "trailing"},
		{"bitset popcount", "3a300000 01000000 0000 8713 10000000" + hex.EncodeToString(bitset), "header says"},
	}
	for _, c := range cases {
		bm := unhex(t, c.hex)
		_, err := dv.DeserializeBlob(blob32(bm))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else {
			wantCorrupt(t, c.name+" (32-bit)", err, c.want)
		}
		// The same bitmap inside a 64-bit blob, as key 0.
		_, err = dv.DeserializeBlob(blob64(append(unhex(t, "0100000000000000 00000000"), bm...)))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s (64-bit): %v", c.name, err)
			}
		} else {
			wantCorrupt(t, c.name+" (64-bit)", err, c.want)
		}
	}
}

func TestCorruptBitmap64(t *testing.T) {
	empty := "3a30000000000000"
	one := "3a300000 01000000 0000 0000 10000000 0100"
	cases := []struct{ name, hex, want string }{
		{"ok", "0200000000000000 00000000" + empty + "01000000" + one, ""},
		{"ok gap", "0100000000000000 05000000" + one, ""},
		{"short", "01000000", "truncated"},
		{"count too large", "ffffffffffffffff", "count"},
		{"count does not fit", "0300000000000000 00000000" + empty, "does not fit"},
		{"negative key", "0100000000000000 ffffffff" + one, "out of range"},
		{"key too large", "0100000000000000 ffffff7f" + one, "out of range"},
		{"keys not ascending", "0200000000000000 01000000" + one + "01000000" + one, "not ascending"},
		{"trailing", "0100000000000000 00000000" + one + "00000000", "trailing"},
		{"truncated entry", "0200000000000000 00000000" + one + "0100", "truncated at key #1"},
	}
	for _, c := range cases {
		_, err := dv.DeserializeBlob(blob64(unhex(t, c.hex)))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		wantCorrupt(t, c.name, err, c.want)
	}
}

func TestCorruptBlobs(t *testing.T) {
	data := readVector(t, "dvindex-32")
	good := data[1:33]
	mut := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	cases := []struct {
		name string
		blob []byte
		want string
	}{
		{"crc", mut(func(b []byte) { b[len(b)-1] ^= 1 }), "CRC"},
		{"bitmap byte", mut(func(b []byte) { b[20] ^= 0x10 }), "CRC"},
		{"magic", mut(func(b []byte) { b[5] ^= 1 }), "magic"},
		{"size too small", mut(func(b []byte) { binary.BigEndian.PutUint32(b, 3) }), "smaller than the magic"},
		{"size mismatch", mut(func(b []byte) { binary.BigEndian.PutUint32(b, 25) }), "length field"},
		{"negative size", mut(func(b []byte) { binary.BigEndian.PutUint32(b, 0x80000000) }), "smaller than the magic"},
		{"short", good[:7], "truncated"},
		{"empty", nil, "truncated"},
	}
	for _, c := range cases {
		_, err := dv.DeserializeBlob(c.blob)
		wantCorrupt(t, c.name, err, c.want)
	}
}

func TestCorruptRanges(t *testing.T) {
	data := readVector(t, "dvindex-32")
	ok := dv.Range{FileName: "a", Offset: 1, Length: 24, Cardinality: 2}
	cases := []struct {
		name   string
		data   []byte
		ranges []dv.Range
		want   string
	}{
		{"version", append([]byte{2}, data[1:]...), []dv.Range{ok}, "version 2"},
		{"no version", nil, nil, "version byte"},
		{"offset past end", data, []dv.Range{{FileName: "a", Offset: 100, Length: 24}}, "truncated"},
		{"offset 0", data, []dv.Range{{FileName: "a", Offset: 0, Length: 24}}, "magic"},
		{"negative offset", data, []dv.Range{{FileName: "a", Offset: -1, Length: 24}}, "invalid deletion vector range"},
		{"zero length", data, []dv.Range{{FileName: "a", Offset: 1, Length: 0}}, "invalid deletion vector range"},
		{"length", data, []dv.Range{{FileName: "a", Offset: 1, Length: 22}}, "does not match range length"},
		{"cardinality", data, []dv.Range{{FileName: "a", Offset: 1, Length: 24, Cardinality: 3}}, "index manifest says 3"},
		{"duplicate", data, []dv.Range{ok, ok}, "two ranges"},
		{"cut file", data[:50], []dv.Range{ok, {FileName: "b", Offset: 33, Length: 22}}, "needs 30 bytes"},
	}
	for _, c := range cases {
		_, err := dv.ReadAll(c.data, c.ranges)
		wantCorrupt(t, c.name+" (ReadAll)", err, c.want)
		_, err = dv.ReadIndexFile(bytes.NewReader(c.data), c.ranges)
		wantCorrupt(t, c.name+" (ReadIndexFile)", err, c.want)
		_, err = dv.ReadIndexFile(noSize{bytes.NewReader(c.data)}, c.ranges)
		wantCorrupt(t, c.name+" (ReadIndexFile without Size)", err, c.want)
	}
	// A huge length from a bad manifest costs no huge allocation.
	_, err := dv.ReadDeletionVector(noSize{bytes.NewReader(data)}, 1, math.MaxInt32)
	wantCorrupt(t, "huge length", err, "does not match")
	_, err = dv.ReadDeletionVector(bytes.NewReader(data), 1, math.MaxInt32+1)
	wantCorrupt(t, "length above int32", err, "invalid deletion vector range")
	_, err = dv.ReadDeletionVector(bytes.NewReader(data), 60, 22)
	wantCorrupt(t, "header past end", err, "truncated")

	_, _, err = dv.ScanIndexFile(append(bytes.Clone(data), 0, 0, 0))
	wantCorrupt(t, "stray bytes", err, "stray")
	if _, _, err := dv.ScanIndexFile([]byte{1}); err != nil {
		t.Errorf("version byte alone: %v", err)
	}
}

// failingReader returns an I/O error, which must not be reported as
// corruption.
type failingReader struct{}

var errIO = errors.New("disk on fire")

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errIO }

func TestReadIOError(t *testing.T) {
	_, err := dv.ReadDeletionVector(failingReader{}, 1, 22)
	if !errors.Is(err, errIO) || errors.Is(err, dv.ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	_, err = dv.ReadIndexFile(failingReader{}, nil)
	if !errors.Is(err, errIO) || errors.Is(err, dv.ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
}
