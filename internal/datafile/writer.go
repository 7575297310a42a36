package datafile

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/brotli"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// Writer errors.
var (
	// ErrInvalidValue is wrapped by Write errors about a row: a wrong Go
	// type for a column, a NULL in a NOT NULL column, a decimal that does not
	// fit its precision. The message names the column.
	ErrInvalidValue = errors.New("datafile: invalid value")
	// ErrInvalidSchema is returned for columns or options a writer cannot be
	// built from.
	ErrInvalidSchema = errors.New("datafile: invalid write schema")
	// ErrWriterClosed is returned by Write and Close after Close.
	ErrWriterClosed = errors.New("datafile: writer closed")
)

// WriterOptions tune a ParquetWriter. The zero value writes zstd level 1
// with truncate(16) statistics, like Java Paimon's defaults.
type WriterOptions struct {
	// Compression is Paimon's file.compression: "zstd" (default when ""),
	// "snappy", "gzip", "lz4", "brotli", "none"/"uncompressed". "lz4" is
	// written as Parquet's LZ4_RAW codec (parquet-mr 1.13+ reads it).
	Compression string
	// ZstdLevel is file.compression.zstd-level, default 1.
	ZstdLevel int
	// RowGroupRows is the number of rows per row group; 0 means
	// DefaultRowGroupRows. A row group is also closed when its buffered
	// size reaches 128 MiB (parquet-mr's parquet.block.size).
	RowGroupRows int
	// StatsModes has one Paimon stats mode per column ("truncate(16)",
	// "full", "counts", "none"); nil means truncate(16) for all.
	StatsModes []string
}

// DefaultRowGroupRows is the row group size when WriterOptions.RowGroupRows
// is 0.
const DefaultRowGroupRows = 1 << 20

const (
	// rowGroupBytes closes a row group early, like parquet-mr's block size.
	rowGroupBytes = 128 << 20
	// pageBytes is the target page size (parquet-mr's parquet.page.size).
	pageBytes = 1 << 20
	// dictionaryBytes is the dictionary size above which a column chunk
	// falls back to PLAIN (parquet-mr's parquet.dictionary.page.size).
	dictionaryBytes = 1 << 20
	// batchRows is the number of rows buffered per column before they are
	// handed to the Parquet column writers.
	batchRows = 512
)

// FileStats are the statistics of a written file.
type FileStats struct {
	RowCount int64
	// Columns has one entry per column, in column order, in the value
	// model: Min/Max are nil when unknown (binary, INT96 timestamps, nested
	// columns, all-NULL columns) or when the mode is none or counts;
	// NullCount is -1 when the mode is none and for nested columns.
	Columns []ColumnStats
}

// ParquetWriter writes one Paimon Parquet data file row by row, encoding
// column by column underneath. It is not safe for concurrent use.
type ParquetWriter struct {
	cols   []Column
	plan   []*wnode
	leaves []*wnode
	stats  []*colCollector
	modes  []StatsMode
	pw     *parquet.Writer
	cw     []*parquet.ColumnWriter
	// pending values per leaf column, flushed every batchRows rows.
	pending [][]parquet.Value
	arena   [][]byte // per-leaf backing bytes of pending FIXED values
	marks   []int    // pending lengths before the current row
	// pendingRows is the number of rows in pending; groupRows the number
	// of rows in the current row group; pendingBytes estimates pending.
	pendingRows  int
	pendingBytes int64
	groupRows    int
	maxGroupRows int
	rows         int64
	closed       bool
	err          error // sticky error of the underlying writer
}

