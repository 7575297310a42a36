package datafile

import (
	"fmt"
	"path"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// Data file formats, spelled as Paimon's `file.format` option spells them.
const (
	FormatParquet = "parquet"
	FormatORC     = "orc"
	FormatAvro    = "avro"
)

// Field ids of the system columns of primary-key data files
// (org.apache.paimon.table.SpecialFields).
const (
	SequenceNumberFieldID = 2147483646 // _SEQUENCE_NUMBER BIGINT NOT NULL
	ValueKindFieldID      = 2147483645 // _VALUE_KIND TINYINT NOT NULL
	keyFieldIDOffset      = 1073741823 // Integer.MAX_VALUE / 2
)

// System column names of primary-key data files.
const (
	SequenceNumberName = "_SEQUENCE_NUMBER"
	ValueKindName      = "_VALUE_KIND"
	KeyFieldPrefix     = "_KEY_"
)

// KeyFieldID is the field id of the _KEY_<name> copy of the primary-key
// column whose own field id is id.
func KeyFieldID(id int) int { return keyFieldIDOffset + id }

// Column is one column to read. It is located in the file by Parquet field_id
// equal to ID, or by Name when the file has no field ids. Type is the Paimon
// type the values are returned as (the type of the file's own schema).
type Column struct {
	ID   int
	Name string
	Type schema.DataType
}

// ReadOptions tune a reader.
type ReadOptions struct {
	// RowGroups lists the row groups to read, by index in the file, in
	// increasing order. Nil reads all of them; an empty non-nil slice reads
	// none.
	RowGroups []int
	// BatchSize caps the number of rows one Next call fills; 0 means no cap
	// (len(rows) decides).
	BatchSize int
}

// ColumnStats are the statistics of one column over a row group (or a file),
// in the value model of the column's type. Min and Max are nil when unknown;
// NullCount is -1 when unknown.
type ColumnStats struct {
	Min, Max  any
	NullCount int64
}

// RowGroupInfo describes one row group of a file.
type RowGroupInfo struct {
	// Index is the row group's position among the file's row groups.
	Index int
	// FirstRow is the file row position of the group's first row.
	FirstRow int64
	NumRows  int64
	// Stats has one entry per requested column, in the order of the columns
	// passed to the reader.
	Stats []ColumnStats
}

// FileReader is what every data file reader provides.
type FileReader interface {
	// NumRows is the number of rows in the whole file.
	NumRows() int64
	// RowGroups describes every row group of the file.
	RowGroups() []RowGroupInfo
	// Next fills up to len(rows) rows, resizing each rows[i] to the number of
	// columns (reusing its backing array when large enough). It returns the
	// number of rows filled and io.EOF (with n == 0) when no row is left.
	Next(rows [][]any) (n int, err error)
	// Position is the file row position of the next row Next returns.
	Position() int64
	// SelectRowGroups replaces the row groups to read (by index,
	// increasing) before the first Next, so that a reader that looked at
	// RowGroups statistics need not open the file again.
	SelectRowGroups(groups []int) error
	Close() error
}

var _ FileReader = (*ParquetReader)(nil)

// FormatOf returns the data file format named by the extension of a data file
// name (data-<uuid>-<n>.parquet → "parquet"), or "" when there is none.
func FormatOf(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		return ""
	}
	return strings.ToLower(ext[1:])
}

// OpenFile opens a data file of the given format (`file.format`: "parquet",
// "orc", "avro"). Only Parquet is supported; other formats give an error
// wrapping ErrUnsupported that names the format.
func OpenFile(format string, f storage.File, cols []Column, opts ReadOptions) (FileReader, error) {
	switch strings.ToLower(format) {
	case FormatParquet:
		r, err := OpenParquet(f, cols, opts)
		if err != nil {
			return nil, err
		}
		return r, nil
	case FormatORC, FormatAvro:
		return nil, fmt.Errorf("%w: data file format %q is not supported (only parquet is)", ErrUnsupported, format)
	default:
		return nil, fmt.Errorf("%w: unknown data file format %q", ErrUnsupported, format)
	}
}
