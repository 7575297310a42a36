package dv_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/dv"
)

// model is the reference: a sorted set of positions.
type model map[int64]struct{}

func (m model) sorted() []int64 {
	out := make([]int64, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// shapes returns named generators of position sets. Each stays within the
// limit of the format.
func shapes(bitmap64 bool) map[string]func(r *rand.Rand) []int64 {
	s := map[string]func(r *rand.Rand) []int64{
		"empty": func(*rand.Rand) []int64 { return nil },
		"sparse": func(r *rand.Rand) []int64 {
			out := make([]int64, 1+r.IntN(200))
			for i := range out {
				out[i] = r.Int64N(1 << 24)
			}
			return out
		},
		"runs": func(r *rand.Rand) []int64 {
			var out []int64
			for range 1 + r.IntN(20) {
				start := r.Int64N(1 << 22)
				for p := start; p < start+1+r.Int64N(10000); p++ {
					out = append(out, p)
				}
			}
			return out
		},
		"bitset": func(r *rand.Rand) []int64 {
			// > 4096 scattered values in one 64K chunk: a bitset container.
			base := int64(r.IntN(100)) << 16
			var out []int64
			for range 5000 + r.IntN(20000) {
				out = append(out, base+2*r.Int64N(1<<15))
			}
			return out
		},
		"mixed": func(r *rand.Rand) []int64 {
			var out []int64
			for c := range int64(8) {
				base := c << 16
				switch r.IntN(3) {
				case 0:
					for range r.IntN(100) {
						out = append(out, base+r.Int64N(1<<16))
					}
				case 1:
					start := r.Int64N(1 << 15)
					for p := start; p < start+r.Int64N(1<<15); p++ {
						out = append(out, base+p)
					}
				default:
					for range 4097 + r.IntN(10000) {
						out = append(out, base+r.Int64N(1<<16))
					}
				}
			}
			return out
		},
		"near2^31": func(r *rand.Rand) []int64 {
			out := []int64{math.MaxInt32, math.MaxInt32 - 1, 1<<31 - 1<<16, 0}
			for range r.IntN(5000) {
				out = append(out, math.MaxInt32-r.Int64N(1<<17))
			}
			return out
		},
	}
	if bitmap64 {
		s["above2^32"] = func(r *rand.Rand) []int64 {
			out := []int64{1 << 31, 1 << 32, 1<<32 - 1, 1<<32 + 1, 5<<32 | 7}
			for range r.IntN(3000) {
				out = append(out, r.Int64N(1<<36))
			}
			for p := int64(3<<32 - 100); p < 3<<32+100; p++ {
				out = append(out, p)
			}
			return out
		}
		s["highKey"] = func(r *rand.Rand) []int64 {
			// 1000 dense entries: Java writes an empty bitmap for every key below.
			out := []int64{1000<<32 | 0xFFFFFFFF, 1000 << 32, 999<<32 | 1<<31, 1}
			for range r.IntN(100) {
				out = append(out, 1000<<32|r.Int64N(1<<32))
			}
			return out
		}
	}
	return s
}

func build(t *testing.T, bitmap64 bool, ps []int64) (dv.DeletionVector, model) {
	t.Helper()
	d := dv.New(bitmap64)
	m := model{}
	for _, p := range ps {
		_, had := m[p]
		added, err := d.Delete(p)
		if err != nil {
			t.Fatalf("Delete(%d): %v", p, err)
		}
		if added == had {
			t.Fatalf("Delete(%d) = %v, position was deleted before: %v", p, added, had)
		}
		m[p] = struct{}{}
	}
	return d, m
}

// checkModel compares a DV to the model through every read method.
func checkModel(t *testing.T, r *rand.Rand, d dv.DeletionVector, m model) {
	t.Helper()
	want := m.sorted()
	if got := positions(d); !slices.Equal(got, want) {
		t.Fatalf("positions differ: %d vs %d values; got %v", len(got), len(want), d)
	}
	if d.Cardinality() != int64(len(want)) || d.IsEmpty() != (len(want) == 0) {
		t.Fatalf("Cardinality %d IsEmpty %v, want %d", d.Cardinality(), d.IsEmpty(), len(want))
	}
	for _, p := range want[:min(len(want), 50)] {
		if !d.IsDeleted(p) {
			t.Fatalf("IsDeleted(%d) = false", p)
		}
	}
	probes := []int64{-1, 0, 1, math.MaxInt32, 1 << 31, 1 << 32, math.MaxInt64}
	for range 200 {
		probes = append(probes, r.Int64N(1<<33))
		if len(want) > 0 {
			probes = append(probes, want[r.IntN(len(want))]+r.Int64N(5)-2)
		}
	}
	for _, p := range probes {
		_, in := m[p]
		if d.IsDeleted(p) != in {
			t.Fatalf("IsDeleted(%d) = %v, want %v", p, !in, in)
		}
		i, _ := slices.BinarySearch(want, max(p, 0))
		got, ok := d.NextDeleted(p)
		if ok != (i < len(want)) || (ok && got != want[i]) {
			t.Fatalf("NextDeleted(%d) = %d, %v", p, got, ok)
		}
	}
	// Batch skipping with the iterator.
	it := d.Iterator()
	var seen []int64
	start := int64(0)
	for len(seen) < len(want) {
		end := start + 1 + r.Int64N(100000)
		if r.IntN(10) == 0 && len(want) > 0 {
			end = want[len(want)-1] + 1 // jump to the end
		}
		it.AdvanceTo(start)
		seen = it.AppendUntil(seen, end)
		start = end
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("iterator batches gave %d values, want %d", len(seen), len(want))
	}
	if _, ok := it.Next(); ok {
		t.Fatalf("iterator not exhausted")
	}
}

func TestRoundTripRandom(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, bitmap64 := range []bool{false, true} {
		for name, gen := range shapes(bitmap64) {
			t.Run(fmt.Sprintf("bitmap64=%v/%s", bitmap64, name), func(t *testing.T) {
				for range 5 {
					d, m := build(t, bitmap64, gen(r))
					checkModel(t, r, d, m)

					blob, length, err := d.AppendTo(nil)
					if err != nil {
						t.Fatal(err)
					}
					wantLen := int32(len(blob))
					if !bitmap64 {
						wantLen -= 8
					}
					if length != wantLen {
						t.Fatalf("length %d for a %d-byte blob", length, len(blob))
					}
					back, err := dv.DeserializeBlob(blob)
					if err != nil {
						t.Fatal(err)
					}
					if back.Bitmap64() != bitmap64 {
						t.Fatalf("format changed")
					}
					checkModel(t, r, back, m)
					again, _, err := back.AppendTo(nil)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(again, blob) {
						t.Fatalf("re-encoding the decoded DV changed the bytes")
					}

					// Inside an index file, with a second DV after it.
					other, om := build(t, bitmap64, gen(r))
					data, ranges, err := dv.WriteIndexFile([]dv.NamedDV{{"x", d}, {"y", other}}, bitmap64)
					if err != nil {
						t.Fatal(err)
					}
					all, err := dv.ReadAll(data, ranges)
					if err != nil {
						t.Fatal(err)
					}
					checkModel(t, r, all["x"], m)
					checkModel(t, r, all["y"], om)
					y, err := dv.ReadDeletionVector(noSize{bytes.NewReader(data)}, int64(ranges[1].Offset), int64(ranges[1].Length))
					if err != nil {
						t.Fatal(err)
					}
					checkModel(t, r, y, om)

					// Merge and Clone.
					c := d.Clone()
					if err := c.Merge(other); err != nil {
						t.Fatal(err)
					}
					union := model{}
					for p := range m {
						union[p] = struct{}{}
					}
					for p := range om {
						union[p] = struct{}{}
					}
					checkModel(t, r, c, union)
					checkModel(t, r, d, m) // the clone is independent
				}
			})
		}
	}
}

// TestContainerKinds checks that the serialized 32-bit bitmaps really use
// run and bitset containers where expected, so the round trips above cover
// every container type.
func TestContainerKinds(t *testing.T) {
	d := dv.NewBitmapDeletionVector()
	for p := int64(100); p < 20000; p++ { // one run in chunk 0
		mustDelete(t, d, p)
	}
	for p := int64(1 << 16); p < 2<<16; p += 3 { // bitset in chunk 1
		mustDelete(t, d, p)
	}
	mustDelete(t, d, 3<<16+5) // array in chunk 3
	blob, _, err := d.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	bm := blob[8 : len(blob)-4]
	cookie := binary.LittleEndian.Uint32(bm)
	if cookie&0xFFFF != 12347 || cookie>>16 != 2 {
		t.Fatalf("cookie %#x, want run cookie with 3 containers", cookie)
	}
	if bm[4] != 0b001 {
		t.Fatalf("run bitset %08b, want only container 0 as a run", bm[4])
	}
	if len(bm) < 8192 {
		t.Fatalf("bitmap of %d bytes has no bitset container", len(bm))
	}
}

func mustDelete(t *testing.T, d dv.DeletionVector, p int64) {
	t.Helper()
	if _, err := d.Delete(p); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyBlobs(t *testing.T) {
	for _, c := range []struct {
		bitmap64 bool
		want     string
	}{
		// size 12, magic, cookie 12346, 0 containers, CRC
		{false, "0000000c5e43f2d03a30000000000000"},
		// length 12, LE magic, count 0, CRC
		{true, "0000000cd1d339640000000000000000"},
	} {
		blob, _, err := dv.New(c.bitmap64).AppendTo(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", blob[:len(blob)-4]); got != c.want {
			t.Errorf("bitmap64=%v: %s, want %s", c.bitmap64, got, c.want)
		}
		d, err := dv.DeserializeBlob(blob)
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsEmpty() || d.Bitmap64() != c.bitmap64 {
			t.Errorf("decoded %v", d)
		}
	}
}

// TestBitmap64Dense checks Java's dense layout: keys 0..max, empty bitmaps
// for the gaps.
func TestBitmap64Dense(t *testing.T) {
	d := dv.NewBitmap64DeletionVector()
	mustDelete(t, d, 2<<32|7)
	blob, length, err := d.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if int(length) != len(blob) {
		t.Fatalf("length %d, blob %d", length, len(blob))
	}
	b := blob[8 : len(blob)-4]
	if n := binary.LittleEndian.Uint64(b); n != 3 {
		t.Fatalf("count %d, want 3", n)
	}
	empty := "3a30000000000000"
	want := "00000000" + empty + "01000000" + empty + "02000000"
	if got := fmt.Sprintf("%x", b[8:8+len(want)/2]); got != want {
		t.Fatalf("entries %s, want %s...", got, want)
	}

	// A sparse blob (gaps, as Iceberg may write) is accepted too.
	sparse := []byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}
	sparse = append(sparse, b[8+len(want)/2:]...)
	got, err := dv.DeserializeBlob(blob64(sparse))
	if err != nil {
		t.Fatal(err)
	}
	if !dv.Equal(got, d) {
		t.Fatalf("sparse decoded to %v, want %v", got, d)
	}
}

// blob64 wraps bitmap64 bytes into a blob with length, magic and CRC.
func blob64(bitmap []byte) []byte {
	data := binary.LittleEndian.AppendUint32(nil, dv.MagicBitmap64)
	return wrap(append(data, bitmap...))
}

// blob32 wraps portable bitmap bytes into a 32-bit blob.
func blob32(bitmap []byte) []byte {
	data := binary.BigEndian.AppendUint32(nil, dv.MagicBitmap32)
	return wrap(append(data, bitmap...))
}

func wrap(data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32IEEE(data))
}

func TestDeleteOutOfRange(t *testing.T) {
	for _, c := range []struct {
		bitmap64 bool
		pos      int64
	}{
		{false, -1}, {false, math.MaxInt32 + 1}, {false, 1 << 40},
		{true, -1}, {true, dv.MaxBitmap64Position + 1}, {true, math.MaxInt64},
	} {
		d := dv.New(c.bitmap64)
		if _, err := d.Delete(c.pos); !errors.Is(err, dv.ErrPositionOutOfRange) {
			t.Errorf("bitmap64=%v Delete(%d): %v", c.bitmap64, c.pos, err)
		}
		if d.IsDeleted(c.pos) || !d.IsEmpty() {
			t.Errorf("bitmap64=%v: %d stored", c.bitmap64, c.pos)
		}
	}
}

func TestMergeAcrossFormats(t *testing.T) {
	d32 := dv.NewBitmapDeletionVector()
	mustDelete(t, d32, 1)
	mustDelete(t, d32, math.MaxInt32)
	d64 := dv.NewBitmap64DeletionVector()
	mustDelete(t, d64, 2)
	if err := d64.Merge(d32); err != nil {
		t.Fatal(err)
	}
	if got := positions(d64); !slices.Equal(got, []int64{1, 2, math.MaxInt32}) {
		t.Fatalf("64 after merge: %v", got)
	}
	mustDelete(t, d32, 5)
	if d64.IsDeleted(5) {
		t.Fatalf("merge shares storage with its source")
	}
	if err := d32.Merge(d64); err != nil {
		t.Fatal(err)
	}
	if got := positions(d32); !slices.Equal(got, []int64{1, 2, 5, math.MaxInt32}) {
		t.Fatalf("32 after merge: %v", got)
	}
	mustDelete(t, d64, 1<<32)
	before := positions(d32)
	if err := d32.Merge(d64); !errors.Is(err, dv.ErrPositionOutOfRange) {
		t.Fatalf("merging 2^32 into 32-bit: %v", err)
	}
	if !slices.Equal(positions(d32), before) {
		t.Fatalf("failed merge changed the DV")
	}
	if _, err := dv.Convert(d64, false); !errors.Is(err, dv.ErrPositionOutOfRange) {
		t.Fatalf("Convert: %v", err)
	}
	if _, _, err := dv.WriteIndexFile([]dv.NamedDV{{"f", d64}}, false); !errors.Is(err, dv.ErrPositionOutOfRange) {
		t.Fatalf("WriteIndexFile: %v", err)
	}
	c, err := dv.Convert(d32, true)
	if err != nil || !c.Bitmap64() || !dv.Equal(c, d32) {
		t.Fatalf("Convert to 64: %v %v", c, err)
	}
}

func TestWriteIndexFiles(t *testing.T) {
	var named []dv.NamedDV
	for i := range 10 {
		d := dv.NewBitmapDeletionVector()
		for p := range int64(10 * (i + 1)) {
			mustDelete(t, d, p*7)
		}
		named = append(named, dv.NamedDV{FileName: fmt.Sprintf("data-%d.parquet", i), DV: d})
	}
	files, err := dv.WriteIndexFiles(named, false, 200)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("%d files, expected rolling", len(files))
	}
	n := 0
	for i, f := range files {
		// Java closes a file right after the blob that passes the target.
		last := f.Ranges[len(f.Ranges)-1]
		withoutLast := int64(last.Offset)
		if withoutLast > 200 || (i < len(files)-1 && len(f.Data) <= 200) {
			t.Errorf("file %d: %d bytes, last blob at %d", i, len(f.Data), last.Offset)
		}
		got, err := dv.ReadAll(f.Data, f.Ranges)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Ranges {
			if !dv.Equal(got[r.FileName], named[n].DV) || r.FileName != named[n].FileName {
				t.Errorf("file %d: %s differs", i, r.FileName)
			}
			n++
		}
	}
	if n != len(named) {
		t.Fatalf("%d DVs written, want %d", n, len(named))
	}
	if files, err := dv.WriteIndexFiles(nil, false, 200); err != nil || len(files) != 0 {
		t.Fatalf("no DVs: %v %v", files, err)
	}
	data, ranges, err := dv.WriteIndexFile(nil, true)
	if err != nil || !bytes.Equal(data, []byte{1}) || len(ranges) != 0 {
		t.Fatalf("empty index file: %x %v %v", data, ranges, err)
	}
	dup := []dv.NamedDV{named[0], named[0]}
	if _, _, err := dv.WriteIndexFile(dup, false); !errors.Is(err, dv.ErrDuplicateFile) {
		t.Fatalf("duplicate: %v", err)
	}
}

