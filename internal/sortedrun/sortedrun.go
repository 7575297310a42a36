package sortedrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// BatchSize is the number of rows decoded per data file read call.
const BatchSize = 1024

// Schemas returns the schema a data file was written with (its _SCHEMA_ID).
// snapshot.SchemaManager implements it.
type Schemas interface {
	Schema(ctx context.Context, id schema.SchemaID) (*schema.TableSchema, error)
}

// Source is where a table's files are opened from.
type Source struct {
	// Store is rooted at the table directory.
	Store   storage.Storage
	Schemas Schemas
	// OpenExternal opens files recorded with an absolute path (data files'
	// _EXTERNAL_PATH, index files' external paths); nil opens them with
	// OpenURL.
	OpenExternal func(ctx context.Context, url string) (storage.File, error)
}

// File names one data file to read.
type File struct {
	// Name is the file name; Dir its bucket folder relative to the table root
	// (with a trailing '/').
	Name, Dir string
	// ExternalPath, when not empty, is the absolute URL the file lives at.
	ExternalPath string
	SchemaID     int64
	Level        int
}

// DeletionFile locates one data file's deletion vector inside an index file
// (Java DeletionFile).
type DeletionFile struct {
	// Path of the index file, relative to the table root, or an absolute URL
	// when the index file has an external path.
	Path        string
	Offset      int64
	Length      int64
	Cardinality int64 // -1 when unknown
}

// Reader opens the data files of one table for one read schema. It is safe
// for concurrent use: it holds only immutable configuration, and every Open
// returns a reader of its own.
type Reader struct {
	src    Source
	fields []schema.DataField
	need   []bool
	keyIdx []int
	tz     *time.Location
}

// NewReader prepares reading files as rows of fields (the read schema).
// need[i] says whether field i is read (the others are NULL); nil reads
// every field. keyIdx are the indexes of the trimmed primary-key fields in
// fields (KeyValue reads only); tz is the session time zone of
// schema-evolution casts (nil is UTC).
func NewReader(src Source, fields []schema.DataField, need []bool, keyIdx []int, tz *time.Location) *Reader {
	if need == nil {
		need = make([]bool, len(fields))
		for i := range need {
			need[i] = true
		}
	}
	return &Reader{src: src, fields: fields, need: need, keyIdx: keyIdx, tz: tz}
}

// Fields is the read schema.
func (r *Reader) Fields() []schema.DataField { return r.fields }

// Layout maps a data file's columns onto the read schema.
type Layout struct {
	// Cols are the columns read from the file.
	Cols []datafile.Column
	// Src[i] is the position in Cols of read field i, or -1 (NULL: not read,
	// or added after the file was written).
	Src []int
	// Cast[i] is the file's type of read field i when it differs from the
	// read type (schema evolution), else nil.
	Cast []*schema.DataType
	// SeqCol and KindCol are the positions of _SEQUENCE_NUMBER and
	// _VALUE_KIND (KeyValue reads only, else -1).
	SeqCol, KindCol int
}

// layout matches the file's schema to the read schema by field id.
func (r *Reader) layout(ctx context.Context, f *File, sys systemCols) (*Layout, error) {
	fs, err := r.src.Schemas.Schema(ctx, schema.SchemaID(f.SchemaID))
	if err != nil {
		return nil, fmt.Errorf("sortedrun: schema %d of file %s: %w", f.SchemaID, f.Name, err)
	}
	l := &Layout{Src: make([]int, len(r.fields)), Cast: make([]*schema.DataType, len(r.fields)), SeqCol: -1, KindCol: -1}
	if sys&sysSeq != 0 {
		l.SeqCol = len(l.Cols)
		l.Cols = append(l.Cols, datafile.Column{ID: datafile.SequenceNumberFieldID, Name: datafile.SequenceNumberName, Type: schema.AtomicType(schema.TypeBigInt)})
	}
	if sys&(sysKind|sysKindInt32) != 0 {
		kt := schema.AtomicType(schema.TypeTinyInt)
		if sys&sysKindInt32 != 0 {
			// _VALUE_KIND is a TINYINT (INT32 in Parquet): read as INT it
			// decodes into a typed Int32 vector, not boxed int8 values.
			kt = schema.AtomicType(schema.TypeInt)
		}
		l.KindCol = len(l.Cols)
		l.Cols = append(l.Cols, datafile.Column{ID: datafile.ValueKindFieldID, Name: datafile.ValueKindName, Type: kt})
	}
	for i, rf := range r.fields {
		l.Src[i] = -1
		if !r.need[i] {
			continue
		}
		ff, ok := fs.FieldByID(rf.ID)
		if !ok {
			continue // added after the file was written: NULL
		}
		l.Src[i] = len(l.Cols)
		l.Cols = append(l.Cols, datafile.Column{ID: ff.ID, Name: ff.Name, Type: ff.Type})
		if !ff.Type.EqualIgnoreNullability(rf.Type) {
			t := ff.Type
			l.Cast[i] = &t
		}
	}
	return l, nil
}

