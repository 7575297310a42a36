package datafile

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// ParquetReader reads selected columns of a Paimon Parquet data file row by
// row, decoding column by column underneath.
type ParquetReader struct {
	ra     *trackingReaderAt
	pf     *parquet.File
	root   *pqNode
	cols   []Column
	plans  []colPlan
	flats  []*flatCursor
	nested []*nestedColumn

	firstRow []int64 // first file row of each row group
	groups   []int   // selected row groups
	gi       int     // next entry of groups to start
	cur      int     // row group being read, -1 before the first
	left     int64   // rows left in cur
	pos      int64
	started  bool
	batch    int
	err      error // sticky error after a failure
	closed   bool

	infos []RowGroupInfo

	colTypes []schema.DataType // NextBatch's vector types
	scratch  [][]any           // NextBatch's rows for nested columns
}

type planKind uint8

const (
	planAbsent planKind = iota
	planFlat
	planNested
)

type colPlan struct {
	kind planKind
	node *pqNode   // the top-level field
	conv *leafConv // planFlat
	idx  int       // index into flats or nested
}

// trackingReaderAt remembers the first I/O error of the underlying file, so
// that decode errors caused by it are reported as I/O errors, not as
// corruption.
type trackingReaderAt struct {
	f   storage.File
	mu  sync.Mutex
	err error
}

func (r *trackingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.f.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return n, err
}

func (r *trackingReaderAt) ioErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// wrap classifies an error from the Parquet library.
func (r *trackingReaderAt) wrap(what string, err error) error {
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTypeMismatch) || errors.Is(err, ErrUnsupported) {
		return fmt.Errorf("datafile: %s: %w", what, err)
	}
	if ioErr := r.ioErr(); ioErr != nil {
		return fmt.Errorf("datafile: %s: %w", what, ioErr)
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, what, err)
}

// recoverCorrupt turns a panic of the Parquet library into an ErrCorrupt
// error. It must be deferred directly by every exported entry point.
func recoverCorrupt(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: parquet decoder failed: %v", ErrCorrupt, p)
	}
}

// readBufferSize is the buffer parquet-go gives each column chunk it reads
// (one bufio.Reader per column of every open file): 256 kB, or less for a
// file whose columns average under 128 kB, as the buffer never needs to be
// larger than its chunk (a chunk that is still larger is read in a few
// more calls). A compaction merging the many small level-0 files of
// 1,000-row statements held 256 kB per column of each of them.
func readBufferSize(fileSize int64, cols int) int {
	const lo, hi = 16 << 10, 256 << 10
	per := 2 * fileSize / int64(max(cols, 1))
	n := lo
	for n < hi && int64(n) < per {
		n <<= 1
	}
	return n
}

// OpenParquet opens a Parquet data file for reading cols. f stays owned by
// the caller: Close does not close it, and it must stay open while the
// reader is used.
func OpenParquet(f storage.File, cols []Column, opts ReadOptions) (r *ParquetReader, err error) {
	defer recoverCorrupt(&err)
	defer func() {
		if err != nil {
			r = nil
		}
	}()
	ra := &trackingReaderAt{f: f}
	size := f.Size()
	if size < 12 {
		return nil, fmt.Errorf("%w: parquet file of %d bytes is too small", ErrCorrupt, size)
	}
	pf, err := parquet.OpenFile(ra, size,
		parquet.SkipPageIndex(true),
		parquet.SkipBloomFilters(true),
		parquet.OptimisticRead(true),
		parquet.ReadBufferSize(readBufferSize(size, len(cols))),
	)
	if err != nil {
		return nil, ra.wrap("open parquet file", err)
	}
	r = &ParquetReader{ra: ra, pf: pf, cols: cols, cur: -1, batch: opts.BatchSize}
	md := pf.Metadata()
	root, nleaves, err := buildSchemaTree(md.Schema)
	if err != nil {
		return nil, err
	}
	rgs := pf.RowGroups()
	if len(rgs) != len(md.RowGroups) {
		return nil, fmt.Errorf("%w: row group count mismatch", ErrCorrupt)
	}
	var total int64
	r.firstRow = make([]int64, len(md.RowGroups))
	for i := range md.RowGroups {
		g := &md.RowGroups[i]
		if g.NumRows < 0 || len(g.Columns) != nleaves {
			return nil, fmt.Errorf("%w: row group %d has %d rows and %d column chunks for %d leaves", ErrCorrupt, i, g.NumRows, len(g.Columns), nleaves)
		}
		for j := range g.Columns {
			cm := &g.Columns[j].MetaData
			if cm.TotalCompressedSize < 0 || cm.TotalCompressedSize > size ||
				cm.DataPageOffset < 4 || cm.DataPageOffset >= size ||
				cm.DictionaryPageOffset < 0 || cm.DictionaryPageOffset >= size ||
				cm.NumValues < 0 || cm.TotalUncompressedSize < 0 {
				return nil, fmt.Errorf("%w: row group %d column %d: chunk metadata outside the file", ErrCorrupt, i, j)
			}
		}
		r.firstRow[i] = total
		total += g.NumRows
	}
	if total != md.NumRows {
		return nil, fmt.Errorf("%w: row groups hold %d rows, footer says %d", ErrCorrupt, total, md.NumRows)
	}
	r.root = root
	if err := r.plan(root); err != nil {
		return nil, err
	}
	if err := r.selectGroups(opts.RowGroups); err != nil {
		return nil, err
	}
	return r, nil
}

