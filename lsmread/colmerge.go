package lsmread

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// readColumnMerge, when false, merges every section through the row merge
// (kv.SortMergeReader) even where the column merge applies (tests compare
// both).
var readColumnMerge = true

// readStretch, when false, turns off columnMerge.stretch (tests compare).
var readStretch = true

// stretchedRecords counts the records columnMerge.stretch placed (tests).
var stretchedRecords atomic.Int64

// columnMergedSections counts the sections merged over column batches
// (tests).
var columnMergedSections atomic.Int64

// columnMergeable reports whether the merged sections of the plan's buckets
// are merged over column batches (columnMerge) rather than row by row: a
// deduplicate table without sequence.field, read for its rows (not their
// kinds). Other merge engines (partial-update, aggregation) combine values
// of several records and keep the row merge; first-row tables and tables
// with deletion vectors are not merged at all.
func (p *Plan) columnMergeable() bool {
	return readColumnMerge && p.isPK() && !p.rawPK() && !p.Spec.KeepDelete &&
		p.Core.MergeEngine == schema.MergeEngineDeduplicate && len(p.Core.SequenceField) == 0
}

// columnMerge merges the sorted runs of one section of a deduplicate table
// over column batches, as kv.SortMergeReader with the deduplicate merge
// function does row by row. Each run's files are decoded into typed vectors
// with their _SEQUENCE_NUMBER and _VALUE_KIND; a k-way merge (a binary heap
// of runs ordered by their current key, compared on the vectors) takes the
// records in key order; of the records of one key the latest (by sequence
// number, then run) wins, and a winner that adds a row has its position
// recorded (run, row). The needed columns of the winners are then gathered
// by position, column by column, into the output batch — no value is boxed.
//
// With lookup (changelog-producer=lookup, force-lookup) the winner is taken
// as Java's LookupMergeFunction takes it: among the level-0 records and the
// one record of the lowest level above 0. With ignore-delete retractions
// never win. Keys a run holds more than once are merged as well.
type columnMerge struct {
	r     *Reader
	ctx   context.Context
	split *DataSplit
	runs  []colRun
	heap  []int32 // run indexes, a binary min-heap by current key
	// second is the position (1 or 2) of the smaller child of the top,
	// or 0 when not known: while the top's key grows and stays below it,
	// the heap keeps its shape.
	second int
	keys   []int // read-schema indexes of the key fields
	kinds  []datafile.VectorKind
	types  []schema.DataType // of the key fields
	// mode: a key of one integer or string column is compared on the
	// value each run caches for its current row (colRun.head).
	mode keyMode
	fill []int // read-schema fields gathered into out
	// out is the merged batch in the read schema (only fill fields are
	// set); n rows are placed.
	out datafile.Batch
	n   int
	sel []int32
	// The key being merged: its vectors and row (a run's batch, or
	// scratch once that batch was replaced), and the merge of its records.
	has     bool
	cur     keyHead // the key (keyInt, keyString)
	curCols []datafile.Vector
	curRow  int
	curRun  int32 // -1: scratch
	scratch []datafile.Vector
	one     colRecord // the key's first record
	multi   bool      // the key has more than one record: best, l0, high hold
	best    colRecord // latest eligible record (no lookup)
	l0      colRecord // lookup: latest eligible level-0 record
	high    colRecord // lookup: the record of the lowest level above 0
	win     colRecord // the winner placed (or not: a retraction) at slot n-1
	placed  bool
	lookup  bool
	ignDel  bool
	done    bool
	// ints: the merge runs on mergeInts over iheap (the runs' current
	// keys, a binary min-heap) instead of heap.
	ints  bool
	iheap []intHead
}

// keyMode is how a column merge compares keys.
type keyMode uint8

const (
	keyVectors keyMode = iota // field by field on the vectors (cmpKey)
	keyInt                    // one BIGINT, INT or DECIMAL(p ≤ 18) column
	keyString                 // one CHAR or VARCHAR column
)

// keyHead is the key of a run's current row in keyInt and keyString mode.
type keyHead struct {
	i    int64
	s    string
	null bool
}

// cmpHead compares two keys of one mode, NULL first.
func cmpHead(mode keyMode, a, b *keyHead) int {
	if a.null || b.null {
		switch {
		case a.null && b.null:
			return 0
		case a.null:
			return -1
		}
		return 1
	}
	if mode == keyInt {
		return cmp.Compare(a.i, b.i)
	}
	return strings.Compare(a.s, b.s)
}