// mapRow fills dst (one value per read field) from a file row.
func (r *Reader) mapRow(l *Layout, src, dst []any) error {
	for i := range dst {
		j := l.Src[i]
		if j < 0 {
			dst[i] = nil
			continue
		}
		v := src[j]
		if l.Cast[i] != nil && v != nil {
			c, err := schema.CastValueIn(v, l.Cast[i], &r.fields[i].Type, r.tz)
			if err != nil {
				return fmt.Errorf("sortedrun: column %s: %w", r.fields[i].Name, err)
			}
			v = c
		}
		dst[i] = v
	}
	return nil
}

// open opens the file once and returns its reader.
func (r *Reader) open(ctx context.Context, f *File, cols []datafile.Column) (datafile.FileReader, error) {
	file, err := r.openPath(ctx, f)
	if err != nil {
		return nil, err
	}
	fr, err := datafile.OpenFile(datafile.FormatOf(f.Name), file, cols, datafile.ReadOptions{})
	if err != nil {
		file.Close()
		return nil, fmt.Errorf("sortedrun: open %s: %w", f.Name, err)
	}
	return &closingReader{FileReader: fr, file: file}, nil
}

func (r *Reader) openPath(ctx context.Context, f *File) (storage.File, error) {
	if f.ExternalPath != "" {
		return r.src.openURL(ctx, f.ExternalPath)
	}
	return r.src.Store.Open(ctx, f.Dir+f.Name)
}

func (s *Source) openURL(ctx context.Context, url string) (storage.File, error) {
	if s.OpenExternal != nil {
		return s.OpenExternal(ctx, url)
	}
	return OpenURL(ctx, url)
}

// OpenURL opens a file by absolute URL (external data and index paths).
// Java writes local ones as FILE:/dir/file or file:/dir/file.
func OpenURL(ctx context.Context, url string) (storage.File, error) {
	i := strings.LastIndexByte(url, '/')
	if i < 0 {
		return nil, fmt.Errorf("sortedrun: bad external path %q", url)
	}
	dir := url[:i]
	if scheme, rest, ok := strings.Cut(dir, ":"); ok && strings.EqualFold(scheme, "file") {
		dir = "file://" + strings.TrimPrefix(rest, "//")
		// storage.Open creates missing local folders; a reader must not.
		if _, err := os.Stat(strings.TrimPrefix(dir, "file://")); err != nil {
			return nil, fmt.Errorf("sortedrun: external path %s: %w", url, storage.ErrNotExist)
		}
	} else if !ok {
		return nil, fmt.Errorf("sortedrun: external path %q has no scheme", url)
	}
	st, err := storage.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("sortedrun: external path %s: %w", url, err)
	}
	f, err := st.Open(ctx, url[i+1:])
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("sortedrun: external path %s: %w", url, err)
	}
	return &closingFile{File: f, st: st}, nil
}

type closingFile struct {
	storage.File
	st storage.Storage
}

func (c *closingFile) Close() error {
	err := c.File.Close()
	if cerr := c.st.Close(); err == nil {
		err = cerr
	}
	return err
}