// NewParquetWriter starts a Parquet data file on w for cols (Column{ID,
// Name, Type} in file order). w is not closed by Close.
func NewParquetWriter(w io.Writer, cols []Column, opts WriterOptions) (*ParquetWriter, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: nil output", ErrInvalidSchema)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%w: no columns", ErrInvalidSchema)
	}
	if opts.StatsModes != nil && len(opts.StatsModes) != len(cols) {
		return nil, fmt.Errorf("%w: %d stats modes for %d columns", ErrInvalidSchema, len(opts.StatsModes), len(cols))
	}
	codec, err := codecOf(opts.Compression, opts.ZstdLevel)
	if err != nil {
		return nil, err
	}
	pwr := &ParquetWriter{cols: cols, maxGroupRows: opts.RowGroupRows}
	if pwr.maxGroupRows <= 0 {
		pwr.maxGroupRows = DefaultRowGroupRows
	}
	b := &planBuilder{dict: false}
	fields := make([]parquet.Field, len(cols))
	seen := make(map[string]bool, len(cols))
	for i, c := range cols {
		if seen[c.Name] {
			return nil, fmt.Errorf("%w: duplicate column %s", ErrInvalidSchema, c.Name)
		}
		seen[c.Name] = true
		f, wn, err := b.column(c)
		if err != nil {
			return nil, err
		}
		fields[i] = f
		pwr.plan = append(pwr.plan, wn)
		mode := DefaultStatsMode
		if opts.StatsModes != nil {
			if mode, err = ParseStatsMode(opts.StatsModes[i]); err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
		}
		pwr.modes = append(pwr.modes, mode)
		pwr.stats = append(pwr.stats, newColCollector(wn, mode))
	}
	pwr.leaves = b.leaves
	options := []parquet.WriterOption{
		b.message(fields),
		parquet.Compression(codec),
		parquet.DataPageVersion(1),
		parquet.PageBufferSize(pageBytes),
		parquet.DictionaryMaxBytes(dictionaryBytes),
		parquet.MaxRowsPerRowGroup(int64(pwr.maxGroupRows)),
	}
	if err := func() (err error) {
		defer recoverWrite(&err)
		pwr.pw = parquet.NewWriter(w, options...)
		pwr.cw = pwr.pw.ColumnWriters()
		return nil
	}(); err != nil {
		return nil, err
	}
	if len(pwr.cw) != len(pwr.leaves) {
		return nil, fmt.Errorf("%w: parquet writer has %d leaf columns, want %d", ErrInvalidSchema, len(pwr.cw), len(pwr.leaves))
	}
	pwr.pending = make([][]parquet.Value, len(pwr.leaves))
	pwr.arena = make([][]byte, len(pwr.leaves))
	pwr.marks = make([]int, len(pwr.leaves))
	return pwr, nil
}

// zstdCodecs[l] is the zstd codec of level l, shared by every writer: a
// codec pools its encoders, and an encoder's first page allocates its
// block buffers and tables (~1 MB), which a writer of its own paid per
// file (a 1,000-row INSERT into 28 buckets: 28 files of a few pages).
var zstdCodecs = func() (c [23]*pqzstd.Codec) {
	for l := 1; l < len(c); l++ {
		c[l] = &pqzstd.Codec{Level: zstd.EncoderLevelFromZstd(l)}
	}
	return c
}()

// codecOf maps Paimon's file.compression to a Parquet codec.
func codecOf(name string, zstdLevel int) (compress.Codec, error) {
	switch strings.ToLower(name) {
	case "", "zstd":
		if zstdLevel == 0 {
			zstdLevel = 1
		}
		if zstdLevel < 1 || zstdLevel > 22 {
			return nil, fmt.Errorf("%w: file.compression.zstd-level %d", ErrInvalidSchema, zstdLevel)
		}
		return zstdCodecs[zstdLevel], nil
	case "snappy":
		return &snappy.Codec{}, nil
	case "gzip":
		return &gzip.Codec{Level: gzip.DefaultCompression}, nil
	case "lz4", "lz4_raw":
		return newLZ4(), nil
	case "brotli":
		return &brotli.Codec{Quality: brotli.DefaultQuality, LGWin: brotli.DefaultLGWin}, nil
	case "none", "uncompressed":
		return &uncompressed.Codec{}, nil
	}
	return nil, fmt.Errorf("%w: file.compression %q for parquet", ErrUnsupported, name)
}