// plan decides how each requested column is read.
func (r *ParquetReader) plan(root *pqNode) error {
	r.plans = make([]colPlan, len(r.cols))
	for i, col := range r.cols {
		n := findField(root, col.ID, col.Name)
		if n == nil {
			continue
		}
		p := &r.plans[i]
		p.node = n
		switch col.Type.Root {
		case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
		default:
			if n.isLeaf() && !n.repeated() {
				conv, err := newLeafConv(n, col.Type, col.Name)
				if err != nil {
					return err
				}
				p.kind, p.conv, p.idx = planFlat, conv, len(r.flats)
				r.flats = append(r.flats, &flatCursor{out: i, leaf: n.leaf, maxDef: byte(n.maxDef), conv: conv})
				continue
			}
			if !n.isLeaf() {
				return fmt.Errorf("%w: column %s: parquet group cannot be read as %s", ErrTypeMismatch, col.Name, typeName(col.Type))
			}
		}
		nc := &nestedColumn{out: i}
		a, err := nc.asm(n, col.Type, col.Name, false)
		if err != nil {
			return err
		}
		nc.root = a
		p.kind, p.idx = planNested, len(r.nested)
		r.nested = append(r.nested, nc)
	}
	return nil
}

// SelectRowGroups replaces the row groups to read (by index, increasing).
// It may be called only before the first Next.
func (r *ParquetReader) SelectRowGroups(groups []int) error {
	if r.started {
		return fmt.Errorf("datafile: SelectRowGroups after reading started")
	}
	return r.selectGroups(groups)
}

func (r *ParquetReader) selectGroups(groups []int) error {
	n := len(r.firstRow)
	if groups == nil {
		r.groups = make([]int, n)
		for i := range r.groups {
			r.groups[i] = i
		}
		return nil
	}
	for i, g := range groups {
		if g < 0 || g >= n {
			return fmt.Errorf("datafile: row group %d out of range [0, %d)", g, n)
		}
		if i > 0 && g <= groups[i-1] {
			return fmt.Errorf("datafile: row groups must be increasing, got %v", groups)
		}
	}
	r.groups = append([]int(nil), groups...)
	return nil
}

// NumRows is the number of rows in the file.
func (r *ParquetReader) NumRows() int64 { return r.pf.NumRows() }

// Position is the file row position of the row the next Next call returns
// first; after the last selected row it is NumRows().
func (r *ParquetReader) Position() int64 {
	if r.cur >= 0 && r.left > 0 {
		return r.pos
	}
	if r.gi < len(r.groups) {
		return r.firstRow[r.groups[r.gi]]
	}
	return r.NumRows()
}

// Next fills up to len(rows) rows (capped by ReadOptions.BatchSize),
// resizing each rows[i] to len(cols) and reusing its backing array. It
// returns io.EOF, with n == 0, when the selected row groups are exhausted.
// One call never crosses a row group boundary, so the rows it returns are
// the consecutive file rows starting at Position() as seen before the call.
func (r *ParquetReader) Next(rows [][]any) (n int, err error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.closed {
		return 0, fmt.Errorf("datafile: read after Close")
	}
	defer func() {
		if err != nil && !errors.Is(err, io.EOF) {
			r.err = err
		}
	}()
	defer recoverCorrupt(&err)
	r.started = true
	want := len(rows)
	if r.batch > 0 && want > r.batch {
		want = r.batch
	}
	if want == 0 {
		return 0, nil
	}
	for r.cur < 0 || r.left == 0 {
		if r.gi >= len(r.groups) {
			r.stopGroup()
			return 0, io.EOF
		}
		r.startGroup(r.groups[r.gi])
		r.gi++
	}
	k := int(min(int64(want), r.left))
	nc := len(r.cols)
	batch := rows[:k]
	for i, row := range batch {
		if cap(row) < nc {
			row = make([]any, nc)
		} else {
			row = row[:nc]
		}
		batch[i] = row
	}
	for i, p := range r.plans {
		if p.kind == planAbsent {
			for _, row := range batch {
				row[i] = nil
			}
		}
	}
	for _, c := range r.flats {
		if err := c.fill(batch); err != nil {
			return 0, r.ra.wrap("read column "+c.conv.name, err)
		}
	}
	for _, c := range r.nested {
		if err := c.fill(batch); err != nil {
			return 0, r.ra.wrap("read column "+r.cols[c.out].Name, err)
		}
	}
	r.left -= int64(k)
	r.pos += int64(k)
	return k, nil
}

func (r *ParquetReader) startGroup(g int) {
	rg := r.pf.RowGroups()[g]
	for _, c := range r.flats {
		c.start(rg)
	}
	for _, c := range r.nested {
		c.start(rg)
	}
	r.cur = g
	r.left = rg.NumRows()
	r.pos = r.firstRow[g]
}

func (r *ParquetReader) stopGroup() {
	for _, c := range r.flats {
		c.stop()
	}
	for _, c := range r.nested {
		c.stop()
	}
}

// Close releases the reader's buffers. It does not close the storage.File.
func (r *ParquetReader) Close() (err error) {
	if r.closed {
		return nil
	}
	defer recoverCorrupt(&err)
	r.closed = true
	r.stopGroup()
	return nil
}

// FileColumn is a top-level field of a data file's own schema.
type FileColumn struct {
	// ID is the Parquet field_id (0 when the file has none).
	ID   int
	Name string
}

// FileColumns lists the top-level fields of the file, in file order.
func (r *ParquetReader) FileColumns() []FileColumn {
	out := make([]FileColumn, len(r.root.children))
	for i, c := range r.root.children {
		out[i] = FileColumn{ID: int(c.elem.FieldID), Name: c.name()}
	}
	return out
}