// TestBitmap64Limit: Java's largest position is accepted in memory, but its
// dense serialization (one bitmap per key below) exceeds 2 GiB, so writing
// fails as Java's "Can't serialize index > 2GB" does.
func TestBitmap64Limit(t *testing.T) {
	d := dv.NewBitmap64DeletionVector()
	mustDelete(t, d, dv.MaxBitmap64Position)
	if !d.IsDeleted(dv.MaxBitmap64Position) {
		t.Fatal("max position lost")
	}
	if _, _, err := d.AppendTo(nil); !errors.Is(err, dv.ErrTooLarge) {
		t.Fatalf("AppendTo: %v", err)
	}
}

func TestZeroValues(t *testing.T) {
	var a dv.BitmapDeletionVector
	var b dv.Bitmap64DeletionVector
	for _, d := range []dv.DeletionVector{&a, &b} {
		if !d.IsEmpty() || d.IsDeleted(0) {
			t.Fatalf("%v not empty", d)
		}
		if _, ok := d.NextDeleted(0); ok {
			t.Fatalf("%v: NextDeleted on empty", d)
		}
		mustDelete(t, d, 7)
		if !d.IsDeleted(7) || d.Cardinality() != 1 || d.String() == "" {
			t.Fatalf("%v", d)
		}
	}
	if a.String() != "BitmapDeletionVector{7}" || b.String() != "Bitmap64DeletionVector{7}" {
		t.Fatalf("%v %v", &a, &b)
	}
}
