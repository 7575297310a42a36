package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// rollCheckInterval is how many rows are written between two checks of the
// file size against target-file-size (Java checks Parquet writers every
// 1000 records, RollingFileWriter.CHECK_ROLLING_RECORD_CNT).
const rollCheckInterval = 1000

// fileSpec is what every data file of one TableWrite shares: the physical
// columns, the writer options, the statistics layout.
type fileSpec struct {
	st         storage.Storage
	pk         bool
	nKey       int // trimmed primary key columns (0 for append tables)
	nValue     int // table columns
	cols       []datafile.Column
	wopts      datafile.WriterOptions
	keyTypes   []schema.DataType
	keyCodec   *binaryrow.Codec // trimmed primary key, for _MIN_KEY/_MAX_KEY
	valueTypes []schema.DataType
	valueModes []statsMode
	keyStats   *statsBuilder // over the trimmed key columns, never dense
	valueStats *statsBuilder // over all table columns, dense per option
	targetSize int64
	schemaID   int64
	now        func() time.Time
	// created collects every file path written, for Abort (createdMu
	// guards it: buckets flush in parallel).
	created   *[]string
	createdMu *sync.Mutex
	// durable, when set, collects the waits of the data files closed
	// without waiting for their fsync (storage.CloseDeferred): a commit
	// waits for them before it publishes its snapshot (Durable in
	// snapshot.CommitChanges). Guarded by createdMu too.
	durable *[]func() error
	// levels are the specs of levels with their own compression or stats
	// mode (level_options.go); see forLevel.
	levels map[int]*fileSpec
}