// colRecord is one record of the key being merged.
type colRecord struct {
	seq   int64
	pos   int64 // order of the record in its run
	run   int32
	row   int32 // in the run's current batch
	level int32
	kind  kv.RowKind
	ok    bool
}

// later reports whether a comes after b in the merge order of records of
// one key (sequence number, then run, then position in the run).
func (a *colRecord) later(b *colRecord) bool {
	if a.seq != b.seq {
		return a.seq > b.seq
	}
	if a.run != b.run {
		return a.run > b.run
	}
	return a.pos > b.pos
}

// colRun is one sorted run of a section: its files read one after another.
type colRun struct {
	files []manifest.DataFileMeta
	// ranks, when not nil, orders the files' sequence numbers (their
	// ranges do not overlap): _SEQUENCE_NUMBER is not decoded.
	ranks []int64
	rank  int64 // of the current file
	next  int   // next file to open
	br    *sortedrun.BatchReader
	b     datafile.Batch // read-schema batch
	seq   []int64        // of the batch, or nil (rank stands for it)
	kind  []int32        // of the batch, or nil (the file has no retraction)
	level int32
	rows  []int32 // the batch's selection (nil: all rows)
	i, n  int     // current index into the selection (or rows), count
	row   int32   // current row of the batch
	head  keyHead // its key (keyInt, keyString)
	pos   int64   // records consumed before the current one
	pend  []colGather
	keys  []int64 // the batch's keys (mergeInts)
}

// colGather places the n rows from row of a run's current batch at the
// slots from out.
type colGather struct{ out, row, n int32 }

// appendGather appends the gather of n rows from row to slots from out,
// extending the last gather when they continue it.
func appendGather(gs []colGather, out, row, n int32) []colGather {
	if l := len(gs); l > 0 {
		if g := &gs[l-1]; g.out+g.n == out && g.row+g.n == row {
			g.n += n
			return gs
		}
	}
	return append(gs, colGather{out: out, row: row, n: n})
}

// unplace takes back the last slot, which holds a record of run ri: the
// slot is the last of the run's gathers, unless the run's batch was
// gathered since (the slot's next gather then overwrites it).
func (m *columnMerge) unplace(ri int32) {
	m.n--
	pr := &m.runs[ri]
	if l := len(pr.pend); l > 0 {
		if g := &pr.pend[l-1]; g.out+g.n-1 == int32(m.n) {
			if g.n--; g.n == 0 {
				pr.pend = pr.pend[:l-1]
			}
		}
	}
}

