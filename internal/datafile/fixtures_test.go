package datafile_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/testutil"
)

// fixtureDataFiles lists every Parquet data file of the Java fixtures.
func fixtureDataFiles(t *testing.T) []string {
	root := testutil.FixturesDir(t)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "data-") && strings.HasSuffix(d.Name(), ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	if len(out) < 100 {
		t.Fatalf("found only %d fixture data files", len(out))
	}
	return out
}

// tableDirOf is <name>.db/<name> for any file below <name>.db.
func tableDirOf(t *testing.T, path string) string {
	for dir := filepath.Dir(path); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if strings.HasSuffix(dir, ".db") {
			return filepath.Join(dir, strings.TrimSuffix(filepath.Base(dir), ".db"))
		}
	}
	t.Fatalf("no table for %s", path)
	return ""
}

// Row tracking's _ROW_ID column (SpecialFields.ROW_ID).
const (
	rowIDName    = "_ROW_ID"
	rowIDFieldID = 2147483642
)

var (
	bigintNotNull  = schema.DataType{Root: schema.TypeBigInt}
	tinyintNotNull = schema.DataType{Root: schema.TypeTinyInt}
)

// fileColumns builds the columns of a data file from its own field ids and a
// table schema; ok is false when the schema lacks one of the fields.
func fileColumns(fc []datafile.FileColumn, fields []schema.DataField) ([]datafile.Column, bool) {
	byID := map[int]schema.DataField{}
	byName := map[string]schema.DataField{}
	for _, f := range fields {
		byID[f.ID] = f
		byName[f.Name] = f
	}
	noIDs := true
	for _, c := range fc {
		noIDs = noIDs && c.ID == 0
	}
	if noIDs && len(fc) > 1 {
		// Files written before field ids (Paimon 0.9): match by name.
		fc = append([]datafile.FileColumn(nil), fc...)
		for i, c := range fc {
			key := strings.TrimPrefix(c.Name, datafile.KeyFieldPrefix)
			switch {
			case c.Name == datafile.SequenceNumberName:
				fc[i].ID = datafile.SequenceNumberFieldID
			case c.Name == datafile.ValueKindName:
				fc[i].ID = datafile.ValueKindFieldID
			case c.Name == rowIDName:
				fc[i].ID = rowIDFieldID
			case key != c.Name:
				fc[i].ID = datafile.KeyFieldID(byName[key].ID)
			default:
				fc[i].ID = byName[c.Name].ID
			}
		}
	}
	var cols []datafile.Column
	for _, c := range fc {
		switch {
		case c.Name == datafile.SequenceNumberName && c.ID == datafile.SequenceNumberFieldID:
			cols = append(cols, datafile.Column{ID: c.ID, Name: c.Name, Type: bigintNotNull})
		case c.Name == datafile.ValueKindName && c.ID == datafile.ValueKindFieldID:
			cols = append(cols, datafile.Column{ID: c.ID, Name: c.Name, Type: tinyintNotNull})
		case c.Name == rowIDName && c.ID == rowIDFieldID:
			cols = append(cols, datafile.Column{ID: c.ID, Name: c.Name, Type: schema.DataType{Root: schema.TypeBigInt, Nullable: true}})
		case strings.HasPrefix(c.Name, datafile.KeyFieldPrefix):
			f, ok := byID[c.ID-datafile.KeyFieldID(0)]
			if !ok || datafile.KeyFieldPrefix+f.Name != c.Name {
				return nil, false
			}
			cols = append(cols, datafile.Column{ID: c.ID, Name: c.Name, Type: f.Type})
		default:
			f, ok := byID[c.ID]
			if !ok || f.Name != c.Name {
				return nil, false
			}
			cols = append(cols, datafile.Column{ID: f.ID, Name: f.Name, Type: f.Type})
		}
	}
	return cols, true
}