type closingReader struct {
	datafile.FileReader
	file storage.File
}

func (c *closingReader) Close() error {
	err := c.FileReader.Close()
	if cerr := c.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// ---- rows (append tables, deletion-vector and first-row tables) ----

// GroupFilter picks the row groups to read from their statistics (Stats are
// in the order of the layout's Cols); it returns nil to read every group.
type GroupFilter func(groups []datafile.RowGroupInfo, l *Layout) []int

// RowReader reads one data file as rows of the read schema, in file order,
// with its deletion vector applied.
type RowReader struct {
	r      *Reader
	fr     datafile.FileReader
	layout *Layout
	dv     dv.DeletionVector
	rows   [][]any
	n, i   int
	pos    int64 // file position of rows[0]
	last   int64 // file position of the row returned last
	full   []any
}

// OpenRows opens f for a row read. dv, when not nil, removes the rows it
// marks. groups, when not nil, selects the row groups to read; the file is
// opened once either way.
func (r *Reader) OpenRows(ctx context.Context, f *File, vec dv.DeletionVector, groups GroupFilter) (*RowReader, error) {
	fr, l, err := r.openSelected(ctx, f, groups, 0)
	if err != nil {
		return nil, err
	}
	return &RowReader{r: r, fr: fr, layout: l, dv: vec, rows: make([][]any, BatchSize), full: make([]any, len(r.fields))}, nil
}

// systemCols says which system columns of a KeyValue file a read decodes.
type systemCols uint8

const (
	sysSeq       systemCols = 1 << iota // _SEQUENCE_NUMBER
	sysKind                             // _VALUE_KIND as its type (TINYINT)
	sysKindInt32                        // _VALUE_KIND as INT (a typed vector)
	withSystem   = sysSeq | sysKind
)

// openSelected opens f once for a row or batch read and selects the row
// groups groups keeps.
func (r *Reader) openSelected(ctx context.Context, f *File, groups GroupFilter, sys systemCols) (datafile.FileReader, *Layout, error) {
	l, err := r.layout(ctx, f, sys)
	if err != nil {
		return nil, nil, err
	}
	fr, err := r.open(ctx, f, l.Cols)
	if err != nil {
		return nil, nil, err
	}
	if groups != nil {
		if keep := groups(fr.RowGroups(), l); keep != nil {
			if err := fr.SelectRowGroups(keep); err != nil {
				fr.Close()
				return nil, nil, fmt.Errorf("sortedrun: %s: %w", f.Name, err)
			}
		}
	}
	return fr, l, nil
}

// Next returns the next row not deleted, or io.EOF. The row is one value per
// read field and is overwritten by the next call.
func (it *RowReader) Next() ([]any, error) {
	for {
		for it.i < it.n {
			i := it.i
			it.i++
			if it.dv != nil && it.dv.IsDeleted(it.pos+int64(i)) {
				continue
			}
			if err := it.r.mapRow(it.layout, it.rows[i], it.full); err != nil {
				return nil, err
			}
			it.last = it.pos + int64(i)
			return it.full, nil
		}
		if it.fr == nil {
			return nil, io.EOF
		}
		it.pos = it.fr.Position()
		n, err := it.fr.Next(it.rows)
		if err == nil || (errors.Is(err, io.EOF) && n > 0) {
			it.n, it.i = n, 0
			continue
		}
		return nil, err
	}
}

// Position is the file row position of the row Next returned last.
func (it *RowReader) Position() int64 { return it.last }

// Close releases the file. It is safe to call more than once.
func (it *RowReader) Close() error {
	if it.fr == nil {
		return nil
	}
	err := it.fr.Close()
	it.fr = nil
	return err
}

// ---- KeyValues (merge-on-read, compaction) ----

// KeyValueReader reads one data file of a primary-key table as a sorted run
// of KeyValues, skipping the rows its deletion vector marks. Each batch gets
// fresh slabs, as kv.RecordReader requires. Position gives the file row
// position of the record Next returned last (lookup compaction marks it in
// the file's deletion vector when a newer version of the key arrives).
type KeyValueReader struct {
	r      *Reader
	fr     datafile.FileReader
	layout *Layout
	dv     dv.DeletionVector
	level  int
	rows   [][]any
	n, i   int
	base   int64 // file position of rows[0]
	last   int64 // file position of the record returned last
	vals   []any
	keys   []any
}

var _ kv.RecordReader = (*KeyValueReader)(nil)

// OpenKeyValues opens f, a data file in the KeyValue layout (_KEY_*,
// _SEQUENCE_NUMBER, _VALUE_KIND, the value columns), as a sorted run: Key
// holds the trimmed primary key, Value one value per read field (fields
// not read are NULL).
func (r *Reader) OpenKeyValues(ctx context.Context, f *File) (kv.RecordReader, error) {
	k, err := r.OpenKeyValuesDV(ctx, f, nil)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// OpenKeyValuesDV is OpenKeyValues with the deletion vector vec (nil: none)
// applied: the rows it marks are skipped.
func (r *Reader) OpenKeyValuesDV(ctx context.Context, f *File, vec dv.DeletionVector) (*KeyValueReader, error) {
	l, err := r.layout(ctx, f, withSystem)
	if err != nil {
		return nil, err
	}
	for _, i := range r.keyIdx {
		if l.Src[i] < 0 {
			return nil, fmt.Errorf("sortedrun: key field %s is not read", r.fields[i].Name)
		}
	}
	fr, err := r.open(ctx, f, l.Cols)
	if err != nil {
		return nil, err
	}
	if vec != nil && vec.IsEmpty() {
		vec = nil
	}
	return &KeyValueReader{r: r, fr: fr, layout: l, dv: vec, level: f.Level, rows: make([][]any, BatchSize), last: -1}, nil
}

// Next implements kv.RecordReader.
func (k *KeyValueReader) Next() (kv.KeyValue, bool, error) {
	for {
		if k.i >= k.n {
			if k.fr == nil {
				return kv.KeyValue{}, false, nil
			}
			k.base = k.fr.Position()
			n, err := k.fr.Next(k.rows)
			if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
				if errors.Is(err, io.EOF) {
					return kv.KeyValue{}, false, nil
				}
				return kv.KeyValue{}, false, err
			}
			k.n, k.i = n, 0
			nf, nk := len(k.r.fields), len(k.r.keyIdx)
			k.vals = make([]any, n*nf)
			k.keys = make([]any, n*nk)
		}
		i := k.i
		k.i++
		if k.dv != nil && k.dv.IsDeleted(k.base+int64(i)) {
			continue
		}
		k.last = k.base + int64(i)
		row := k.rows[i]
		nf, nk := len(k.r.fields), len(k.r.keyIdx)
		val := k.vals[i*nf : (i+1)*nf : (i+1)*nf]
		if err := k.r.mapRow(k.layout, row, val); err != nil {
			return kv.KeyValue{}, false, err
		}
		key := k.keys[i*nk : (i+1)*nk : (i+1)*nk]
		for j, fi := range k.r.keyIdx {
			key[j] = val[fi]
		}
		seq, ok1 := row[k.layout.SeqCol].(int64)
		kind, ok2 := row[k.layout.KindCol].(int8)
		if !ok1 || !ok2 || kind < 0 || kind > 3 {
			return kv.KeyValue{}, false, fmt.Errorf("sortedrun: bad _SEQUENCE_NUMBER/_VALUE_KIND in a data file: %w", datafile.ErrCorrupt)
		}
		return kv.KeyValue{Key: key, Seq: kv.SeqNum(seq), Kind: kv.RowKind(kind), Value: val, Level: k.level}, true, nil
	}
}

// Position is the file row position of the record Next returned last (-1
// before the first).
func (k *KeyValueReader) Position() int64 { return k.last }

// Close implements kv.RecordReader.
func (k *KeyValueReader) Close() error {
	if k.fr == nil {
		return nil
	}
	err := k.fr.Close()
	k.fr = nil
	return err
}