// newColumnMerge prepares merging the sorted runs of one section.
func (r *Reader) newColumnMerge(ctx context.Context, split *DataSplit, sec [][]manifest.DataFileMeta) (*columnMerge, error) {
	m := &columnMerge{r: r, ctx: ctx, split: split, keys: r.keyIdx, curRun: -1, lookup: r.lookup,
		ignDel: r.factory.Options().IgnoreDelete}
	for _, f := range r.keyIdx {
		m.kinds = append(m.kinds, datafile.KindOf(&r.fields[f].Type))
		m.types = append(m.types, r.fields[f].Type)
	}
	if len(m.kinds) == 1 {
		switch m.kinds[0] {
		case datafile.VectorInt64, datafile.VectorDecimal64, datafile.VectorInt32:
			m.mode = keyInt
		case datafile.VectorString:
			m.mode = keyString
		}
	}
	seen := make([]bool, len(r.fields))
	for _, f := range r.out {
		seen[f] = true
	}
	for f := range Fields(r.filter) {
		if f >= 0 && f < len(seen) {
			seen[f] = true
		}
	}
	for f, ok := range seen {
		if ok {
			m.fill = append(m.fill, f)
		}
	}
	m.out.Cols = make([]datafile.Vector, len(r.fields))
	m.scratch = make([]datafile.Vector, len(r.fields))
	m.runs = make([]colRun, len(sec))
	ranks := seqRanks(sec)
	for i, files := range sec {
		for j := range files {
			if err := checkFormat(&files[j]); err != nil {
				return nil, err
			}
		}
		m.runs[i].files = files
		if ranks != nil {
			m.runs[i].ranks = ranks[i]
		}
	}
	for i := range m.runs {
		err := m.load(&m.runs[i])
		if errors.Is(err, io.EOF) {
			continue
		}
		if err != nil {
			m.Close()
			return nil, err
		}
		m.heap = append(m.heap, int32(i))
	}
	if m.usesInts() {
		if err := m.startInts(); err != nil {
			m.Close()
			return nil, err
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	columnMergedSections.Add(1)
	return m, nil
}

// seqRanks returns, when the sequence-number ranges of a section's files
// (_MIN_SEQUENCE_NUMBER, _MAX_SEQUENCE_NUMBER) do not overlap, each file's
// rank in their order (per run, parallel to its files): every record of a
// file of a higher rank is later than every record of a file of a lower
// one, so the rank orders records of one key as their sequence numbers do
// and _SEQUENCE_NUMBER need not be decoded. It returns nil when ranges
// overlap (files that compaction wrote from interleaved levels).
func seqRanks(sec [][]manifest.DataFileMeta) [][]int64 {
	type span struct{ run, file int }
	var all []span
	for i, files := range sec {
		for j := range files {
			if files[j].MinSequenceNumber > files[j].MaxSequenceNumber {
				return nil
			}
			all = append(all, span{i, j})
		}
	}
	meta := func(s span) *manifest.DataFileMeta { return &sec[s.run][s.file] }
	slices.SortFunc(all, func(a, b span) int { return cmp.Compare(meta(a).MinSequenceNumber, meta(b).MinSequenceNumber) })
	ranks := make([][]int64, len(sec))
	for i, files := range sec {
		ranks[i] = make([]int64, len(files))
	}
	for k, s := range all {
		if k > 0 && meta(all[k-1]).MaxSequenceNumber >= meta(s).MinSequenceNumber {
			return nil
		}
		ranks[s.run][s.file] = int64(k)
	}
	return ranks
}

// load reads the next batch of a run with a record left, opening its next
// file when one ends; io.EOF when the run has no record left.
func (m *columnMerge) load(run *colRun) error {
	for {
		if run.br == nil {
			if run.next >= len(run.files) {
				return io.EOF
			}
			f := &run.files[run.next]
			if run.ranks != nil {
				run.rank = run.ranks[run.next]
			}
			run.next++
			// A file without retractions (its _DELETE_ROW_COUNT is 0)
			// holds +I/+U only: its _VALUE_KIND is not decoded.
			br, err := m.r.run.OpenKeyValueBatches(m.ctx, m.split.file(f), nil, run.ranks == nil, !withoutDeleteRows(f))
			if err != nil {
				return err
			}
			run.br, run.level = br, int32(f.Level)
			run.seq, run.kind = nil, nil
		}
		err := run.br.Next(&run.b)
		if errors.Is(err, io.EOF) {
			err = run.br.Close()
			run.br = nil
			if err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if run.ranks == nil {
			if run.seq, err = run.br.SeqNums(); err != nil {
				return err
			}
		}
		if !withoutDeleteRows(&run.files[run.next-1]) {
			if run.kind, err = run.br.Kinds(); err != nil {
				return err
			}
		}
		run.rows, run.n, run.i = run.b.Sel, run.b.Rows(), 0
		if run.n == 0 {
			continue
		}
		run.row = 0
		if run.rows != nil {
			run.row = run.rows[0]
		}
		if m.ints {
			return m.intKeys(run)
		}
		m.setHead(run)
		return nil
	}
}

// setHead caches the key of the run's current row (keyInt, keyString).
func (m *columnMerge) setHead(run *colRun) {
	if m.mode == keyVectors {
		return
	}
	v := &run.b.Cols[m.keys[0]]
	k := run.row
	run.head.null = v.Nulls != nil && v.Nulls[k]
	switch m.kinds[0] {
	case datafile.VectorInt64, datafile.VectorDecimal64:
		run.head.i = v.Int64[k]
	case datafile.VectorInt32:
		run.head.i = int64(v.Int32[k])
	case datafile.VectorString:
		run.head.s = v.Str[k]
	}
}

// cmpKey compares the key at row i of a with the key at row j of b (read-
// schema vectors) as kv.NewKeyComparator does: field by field, NULL first.
func (m *columnMerge) cmpKey(a []datafile.Vector, i int, b []datafile.Vector, j int) int {
	for x, f := range m.keys {
		va, vb := &a[f], &b[f]
		na := va.Nulls != nil && va.Nulls[i]
		nb := vb.Nulls != nil && vb.Nulls[j]
		if na || nb {
			if na && nb {
				continue
			}
			if na {
				return -1
			}
			return 1
		}
		var c int
		switch m.kinds[x] {
		case datafile.VectorInt64, datafile.VectorDecimal64:
			c = cmp.Compare(va.Int64[i], vb.Int64[j])
		case datafile.VectorInt32:
			c = cmp.Compare(va.Int32[i], vb.Int32[j])
		case datafile.VectorString:
			c = strings.Compare(va.Str[i], vb.Str[j])
		case datafile.VectorFloat64:
			c = schema.JavaDoubleCompare(va.Float64[i], vb.Float64[j])
		default:
			c = schema.Compare(&m.types[x], va.Any[i], vb.Any[j])
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (m *columnMerge) less(a, b int32) bool {
	ra, rb := &m.runs[a], &m.runs[b]
	if m.mode == keyInt && !ra.head.null && !rb.head.null {
		if ra.head.i != rb.head.i {
			return ra.head.i < rb.head.i
		}
		return a < b
	}
	var c int
	if m.mode != keyVectors {
		c = cmpHead(m.mode, &ra.head, &rb.head)
	} else {
		c = m.cmpKey(ra.b.Cols, int(ra.row), rb.b.Cols, int(rb.row))
	}
	if c != 0 {
		return c < 0
	}
	return a < b
}

// sameKey reports whether the run's current row holds the key being
// merged.
func (m *columnMerge) sameKey(run *colRun) bool {
	if !m.has {
		return false
	}
	if m.mode != keyVectors {
		return cmpHead(m.mode, &run.head, &m.cur) == 0
	}
	return m.cmpKey(run.b.Cols, int(run.row), m.curCols, m.curRow) == 0
}

func (m *columnMerge) down(i int) {
	h := m.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && m.less(h[r], h[l]) {
			c = r
		}
		if !m.less(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Next fills b with the next merged rows that pass the filter, projected
// (as rawBatches does), or returns io.EOF.
func (m *columnMerge) Next(b *datafile.Batch) error {
	for !m.done {
		if err := m.merge(); err != nil {
			return err
		}
		if m.n == 0 {
			continue
		}
		if m.r.projectBatch(&m.out, b, &m.sel) {
			return nil
		}
	}
	return io.EOF
}

// merge places up to sortedrun.BatchSize merged rows in m.out. A batch
// ends where a new key starts, so that records of one key never straddle
// two batches.
func (m *columnMerge) merge() error {
	for _, f := range m.fill {
		m.out.Cols[f].Reset(m.r.fields[f].Type, sortedrun.BatchSize)
	}
	m.n = 0
	m.placed = false
	if m.ints {
		if err := m.mergeInts(); err != nil {
			return err
		}
	}
	for len(m.heap) > 0 {
		ri := m.heap[0]
		run := &m.runs[ri]
		if m.mode == keyInt && readStretch {
			if ok, err := m.stretch(ri); err != nil {
				return err
			} else if ok {
				continue
			}
		}
		x := colRecord{ok: true, seq: run.rank, run: ri, row: run.row, pos: run.pos, kind: kv.Insert, level: run.level}
		if run.kind != nil {
			k := run.kind[run.row]
			if k < 0 || k > 3 {
				return fmt.Errorf("lsmread: %w: %s %d", datafile.ErrCorrupt, datafile.ValueKindName, k)
			}
			x.kind = kv.RowKind(k)
		}
		if run.seq != nil {
			x.seq = run.seq[run.row]
		}
		if m.sameKey(run) {
			m.add(&x)
		} else {
			if m.n == sortedrun.BatchSize {
				break
			}
			m.has, m.cur, m.curCols, m.curRow, m.curRun = true, run.head, run.b.Cols, int(run.row), ri
			m.first(&x)
		}
		if err := m.advance(ri); err != nil {
			return err
		}
	}
	if len(m.heap) == 0 && len(m.iheap) == 0 {
		m.done = true
	}
	for i := range m.runs {
		m.scatter(&m.runs[i])
	}
	for _, f := range m.fill {
		v := &m.out.Cols[f]
		v.Len = m.n
		if v.Nulls != nil {
			v.Nulls = v.Nulls[:m.n]
		}
	}
	m.out.Len, m.out.FirstRow, m.out.Sel = m.n, 0, nil
	return nil
}

// stretch places, without the heap and the winner bookkeeping, the records
// of the top run ri that are alone with their key: keys below every other
// run's current key (no other run holds them) that the run does not repeat.
// Such a record is its key's merge (Java's reducer): an addition adds its
// row, a retraction none, whatever the engine's options (ignore-delete,
// lookup). It stops before the batch's last row (the next batch may
// continue that key) and when out is full, and reports whether it placed
// anything (the run then moved on). Keys of one integer column (keyInt)
// without NULLs, batches without selection.
func (m *columnMerge) stretch(ri int32) (bool, error) {
	run := &m.runs[ri]
	kcol := &run.b.Cols[m.keys[0]]
	if run.rows != nil || kcol.Nulls != nil || m.sameKey(run) {
		return false, nil
	}
	bound := int64(math.MaxInt64) // keys strictly below it
	if h := m.heap; len(h) > 1 {
		if m.second == 0 {
			m.second = 1
			if len(h) > 2 && m.less(h[2], h[1]) {
				m.second = 2
			}
		}
		head := &m.runs[h[m.second]].head
		if head.null {
			return false, nil
		}
		bound = head.i
	}
	from := run.i
	end := min(run.n-1, from+sortedrun.BatchSize-m.n)
	var to int
	switch m.kinds[0] {
	case datafile.VectorInt32:
		to = stretchEnd(kcol.Int32[:run.n], from, end, bound)
	default:
		to = stretchEnd(kcol.Int64[:run.n], from, end, bound)
	}
	if to == from {
		return false, nil
	}
	if run.kind == nil {
		run.pend = appendGather(run.pend, int32(m.n), int32(from), int32(to-from))
		m.n += to - from
	} else {
		for j := from; j < to; j++ {
			k := run.kind[j]
			if k < 0 || k > 3 {
				return false, fmt.Errorf("lsmread: %w: %s %d", datafile.ErrCorrupt, datafile.ValueKindName, k)
			}
			if kv.RowKind(k).IsAdd() {
				run.pend = appendGather(run.pend, int32(m.n), int32(j), 1)
				m.n++
			}
		}
	}
	stretchedRecords.Add(int64(to - from))
	run.pos += int64(to - from)
	run.i, run.row = to, int32(to)
	m.has, m.placed = false, false
	m.setHead(run)
	m.fixTop()
	return true, nil
}

// stretchEnd returns the first index in [from, end) whose key is not below
// bound or equals the next one (end if none).
func stretchEnd[T int64 | int32](keys []T, from, end int, bound int64) int {
	j := from
	for j < end && int64(keys[j]) < bound && keys[j+1] != keys[j] {
		j++
	}
	return j
}

// eligible reports whether a record may win (ignore-delete skips
// retractions).
func (m *columnMerge) eligible(x *colRecord) bool { return !m.ignDel || x.kind.IsAdd() }

// first starts the merge of a key with its first record.
func (m *columnMerge) first(x *colRecord) {
	m.one, m.multi, m.placed = *x, false, false
	// A key's only record is its merge (Java's reducer): it wins unless
	// ignore-delete drops it, and it adds a row if it is not a retraction.
	if !m.eligible(x) {
		m.win = colRecord{}
		return
	}
	m.win = *x
	if x.kind.IsAdd() {
		m.place(x)
	}
}

// place puts the winner x at the next slot.
func (m *columnMerge) place(x *colRecord) {
	run := &m.runs[x.run]
	run.pend = appendGather(run.pend, int32(m.n), x.row, 1)
	m.n++
	m.placed = true
}

// accumulate merges a record of the current key into best, l0 and high.
func (m *columnMerge) accumulate(x *colRecord) {
	switch {
	case !m.lookup:
		if m.eligible(x) && (!m.best.ok || x.later(&m.best)) {
			m.best = *x
		}
	case x.level <= 0:
		if m.eligible(x) && (!m.l0.ok || x.later(&m.l0)) {
			m.l0 = *x
		}
	case !m.high.ok || x.level < m.high.level || (x.level == m.high.level && m.high.later(x)):
		m.high = *x
	}
}

// add merges one more record of the current key and places the winner.
func (m *columnMerge) add(x *colRecord) {
	if !m.multi {
		m.multi = true
		m.best, m.l0, m.high = colRecord{}, colRecord{}, colRecord{}
		m.accumulate(&m.one)
	}
	m.accumulate(x)
	w := m.best
	if m.lookup {
		w = m.l0
		if m.high.ok && m.eligible(&m.high) && (!w.ok || m.high.later(&w)) {
			w = m.high
		}
	}
	if w.ok == m.win.ok && w.run == m.win.run && w.pos == m.win.pos {
		return
	}
	if m.placed {
		m.unplace(m.win.run)
		m.placed = false
	}
	m.win = w
	if w.ok && w.kind.IsAdd() {
		m.place(&w)
	}
}

// advance moves the run at the top of the heap to its next record.
func (m *columnMerge) advance(ri int32) error {
	run := &m.runs[ri]
	run.i++
	run.pos++
	if run.i < run.n {
		if run.rows != nil {
			run.row = run.rows[run.i]
		} else {
			run.row = int32(run.i)
		}
		m.setHead(run)
		m.fixTop()
		return nil
	}
	// The batch ends: gather its winners, keep the current key if it is
	// there, then read on.
	m.scatter(run)
	if m.curRun == ri && m.mode == keyVectors {
		m.saveKey()
	}
	err := m.load(run)
	if errors.Is(err, io.EOF) {
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
		m.second = 0
		if len(m.heap) > 0 {
			m.down(0)
		}
		return nil
	} else if err != nil {
		return err
	}
	m.fixTop()
	return nil
}

// fixTop restores the heap after the top run moved to a greater key.
func (m *columnMerge) fixTop() {
	h := m.heap
	if len(h) < 2 {
		return
	}
	if m.second == 0 {
		m.second = 1
		if len(h) > 2 && m.less(h[2], h[1]) {
			m.second = 2
		}
	}
	if !m.less(h[m.second], h[0]) {
		return
	}
	m.second = 0
	m.down(0)
}

// saveKey copies the current key into scratch before its batch is
// replaced.
func (m *columnMerge) saveKey() {
	for _, f := range m.keys {
		m.scratch[f].Reset(m.r.fields[f].Type, 1)
		gather(&m.scratch[f], &m.curCols[f], []colGather{{out: 0, row: int32(m.curRow), n: 1}})
	}
	m.curCols, m.curRow, m.curRun = m.scratch, 0, -1
}

// scatter gathers the placed rows of a run's current batch into out.
func (m *columnMerge) scatter(run *colRun) {
	if len(run.pend) == 0 {
		return
	}
	for _, f := range m.fill {
		gather(&m.out.Cols[f], &run.b.Cols[f], run.pend)
	}
	run.pend = run.pend[:0]
}

// gather copies src[g.row] to dst[g.out] for every g, values and NULLs.
func gather(dst, src *datafile.Vector, gs []colGather) {
	switch src.Kind() {
	case datafile.VectorInt64, datafile.VectorDecimal64:
		gatherValues(dst, src, gs, dst.Int64, src.Int64)
	case datafile.VectorInt32:
		gatherValues(dst, src, gs, dst.Int32, src.Int32)
	case datafile.VectorFloat64:
		gatherValues(dst, src, gs, dst.Float64, src.Float64)
	case datafile.VectorString:
		gatherValues(dst, src, gs, dst.Str, src.Str)
	default:
		gatherValues(dst, src, gs, dst.Any, src.Any)
	}
}

func gatherValues[T any](dst, src *datafile.Vector, gs []colGather, d, s []T) {
	if src.Nulls == nil && dst.Nulls == nil {
		for _, g := range gs {
			if g.n == 1 {
				d[g.out] = s[g.row]
			} else {
				copy(d[g.out:g.out+g.n], s[g.row:g.row+g.n])
			}
		}
		return
	}
	for _, g := range gs {
		for k := range g.n {
			o, r := g.out+k, g.row+k
			if src.Nulls != nil && src.Nulls[r] {
				dst.SetNull(int(o))
				continue
			}
			d[o] = s[r]
			if dst.Nulls != nil {
				dst.Nulls[o] = false
			}
		}
	}
}

// Close closes the runs' open files.
func (m *columnMerge) Close() error {
	var errs []error
	for i := range m.runs {
		if br := m.runs[i].br; br != nil {
			errs = append(errs, br.Close())
			m.runs[i].br = nil
		}
	}
	m.heap, m.iheap, m.done = nil, nil, true
	return errors.Join(errs...)
}
