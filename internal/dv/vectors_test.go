package dv_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/testutil"
)

// vector describes one Java-written file in vectors/dv (see its README).
type vector struct {
	file     string
	bitmap64 bool
	ranges   []dv.Range
	rows     [][]int64
}

var vectors = []vector{
	{
		file: "dvindex-32",
		ranges: []dv.Range{
			{FileName: "a", Offset: 1, Length: 24, Cardinality: 2},
			{FileName: "b", Offset: 33, Length: 22, Cardinality: 1},
		},
		rows: [][]int64{{2, 3}, {1}},
	},
	{
		file:     "dvindex-64",
		bitmap64: true,
		ranges: []dv.Range{
			{FileName: "a", Offset: 1, Length: 44, Cardinality: 2},
			{FileName: "b", Offset: 45, Length: 42, Cardinality: 1},
		},
		rows: [][]int64{{2, 3}, {1}},
	},
}

func readVector(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.FixturesDir(t), "vectors", "dv", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func positions(d dv.DeletionVector) []int64 {
	var out []int64
	for p := range d.Positions() {
		out = append(out, p)
	}
	return out
}

// noSize hides the Size method of a ReaderAt, forcing per-range reads.
type noSize struct{ r io.ReaderAt }

func (n noSize) ReadAt(p []byte, off int64) (int, error) { return n.r.ReadAt(p, off) }

func TestJavaVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.file, func(t *testing.T) {
			data := readVector(t, v.file)
			check := func(t *testing.T, got map[string]dv.DeletionVector) {
				t.Helper()
				if len(got) != len(v.ranges) {
					t.Fatalf("got %d DVs, want %d", len(got), len(v.ranges))
				}
				for i, r := range v.ranges {
					d := got[r.FileName]
					if d == nil {
						t.Fatalf("no DV for %s", r.FileName)
					}
					if d.Bitmap64() != v.bitmap64 {
						t.Errorf("%s: Bitmap64() = %v", r.FileName, d.Bitmap64())
					}
					if p := positions(d); !slices.Equal(p, v.rows[i]) {
						t.Errorf("%s: positions %v, want %v", r.FileName, p, v.rows[i])
					}
					if d.Cardinality() != r.Cardinality {
						t.Errorf("%s: cardinality %d, want %d", r.FileName, d.Cardinality(), r.Cardinality)
					}
				}
			}
			got, err := dv.ReadAll(data, v.ranges)
			if err != nil {
				t.Fatal(err)
			}
			check(t, got)
			got, err = dv.ReadIndexFile(bytes.NewReader(data), v.ranges)
			if err != nil {
				t.Fatal(err)
			}
			check(t, got)
			got, err = dv.ReadIndexFile(noSize{bytes.NewReader(data)}, v.ranges)
			if err != nil {
				t.Fatal(err)
			}
			check(t, got)
			for i, r := range v.ranges {
				for _, f := range []io.ReaderAt{bytes.NewReader(data), noSize{bytes.NewReader(data)}} {
					d, err := dv.ReadDeletionVector(f, int64(r.Offset), int64(r.Length))
					if err != nil {
						t.Fatalf("ReadDeletionVector(%d, %d): %v", r.Offset, r.Length, err)
					}
					if p := positions(d); !slices.Equal(p, v.rows[i]) {
						t.Errorf("ReadDeletionVector(%d, %d) = %v, want %v", r.Offset, r.Length, p, v.rows[i])
					}
				}
				// The other format's length meaning is rejected.
				wrong := int64(r.Length) + 8
				if v.bitmap64 {
					wrong = int64(r.Length) - 8
				}
				if _, err := dv.ReadDeletionVector(bytes.NewReader(data), int64(r.Offset), wrong); !errors.Is(err, dv.ErrCorrupt) {
					t.Errorf("length %d: err = %v, want ErrCorrupt", wrong, err)
				}
			}

			// Walking the file finds the same ranges.
			scanned, dvs, err := dv.ScanIndexFile(data)
			if err != nil {
				t.Fatal(err)
			}
			for i := range scanned {
				scanned[i].FileName = v.ranges[i].FileName
			}
			if !slices.Equal(scanned, v.ranges) {
				t.Errorf("ScanIndexFile ranges %+v, want %+v", scanned, v.ranges)
			}

			// Re-encoding gives Java's bytes and ranges.
			var named []dv.NamedDV
			for i, d := range dvs {
				named = append(named, dv.NamedDV{FileName: v.ranges[i].FileName, DV: d})
			}
			out, ranges, err := dv.WriteIndexFile(named, v.bitmap64)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, data) {
				t.Errorf("re-encoded\n%x\nwant\n%x", out, data)
			}
			if !slices.Equal(ranges, v.ranges) {
				t.Errorf("ranges %+v, want %+v", ranges, v.ranges)
			}
		})
	}
}

