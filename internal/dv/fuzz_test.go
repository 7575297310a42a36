package dv_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/internal/dv"
)

// FuzzReadDeletionVector reads one DV from arbitrary file bytes at an
// arbitrary range: it must never panic, every failure must wrap ErrCorrupt,
// and whatever decodes must re-encode to a blob that decodes to the same
// positions.
func FuzzReadDeletionVector(f *testing.F) {
	for _, v := range vectors {
		data := readVector(f, v.file)
		for _, r := range v.ranges {
			f.Add(data, int64(r.Offset), int64(r.Length))
		}
	}
	// Bare bitmaps (see the framing below): {2,3} in 32 and 64 bits, a run.
	f.Add(readVector(f, "dvindex-32")[9:29], int64(0), int64(0))
	f.Add(readVector(f, "dvindex-64")[9:41], int64(0), int64(0))
	f.Add([]byte{0x3b, 0x30, 0, 0, 1, 0, 0, 4, 0, 1, 0, 0, 0, 4, 0}, int64(0), int64(0))
	f.Add(blob32([]byte{0x3b, 0x30, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}), int64(0), int64(15))
	f.Fuzz(func(t *testing.T, data []byte, offset, length int64) {
		for _, r := range []interface {
			ReadAt([]byte, int64) (int, error)
		}{bytes.NewReader(data), noSize{bytes.NewReader(data)}} {
			d, err := dv.ReadDeletionVector(r, offset, length)
			if err != nil {
				if !errors.Is(err, dv.ErrCorrupt) {
					t.Fatalf("error does not wrap ErrCorrupt: %v", err)
				}
				continue
			}
			checkReencode(t, d)
		}
		// The same bytes as a bitmap with valid framing and CRC, so the
		// fuzzer reaches the roaring validation past the checksum.
		for _, blob := range [][]byte{blob32(data), blob64(data)} {
			d, err := dv.DeserializeBlob(blob)
			if err != nil {
				if !errors.Is(err, dv.ErrCorrupt) {
					t.Fatalf("error does not wrap ErrCorrupt: %v", err)
				}
				continue
			}
			checkReencode(t, d)
		}
	})
}

func checkReencode(t *testing.T, d dv.DeletionVector) {
	t.Helper()
	if d.Cardinality() < 0 || d.IsEmpty() != (d.Cardinality() == 0) {
		t.Fatalf("cardinality %d, empty %v", d.Cardinality(), d.IsEmpty())
	}
	if _, ok := d.NextDeleted(1 << 44); ok {
		// Java's dense 64-bit layout writes 12 bytes per key below the
		// largest one: up to 2 GiB, too slow for fuzzing.
		return
	}
	blob, _, err := d.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := dv.DeserializeBlob(blob)
	if err != nil {
		t.Fatalf("re-encoded blob does not decode: %v", err)
	}
	if !dv.Equal(back, d) {
		t.Fatalf("re-encoded %v, decoded %v", d, back)
	}
}

// FuzzReadIndexFile walks and reads arbitrary index files, with the ranges
// the walk finds and one arbitrary range.
func FuzzReadIndexFile(f *testing.F) {
	for _, v := range vectors {
		data := readVector(f, v.file)
		f.Add(data, v.ranges[1].Offset, v.ranges[1].Length, int64(1))
	}
	f.Add([]byte{1}, int32(1), int32(22), int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, offset, length int32, card int64) {
		ranges, dvs, err := dv.ScanIndexFile(data)
		if err != nil {
			if !errors.Is(err, dv.ErrCorrupt) {
				t.Fatalf("ScanIndexFile error does not wrap ErrCorrupt: %v", err)
			}
		} else {
			for i := range ranges {
				ranges[i].FileName = string(rune('a'+i%26)) + string(rune('0'+i/26))
			}
			all, err := dv.ReadAll(data, ranges)
			if err != nil {
				t.Fatalf("ReadAll fails on ranges found by ScanIndexFile: %v", err)
			}
			for i, r := range ranges {
				if !dv.Equal(all[r.FileName], dvs[i]) {
					t.Fatalf("range %d: ReadAll and ScanIndexFile disagree", i)
				}
				checkReencode(t, dvs[i])
			}
		}
		one := []dv.Range{{FileName: "x", Offset: offset, Length: length, Cardinality: card}}
		for _, read := range []func() (map[string]dv.DeletionVector, error){
			func() (map[string]dv.DeletionVector, error) { return dv.ReadAll(data, one) },
			func() (map[string]dv.DeletionVector, error) { return dv.ReadIndexFile(bytes.NewReader(data), one) },
			func() (map[string]dv.DeletionVector, error) {
				return dv.ReadIndexFile(noSize{bytes.NewReader(data)}, one)
			},
		} {
			got, err := read()
			if err != nil {
				if !errors.Is(err, dv.ErrCorrupt) {
					t.Fatalf("error does not wrap ErrCorrupt: %v", err)
				}
				continue
			}
			checkReencode(t, got["x"])
		}
	})
}