// openFixture opens a fixture data file with all its columns typed by the
// first table schema that reads it.
func openFixture(t *testing.T, path string, opts datafile.ReadOptions) (*datafile.ParquetReader, []datafile.Column) {
	t.Helper()
	schemas := tableSchemas(t, tableDirOf(t, path))
	ids := make([]int, 0, len(schemas))
	for id := range schemas {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	f := openOS(t, path)
	probe, err := datafile.OpenParquet(f, nil, datafile.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fc := probe.FileColumns()
	probe.Close()
	var lastErr error
	for _, id := range ids {
		cols, ok := fileColumns(fc, schemas[id])
		if !ok {
			continue
		}
		r, err := datafile.OpenParquet(f, cols, opts)
		if errors.Is(err, datafile.ErrTypeMismatch) {
			lastErr = err
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Cleanup(func() { r.Close() })
		return r, cols
	}
	t.Fatalf("%s: no table schema fits the file columns %v (last error %v)", path, fc, lastErr)
	return nil, nil
}

func TestReadEveryFixtureDataFile(t *testing.T) {
	files := fixtureDataFiles(t)
	for _, p := range files {
		rel, _ := filepath.Rel(testutil.FixturesDir(t), p)
		t.Run(rel, func(t *testing.T) {
			r, cols := openFixture(t, p, datafile.ReadOptions{})
			rows := readAll(t, r, 7)
			if int64(len(rows)) != r.NumRows() {
				t.Fatalf("read %d rows, file has %d", len(rows), r.NumRows())
			}
			var sum int64
			for _, g := range r.RowGroups() {
				if g.FirstRow != sum {
					t.Fatalf("row group %d first row %d, want %d", g.Index, g.FirstRow, sum)
				}
				sum += g.NumRows
				if len(g.Stats) != len(cols) {
					t.Fatalf("stats for %d columns, want %d", len(g.Stats), len(cols))
				}
			}
			if sum != r.NumRows() {
				t.Fatalf("row groups hold %d rows, file %d", sum, r.NumRows())
			}
			if r.Position() != r.NumRows() {
				t.Fatalf("position after the end %d, want %d", r.Position(), r.NumRows())
			}
			// Same rows with one big batch.
			r2, _ := openFixture(t, p, datafile.ReadOptions{})
			rows2 := readAll(t, r2, 4096)
			if a, b := strings.Join(sortedRows(rows), "\n"), strings.Join(sortedRows(rows2), "\n"); a != b {
				t.Fatalf("batch size changes the rows:\n%s\nvs\n%s", a, b)
			}
			// Null checks against declared nullability.
			for _, row := range rows {
				for i, c := range cols {
					if row[i] == nil && !c.Type.Nullable {
						t.Fatalf("NULL in NOT NULL column %s", c.Name)
					}
				}
			}
		})
	}
}

func TestOpenFileRejectsORC(t *testing.T) {
	root := testutil.FixturesDir(t)
	matches, _ := filepath.Glob(filepath.Join(root, "append_table_with_multiple_file_format.db", "*", "bucket-0", "data-*.orc"))
	if len(matches) == 0 {
		t.Fatal("no ORC data file in the fixtures")
	}
	f := openOS(t, matches[0])
	_, err := datafile.OpenFile(datafile.FormatOf(matches[0]), f, nil, datafile.ReadOptions{})
	if !errors.Is(err, datafile.ErrUnsupported) || !strings.Contains(err.Error(), "orc") {
		t.Fatalf("OpenFile(orc) = %v, want ErrUnsupported naming orc", err)
	}
	_, err = datafile.OpenFile("avro", f, nil, datafile.ReadOptions{})
	if !errors.Is(err, datafile.ErrUnsupported) || !strings.Contains(err.Error(), "avro") {
		t.Fatalf("OpenFile(avro) = %v, want ErrUnsupported naming avro", err)
	}
	// The ORC bytes are not Parquet either.
	if _, err := datafile.OpenFile("parquet", f, nil, datafile.ReadOptions{}); !errors.Is(err, datafile.ErrCorrupt) {
		t.Fatalf("ORC bytes read as parquet: %v, want ErrCorrupt", err)
	}
}