// newFileSpec builds the physical layout of a table's data files (paimon-format.md §7.1, §7.2).
func newFileSpec(st storage.Storage, sch *schema.TableSchema, core *schema.CoreOptions, keyFields []schema.DataField,
	modes []statsMode, now func() time.Time, created *[]string) (*fileSpec, error) {
	s := &fileSpec{
		st:         st,
		pk:         sch.IsPrimaryKeyTable(),
		nKey:       len(keyFields),
		nValue:     len(sch.Fields),
		valueModes: modes,
		targetSize: core.TargetFileSize(sch.IsPrimaryKeyTable()),
		schemaID:   int64(sch.ID),
		now:        now,
		created:    created,
		createdMu:  new(sync.Mutex),
	}
	var statModes []string
	for _, f := range keyFields {
		s.cols = append(s.cols, datafile.Column{ID: datafile.KeyFieldID(f.ID), Name: datafile.KeyFieldPrefix + f.Name, Type: f.Type})
		s.keyTypes = append(s.keyTypes, f.Type)
		statModes = append(statModes, systemStatsMode.String())
	}
	if s.pk {
		s.cols = append(s.cols,
			datafile.Column{ID: datafile.SequenceNumberFieldID, Name: datafile.SequenceNumberName, Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			datafile.Column{ID: datafile.ValueKindFieldID, Name: datafile.ValueKindName, Type: schema.AtomicType(schema.TypeTinyInt).WithNullable(false)})
		statModes = append(statModes, systemStatsMode.String(), systemStatsMode.String())
	}
	for i, f := range sch.Fields {
		s.cols = append(s.cols, datafile.Column{ID: f.ID, Name: f.Name, Type: f.Type})
		s.valueTypes = append(s.valueTypes, f.Type)
		statModes = append(statModes, modes[i].String())
	}
	s.wopts = datafile.WriterOptions{
		Compression: core.FileCompression,
		ZstdLevel:   core.FileCompressionZstdLevel,
		StatsModes:  statModes,
	}
	var err error
	if s.keyCodec, err = binaryrow.NewCodec(s.keyTypes); err != nil {
		return nil, fmt.Errorf("lsmwrite: primary key: %w", err)
	}
	if s.keyStats, err = newStatsBuilder(keyFields, false); err != nil {
		return nil, fmt.Errorf("lsmwrite: key stats: %w", err)
	}
	if s.valueStats, err = newStatsBuilder(sch.Fields, core.MetadataStatsDenseStore); err != nil {
		return nil, fmt.Errorf("lsmwrite: value stats: %w", err)
	}
	if err := s.buildLevelSpecs(sch); err != nil {
		return nil, err
	}
	return s, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// openFile is the data file being written.
type openFile struct {
	name    string
	path    string
	wc      io.WriteCloser
	cnt     *countingWriter
	pw      *datafile.ParquetWriter
	rows    int64
	minKey  []any
	maxKey  []any
	minSeq  int64
	maxSeq  int64
	deletes int64
}

// rollingWriter writes the records of one (partition, bucket) into data
// (or changelog) files of at most about target-file-size each (Java
// RollingFileWriter over KeyValueDataFileWriter or RowDataFileWriter), all
// on one level with one file source.
type rollingWriter struct {
	spec      *fileSpec
	names     *dataFilePathFactory
	changelog bool
	level     manifest.Level
	source    manifest.FileSource
	cur       *openFile
	files     []manifest.DataFileMeta
	row       []any // reused physical row
}

// newRollingWriter writes level-0 files from input (a write buffer flush).
func newRollingWriter(spec *fileSpec, names *dataFilePathFactory, changelog bool) *rollingWriter {
	return newLevelWriter(spec, names, changelog, 0, manifest.FileSourceAppend)
}

// newLevelWriter writes files of level with the given file source
// (compaction outputs: FileSourceCompact).
func newLevelWriter(spec *fileSpec, names *dataFilePathFactory, changelog bool, level int, source manifest.FileSource) *rollingWriter {
	spec = spec.forLevel(level)
	return &rollingWriter{spec: spec, names: names, changelog: changelog, level: manifest.Level(level), source: source,
		row: make([]any, len(spec.cols))}
}

func (r *rollingWriter) open(ctx context.Context) error {
	name := r.names.newName(r.changelog)
	path := r.names.dir + name
	wc, err := r.spec.st.Create(ctx, path)
	if err != nil {
		return fmt.Errorf("lsmwrite: create %s: %w", path, err)
	}
	r.spec.createdMu.Lock()
	*r.spec.created = append(*r.spec.created, path)
	r.spec.createdMu.Unlock()
	cnt := &countingWriter{w: wc}
	pw, err := datafile.NewParquetWriter(cnt, r.spec.cols, r.spec.wopts)
	if err != nil {
		_ = wc.Close()
		return fmt.Errorf("lsmwrite: %s: %w", path, err)
	}
	f := &openFile{name: name, path: path, wc: wc, cnt: cnt, pw: pw, minSeq: -1, maxSeq: -1}
	if r.spec.pk {
		f.minKey = make([]any, r.spec.nKey)
		f.maxKey = make([]any, r.spec.nKey)
	}
	r.cur = f
	return nil
}

// writeKV writes one record of a primary-key table: _KEY_*,
// _SEQUENCE_NUMBER, _VALUE_KIND, then the value columns. Records come in key
// order.
func (r *rollingWriter) writeKV(ctx context.Context, rec kv.KeyValue) error {
	if r.cur == nil {
		if err := r.open(ctx); err != nil {
			return err
		}
	}
	f := r.cur
	row := r.row
	n := copy(row, rec.Key)
	row[n] = int64(rec.Seq)
	row[n+1] = int8(rec.Kind)
	copy(row[n+2:], rec.Value)
	if err := f.pw.Write(row); err != nil {
		return fmt.Errorf("lsmwrite: write %s: %w", f.path, err)
	}
	if f.rows == 0 {
		copy(f.minKey, rec.Key)
	}
	copy(f.maxKey, rec.Key)
	if !rec.Kind.IsAdd() {
		f.deletes++
	}
	r.track(int64(rec.Seq))
	return r.maybeRoll()
}

// writeRow writes one row of an append table.
func (r *rollingWriter) writeRow(ctx context.Context, seq int64, row []any) error {
	if r.cur == nil {
		if err := r.open(ctx); err != nil {
			return err
		}
	}
	if err := r.cur.pw.Write(row); err != nil {
		return fmt.Errorf("lsmwrite: write %s: %w", r.cur.path, err)
	}
	r.track(seq)
	return r.maybeRoll()
}

func (r *rollingWriter) track(seq int64) {
	f := r.cur
	if f.rows == 0 || seq < f.minSeq {
		f.minSeq = seq
	}
	if f.rows == 0 || seq > f.maxSeq {
		f.maxSeq = seq
	}
	f.rows++
}

func (r *rollingWriter) maybeRoll() error {
	f := r.cur
	if f.rows%rollCheckInterval == 0 && f.pw.BytesWritten() >= r.spec.targetSize {
		return r.closeCurrent()
	}
	return nil
}

// closeCurrent finishes the open file, if any, and records its DataFileMeta.
func (r *rollingWriter) closeCurrent() error {
	f := r.cur
	if f == nil {
		return nil
	}
	r.cur = nil
	fs, err := f.pw.Close()
	if err != nil {
		_ = f.wc.Close()
		return fmt.Errorf("lsmwrite: close %s: %w", f.path, err)
	}
	if err := r.spec.closeFile(f.wc); err != nil {
		return fmt.Errorf("lsmwrite: close %s: %w", f.path, err)
	}
	meta, err := r.spec.fileMeta(f, fs, r.level, r.source)
	if err != nil {
		return fmt.Errorf("lsmwrite: %s: %w", f.path, err)
	}
	r.files = append(r.files, meta)
	return nil
}

// closeFile publishes a finished data file: with durable set, without
// waiting for its fsync (the commit waits before its snapshot).
func (s *fileSpec) closeFile(wc io.WriteCloser) error {
	if s.durable == nil {
		return wc.Close()
	}
	wait, err := storage.CloseDeferred(wc)
	if err != nil {
		return err
	}
	s.createdMu.Lock()
	*s.durable = append(*s.durable, wait)
	s.createdMu.Unlock()
	return nil
}

// deferSync makes the data files of s (and of its level specs) durable in
// the background: waitDurable waits for them.
func (s *fileSpec) deferSync() {
	d := new([]func() error)
	s.durable = d
	for _, ls := range s.levels {
		ls.durable = d
	}
}

// waitDurable waits until every data file closed through closeFile is
// durable and returns the first error.
func (s *fileSpec) waitDurable(context.Context) error {
	s.createdMu.Lock()
	waits := slices.Clone(*s.durable)
	s.createdMu.Unlock()
	var first error
	for _, w := range waits {
		if err := w(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// abort closes the open file without recording it.
func (r *rollingWriter) abort() {
	if f := r.cur; f != nil {
		r.cur = nil
		_, _ = f.pw.Close()
		_ = f.wc.Close()
	}
}

// fileMeta builds the DataFileMeta of a finished file (Java
// KeyValueDataFileWriter.result / RowDataFileWriter.result).
func (s *fileSpec) fileMeta(f *openFile, fs *datafile.FileStats, level manifest.Level, source manifest.FileSource) (manifest.DataFileMeta, error) {
	if fs == nil || len(fs.Columns) != len(s.cols) {
		return manifest.DataFileMeta{}, errors.New("writer returned statistics of the wrong width")
	}
	meta := manifest.DataFileMeta{
		FileName:          f.name,
		FileSize:          f.cnt.n,
		RowCount:          f.rows,
		MinSequenceNumber: f.minSeq,
		MaxSequenceNumber: f.maxSeq,
		SchemaID:          s.schemaID,
		Level:             level,
		ExtraFiles:        []string{},
	}
	ct := s.now().UTC().UnixMilli()
	meta.CreationTime = &ct
	del := f.deletes
	meta.DeleteRowCount = &del
	meta.FileSource = &source

	var err error
	if s.pk {
		if meta.MinKey, err = s.keyCodec.AppendSerialized(nil, f.minKey); err != nil {
			return meta, fmt.Errorf("min key: %w", err)
		}
		if meta.MaxKey, err = s.keyCodec.AppendSerialized(nil, f.maxKey); err != nil {
			return meta, fmt.Errorf("max key: %w", err)
		}
		keyCols := make([]colStats, s.nKey)
		for i := range keyCols {
			keyCols[i] = systemStatsMode.apply(footerStats(&s.keyTypes[i], fs.Columns[i]))
		}
		if meta.KeyStats, _, err = s.keyStats.build(keyCols); err != nil {
			return meta, fmt.Errorf("key stats: %w", err)
		}
	} else {
		meta.MinKey = manifest.SerializedRow(binaryrow.EmptySerialized)
		meta.MaxKey = manifest.SerializedRow(binaryrow.EmptySerialized)
		meta.KeyStats = manifest.EmptyStats()
	}
	off := len(s.cols) - s.nValue
	valueCols := make([]colStats, s.nValue)
	for i := range valueCols {
		valueCols[i] = s.valueModes[i].apply(footerStats(&s.valueTypes[i], fs.Columns[off+i]))
	}
	if meta.ValueStats, meta.ValueStatsCols, err = s.valueStats.build(valueCols); err != nil {
		return meta, fmt.Errorf("value stats: %w", err)
	}
	return meta, nil
}