// TestJavaVectorsCrossFormat converts the 32-bit vector to the 64-bit
// format and back: both give the other Java file byte for byte.
func TestJavaVectorsCrossFormat(t *testing.T) {
	d32, d64 := readVector(t, "dvindex-32"), readVector(t, "dvindex-64")
	for _, c := range []struct {
		from, want []byte
		bitmap64   bool
	}{{d32, d64, true}, {d64, d32, false}} {
		_, dvs, err := dv.ScanIndexFile(c.from)
		if err != nil {
			t.Fatal(err)
		}
		named := []dv.NamedDV{{FileName: "a", DV: dvs[0]}, {FileName: "b", DV: dvs[1]}}
		out, _, err := dv.WriteIndexFile(named, c.bitmap64)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, c.want) {
			t.Errorf("bitmap64=%v: got\n%x\nwant\n%x", c.bitmap64, out, c.want)
		}
	}
}

// fixtureIndexFiles lists the DV index files of the Java-written pk_*
// tables: index/index-* and <partition>/bucket-*/index-* (also under
// external paths), never index-manifest-*.
func fixtureIndexFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	dbs, err := filepath.Glob(filepath.Join(testutil.FixturesDir(t), "pk_*.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs {
		err := filepath.WalkDir(db, func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := e.Name()
			if e.IsDir() || !strings.HasPrefix(name, "index-") || strings.HasPrefix(name, "index-manifest-") {
				return nil
			}
			dir := filepath.Base(filepath.Dir(p))
			if dir == "index" || strings.HasPrefix(dir, "bucket-") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func TestJavaFixtureIndexFiles(t *testing.T) {
	files := fixtureIndexFiles(t)
	if len(files) < 20 {
		t.Fatalf("found %d fixture index files, expected at least 20", len(files))
	}
	root := testutil.FixturesDir(t)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := dv.ParseIndexFileName(filepath.Base(f)); err != nil {
				t.Error(err)
			}
			ranges, dvs, err := dv.ScanIndexFile(data)
			if err != nil {
				t.Fatal(err)
			}
			var named []dv.NamedDV
			bitmap64 := false
			for i, d := range dvs {
				if d.IsEmpty() {
					t.Errorf("blob %d is empty", i)
				}
				bitmap64 = d.Bitmap64()
				ranges[i].FileName = string(rune('a' + i))
				named = append(named, dv.NamedDV{FileName: ranges[i].FileName, DV: d})
				t.Logf("offset %d length %d: %v", ranges[i].Offset, ranges[i].Length, d)
			}
			got, err := dv.ReadAll(data, ranges)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range ranges {
				if !dv.Equal(got[r.FileName], dvs[i]) {
					t.Errorf("ReadAll %s = %v, scan gave %v", r.FileName, got[r.FileName], dvs[i])
				}
			}
			out, outRanges, err := dv.WriteIndexFile(named, bitmap64)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, data) {
				t.Errorf("re-encoded\n%x\nwant\n%x", out, data)
			}
			if !slices.Equal(outRanges, ranges) {
				t.Errorf("ranges %+v, want %+v", outRanges, ranges)
			}
			// The writer of lsmwrite's DV maintainers (each DV in its own
			// format, as Java's DeletionFileWriter writes it).
			native, nativeRanges, err := dv.WriteIndexFileNative(named)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(native, data) || !slices.Equal(nativeRanges, ranges) {
				t.Errorf("WriteIndexFileNative differs from Java's file")
			}
			rolled, err := dv.WriteIndexFilesNative(named, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			// Java's writeWithRolling writes no file for no DVs.
			if len(named) == 0 && len(rolled) != 0 || len(named) > 0 && (len(rolled) != 1 || !bytes.Equal(rolled[0].Data, data)) {
				t.Errorf("WriteIndexFilesNative differs from Java's file")
			}
		})
	}
}

// TestJavaFixtureScanAndReadDV checks the contents documented for
// pk_table_scan_and_read_dv (paimon-format.md §9.3): rows {0} and {4}.
func TestJavaFixtureScanAndReadDV(t *testing.T) {
	var all []int64
	for _, f := range fixtureIndexFiles(t) {
		if !strings.Contains(f, "pk_table_scan_and_read_dv.db") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != 31 {
			t.Errorf("%s: %d bytes, want 31", f, len(data))
		}
		ranges, dvs, err := dv.ScanIndexFile(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(dvs) != 1 || ranges[0] != (dv.Range{Offset: 1, Length: 22, Cardinality: 1}) {
			t.Fatalf("%s: ranges %+v", f, ranges)
		}
		all = append(all, positions(dvs[0])...)
	}
	slices.Sort(all)
	if !slices.Equal(all, []int64{0, 4}) {
		t.Errorf("deleted rows %v, want [0 4]", all)
	}
}