// recoverWrite turns a panic of the Parquet library into an error.
func recoverWrite(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("datafile: parquet writer: %v", r)
	}
}

// Write appends one row; row holds one value per column in the value model
// of internal/schema (NULL is nil). A rejected row leaves the file as it was.
func (w *ParquetWriter) Write(row []any) error {
	if w.closed {
		return ErrWriterClosed
	}
	if w.err != nil {
		return w.err
	}
	if len(row) != len(w.plan) {
		return fmt.Errorf("%w: row has %d values, file has %d columns", ErrInvalidValue, len(row), len(w.plan))
	}
	for i, vals := range w.pending {
		w.marks[i] = len(vals)
	}
	for i, n := range w.plan {
		if err := w.shred(n, row[i], 0, 0); err != nil {
			// Take the row back out.
			for j, m := range w.marks {
				clear(w.pending[j][m:])
				w.pending[j] = w.pending[j][:m]
			}
			return err
		}
	}
	for i, n := range w.plan {
		if n.kind != 0 {
			// A flat column has exactly one value per row.
			vals := w.pending[n.leaf]
			w.stats[i].add(&vals[len(vals)-1])
		}
	}
	w.rows++
	w.groupRows++
	w.pendingRows++
	if w.pendingRows >= batchRows || w.groupRows >= w.maxGroupRows {
		if err := w.flushPending(); err != nil {
			return w.fail(err)
		}
		if w.groupRows >= w.maxGroupRows || w.pw.Size() >= rowGroupBytes {
			if err := w.flushGroup(); err != nil {
				return w.fail(err)
			}
		}
	}
	return nil
}

func (w *ParquetWriter) fail(err error) error {
	w.err = err
	return err
}

// flushPending hands the pending values to the column writers.
func (w *ParquetWriter) flushPending() (err error) {
	if w.pendingRows == 0 {
		return nil
	}
	defer recoverWrite(&err)
	for i, vals := range w.pending {
		if _, err := w.cw[i].WriteRowValues(vals); err != nil {
			return fmt.Errorf("datafile: writing column %s: %w", w.leaves[i].path, err)
		}
		clear(vals)
		w.pending[i] = vals[:0]
		w.arena[i] = w.arena[i][:0]
	}
	w.pendingRows, w.pendingBytes = 0, 0
	return nil
}

func (w *ParquetWriter) flushGroup() (err error) {
	defer recoverWrite(&err)
	if err := w.pw.Flush(); err != nil {
		return fmt.Errorf("datafile: writing row group: %w", err)
	}
	w.groupRows = 0
	return nil
}

// RowCount is the number of rows written so far.
func (w *ParquetWriter) RowCount() int64 { return w.rows }

// BytesWritten estimates the size of the file so far (written bytes plus
// buffered, not yet compressed data), for rolling at target-file-size.
func (w *ParquetWriter) BytesWritten() int64 {
	if w.pw == nil {
		return 0
	}
	return w.pw.Size() + w.pendingBytes
}

// Close flushes the last row group, writes the footer and returns the
// file's statistics. It does not close the io.Writer.
func (w *ParquetWriter) Close() (*FileStats, error) {
	if w.closed {
		return nil, ErrWriterClosed
	}
	w.closed = true
	if w.err != nil {
		return nil, w.err
	}
	if err := w.flushPending(); err != nil {
		return nil, err
	}
	if err := func() (err error) {
		defer recoverWrite(&err)
		return w.pw.Close()
	}(); err != nil {
		return nil, fmt.Errorf("datafile: closing parquet file: %w", err)
	}
	fs := &FileStats{RowCount: w.rows, Columns: make([]ColumnStats, len(w.cols))}
	for i, c := range w.stats {
		fs.Columns[i] = w.modes[i].Apply(c.footer())
	}
	return fs, nil
}

// Modes are the stats modes of the columns, in column order.
func (w *ParquetWriter) Modes() []StatsMode { return w.modes }
