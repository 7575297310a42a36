package lsmread

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// AggKind is an aggregate function Plan.Aggregate computes.
type AggKind uint8

// Aggregate functions. AVG is a SUM and its count.
const (
	AggCountRows AggKind = iota // COUNT(*): rows
	AggCount                    // COUNT(col): non-NULL values
	AggSum                      // exact sum of an integer or DECIMAL column (unscaled)
	AggMin
	AggMax
)

// AggColumn is one aggregate: its function and the column it reads (a
// position in the plan's projection; ignored by AggCountRows).
type AggColumn struct {
	Kind AggKind
	Col  int
}

// RowFilter tests row i of a batch (an exact filter the caller evaluates;
// the plan's own predicate only prunes). One RowFilter belongs to one
// goroutine.
type RowFilter func(b *Batch, i int32) (bool, error)

// AggregateSpec is a GROUP BY of aggregates over a plan's columns.
type AggregateSpec struct {
	// Keys are the group columns (positions in the plan's projection); no
	// keys is one group, present even when no row is read.
	Keys []int
	Aggs []AggColumn
	// NewFilter, when set, makes each worker's filter of the rows.
	NewFilter func() RowFilter
}

// Accum is one aggregate of one group, as Groups.Accum gives it.
type Accum struct {
	N     int64    // rows (COUNT), or non-NULL values seen (SUM, MIN, MAX)
	Sum   int64    // the exact sum, unscaled, while it fits
	Big   *big.Int // the sum once it left int64 (then Sum is unused)
	BestI int64    // MIN/MAX of an integer column, or a DECIMAL(p ≤ 18) unscaled
	BestS string   // MIN/MAX of a string column
	Best  any      // MIN/MAX of another column (the value model)
}

// Groups is an aggregate's result: its groups (0 to Len()-1) with their
// key values and aggregates. Integer keys and the aggregates stay typed
// until asked for, so a caller keeping a few groups boxes only those.
type Groups struct {
	p *aggPartial
}

// Len is the number of groups.
func (gs *Groups) Len() int { return gs.p.ngroups }

// Key is group g's key values (the value model, in Keys order).
func (gs *Groups) Key(g int) []any {
	p := gs.p
	if !p.intMode {
		return p.keys[g]
	}
	if int32(g) == p.null {
		return []any{nil}
	}
	x := p.ikeys[g]
	switch p.kinds[p.spec.Keys[0]] {
	case VectorInt32:
		return []any{int32(x)}
	case VectorDecimal64:
		return []any{schema.Decimal{Compact: x, Scale: int32(p.types[p.spec.Keys[0]].Scale)}}
	}
	return []any{x}
}

// IntKey is the key of group g when the aggregate has one integer key
// (BIGINT, INT or DECIMAL(p ≤ 18) unscaled): false for the group of a NULL
// key, or other keys.
func (gs *Groups) IntKey(g int) (int64, bool) {
	p := gs.p
	if !p.intMode || int32(g) == p.null {
		return 0, false
	}
	return p.ikeys[g], true
}

// Accum is aggregate a of group g.
func (gs *Groups) Accum(g, a int) Accum { return gs.p.cols[a].accum(g) }

// N is aggregate a's count of group g (COUNT; the non-NULL values of SUM,
// MIN and MAX).
func (gs *Groups) N(g, a int) int64 { return gs.p.cols[a].n[g] }

// SumInt is the sum of aggregate a (a SUM) of group g when it fits in an
// int64.
func (gs *Groups) SumInt(g, a int) (int64, bool) {
	c := &gs.p.cols[a]
	if c.big != nil && c.big[g] != nil {
		return 0, false
	}
	return c.sum[g], true
}

// BestInt is the MIN or MAX (aggregate a) of group g of an integer or
// DECIMAL(p ≤ 18) column; false for other columns.
func (gs *Groups) BestInt(g, a int) (int64, bool) {
	c := &gs.p.cols[a]
	if c.bestI == nil {
		return 0, false
	}
	return c.bestI[g], true
}

// Aggregate computes a GROUP BY over the plan's splits from column
// batches: each split goes to one of up to GOMAXPROCS workers with its own
// partial groups (typed values, no boxing of integer and string columns),
// and the partials merge at the end.
func (p *Plan) Aggregate(ctx context.Context, spec AggregateSpec) (*Groups, error) {
	r, err := p.NewReader()
	if err != nil {
		return nil, err
	}
	kinds := make([]VectorKind, len(r.out))
	types := make([]*schema.DataType, len(r.out))
	for i, f := range r.out {
		types[i] = &r.fields[f].Type
		kinds[i] = KindOf(types[i])
	}
	for _, c := range spec.Keys {
		if c < 0 || c >= len(kinds) {
			return nil, fmt.Errorf("lsmread: aggregate: group column %d of %d", c, len(kinds))
		}
	}
	for _, a := range spec.Aggs {
		if a.Kind != AggCountRows && (a.Col < 0 || a.Col >= len(kinds)) {
			return nil, fmt.Errorf("lsmread: aggregate: column %d of %d", a.Col, len(kinds))
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(len(p.Splits), 1))
	parts := make([]*aggPartial, workers)
	for w := range parts {
		parts[w] = newAggPartial(&spec, kinds, types)
		if statsOnly(p, &spec, kinds) {
			parts[w].stats = NewStatsEvolution(p.Schema, p.Table.schemas.Schema)
		}
	}
	work := make(chan *DataSplit)
	errc := make(chan error, workers)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				if err := parts[w].readSplit(cctx, r, s); err != nil {
					errc <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for _, s := range p.Splits {
		select {
		case work <- s:
		case <-cctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	final := parts[0]
	for _, pt := range parts[1:] {
		final.merge(pt)
	}
	return &Groups{p: final}, nil
}

// aggPartial is one worker's groups.
type aggPartial struct {
	spec   *AggregateSpec
	kinds  []VectorKind       // per projected column
	types  []*schema.DataType // per projected column
	filter RowFilter
	err    error            // the first error of oneGroup
	i64    map[int64]int32  // one BIGINT/INT key
	dense  denseIndex       // one integer key of a dense range (before i64)
	str    map[string]int32 // one string key, or the encoded keys
	null   int32            // the group of a NULL single key, or -1
	// intMode: one integer key (BIGINT, INT, DECIMAL(p ≤ 18)), kept as
	// ikeys[g] (the NULL group's entry unused); otherwise keys[g] holds
	// group g's key values.
	intMode bool
	ikeys   []int64
	keys    [][]any
	ngroups int
	cols    []aggCol // per aggregate
	gidx    []int32
	rows    []int32
	iota    []int32 // 0, 1, 2, ...: the rows of a batch without selection
	keyBuf  []byte
	// dictGroup[x] is the group+1 of entry x of dictionary dictOf (a
	// string key's dictionary-encoded column chunk), 0 when not seen yet.
	dictOf    []string
	dictGroup []int32
	short     []shortKey // shortStrGroups' keys
	// stats, when the aggregate can come from file statistics (statsOnly),
	// evolves them (one per worker: not safe for concurrent use).
	stats *StatsEvolution
}

func newAggPartial(spec *AggregateSpec, kinds []VectorKind, types []*schema.DataType) *aggPartial {
	p := &aggPartial{spec: spec, kinds: kinds, types: types, i64: map[int64]int32{}, str: map[string]int32{}, null: -1}
	if len(spec.Keys) == 1 {
		switch kinds[spec.Keys[0]] {
		case VectorInt64, VectorInt32, VectorDecimal64:
			p.intMode = true
		}
	}
	for _, a := range spec.Aggs {
		p.cols = append(p.cols, newAggCol(a, kinds, types))
	}
	if len(spec.Keys) == 0 {
		p.newGroup(nil)
	}
	if spec.NewFilter != nil {
		p.filter = spec.NewFilter()
	}
	return p
}

// newGroup adds a group of key values keys (not intMode).
func (p *aggPartial) newGroup(keys []any) int32 {
	p.keys = append(p.keys, keys)
	return p.addGroup()
}

// newIntGroup adds the group of integer key x (intMode).
func (p *aggPartial) newIntGroup(x int64) int32 {
	p.ikeys = append(p.ikeys, x)
	return p.addGroup()
}

// nullGroup returns the group of a NULL single key (creating it).
func (p *aggPartial) nullGroup() int32 {
	if p.null < 0 {
		if p.intMode {
			p.null = p.newIntGroup(0)
		} else {
			p.null = p.newGroup([]any{nil})
		}
	}
	return p.null
}

func (p *aggPartial) addGroup() int32 {
	g := int32(p.ngroups)
	p.ngroups++
	for a := range p.cols {
		p.cols[a].grow()
	}
	return g
}

func (p *aggPartial) readSplit(ctx context.Context, r *Reader, s *DataSplit) error {
	if ok, err := p.fromStats(ctx, r, s); err != nil || ok {
		return err
	}
	it, err := r.ReadBatches(ctx, s)
	if err != nil {
		return err
	}
	defer it.Close()
	var b Batch
	for {
		err := it.Next(&b)
		if errors.Is(err, io.EOF) {
			return it.Close()
		}
		if err != nil {
			return err
		}
		if err := p.batch(&b); err != nil {
			return err
		}
	}
}

// batch adds one batch: the filter picks rows, the keys pick groups, then
// each aggregate runs over its column.
func (p *aggPartial) batch(b *Batch) error {
	rows, err := p.selectRows(b)
	if err != nil || len(rows) == 0 {
		return err
	}
	if len(p.spec.Keys) == 0 {
		p.oneGroup(b, rows)
		return p.err
	}
	p.groups(b, rows)
	for a, spec := range p.spec.Aggs {
		c := &p.cols[a]
		switch spec.Kind {
		case AggCountRows:
			c.countRows(p.gidx)
		case AggCount:
			vec := &b.Cols[spec.Col]
			for k, i := range rows {
				if !vec.IsNull(int(i)) {
					c.n[p.gidx[k]]++
				}
			}
		case AggSum:
			if err := p.sum(b, rows, a, spec); err != nil {
				return err
			}
		case AggMin, AggMax:
			p.minMax(b, rows, a, spec)
		}
	}
	return nil
}

// selectRows returns the rows of b the aggregate reads: the selection
// (all rows when there is none) that the filter keeps.
func (p *aggPartial) selectRows(b *Batch) ([]int32, error) {
	var sel []int32
	if b.Sel != nil {
		sel = b.Sel
	} else {
		for len(p.iota) < b.Len {
			p.iota = append(p.iota, int32(len(p.iota)))
		}
		sel = p.iota[:b.Len]
	}
	if p.filter == nil {
		return sel, nil
	}
	p.rows = p.rows[:0]
	for _, i := range sel {
		ok, err := p.filter(b, i)
		if err != nil {
			return nil, err
		}
		if ok {
			p.rows = append(p.rows, i)
		}
	}
	return p.rows, nil
}

// oneGroup adds rows of b to the single group of an aggregate without
// keys: counts and sums of typed vectors run without a group per row.
func (p *aggPartial) oneGroup(b *Batch, rows []int32) {
	for a, spec := range p.spec.Aggs {
		c := &p.cols[a]
		switch spec.Kind {
		case AggCountRows:
			c.n[0] += int64(len(rows))
			continue
		case AggSum:
			vec := &b.Cols[spec.Col]
			switch vec.Kind() {
			case VectorInt64, VectorDecimal64:
				sumInto(c, vec.Int64, vec.Nulls, rows)
				continue
			case VectorInt32:
				sumInto(c, vec.Int32, vec.Nulls, rows)
				continue
			}
		}
		// Other aggregates and columns: the grouped path with group 0.
		p.gidx = grow32(p.gidx, len(rows))
		switch spec.Kind {
		case AggCount:
			vec := &b.Cols[spec.Col]
			for _, i := range rows {
				if !vec.IsNull(int(i)) {
					c.n[0]++
				}
			}
		case AggSum:
			if err := p.sum(b, rows, a, spec); err != nil {
				p.err = err
			}
		case AggMin, AggMax:
			p.minMax(b, rows, a, spec)
		}
	}
}

// sumInto adds the non-NULL values of rows to the single group of c
// exactly, summing in a local int64 until a value would overflow it.
func sumInto[T int64 | int32](c *aggCol, vals []T, nulls []bool, rows []int32) {
	var s, n int64
	flush := func() {
		c.add(0, s)
		c.n[0] += n
		s, n = 0, 0
	}
	for _, i := range rows {
		if nulls != nil && nulls[i] {
			continue
		}
		x := int64(vals[i])
		t := s + x
		if (x > 0 && t < s) || (x < 0 && t > s) {
			flush()
			t = x
		}
		s = t
		n++
	}
	flush()
}

// grow32 returns s resized to n zeros.
func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// groups sets p.gidx to the group of each row (creating groups).
func (p *aggPartial) groups(b *Batch, rows []int32) {
	p.gidx = p.gidx[:0]
	keys := p.spec.Keys
	if len(keys) == 1 {
		vec := &b.Cols[keys[0]]
		switch vec.Kind() {
		case VectorInt64, VectorDecimal64:
			for _, i := range rows {
				g := int32(-1)
				if vec.Nulls == nil || !vec.Nulls[i] {
					g = p.dense.get(vec.Int64[i])
				}
				if g < 0 {
					g = p.group(b, int(i))
				}
				p.gidx = append(p.gidx, g)
			}
			return
		case VectorString:
			if vec.Dict != nil {
				p.dictGroups(b, vec, rows)
				return
			}
			p.shortStrGroups(b, vec, rows)
			return
		}
	}
	for _, i := range rows {
		p.gidx = append(p.gidx, p.group(b, int(i)))
	}
}

// maxShort is how many short string keys shortStrGroups finds by a scan
// before it leaves the rest to the map.
const maxShort = 16

// shortKey is a string of at most 16 bytes as two words and its length
// (equal keys for equal strings only).
type shortKey struct {
	lo, hi uint64
	n      int
	g      int32
}

// packShort packs s (len(s) ≤ 16) into two words: its first and last 8
// bytes (overlapping when shorter than 16), or its bytes when shorter than 8.
func packShort(s string) (lo, hi uint64) {
	if len(s) >= 8 {
		b := unsafe.Slice(unsafe.StringData(s), len(s))
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[len(b)-8:])
	}
	for i := range len(s) {
		lo |= uint64(s[i]) << (8 * i)
	}
	return lo, 0
}

// shortStrGroups sets p.gidx for a string key of few short values (status
// codes): the first maxShort keys of at most 16 bytes are found by
// scanning packed words instead of hashing; the rest go through group.
func (p *aggPartial) shortStrGroups(b *Batch, vec *datafile.Vector, rows []int32) {
	for _, i := range rows {
		s := vec.Str[i]
		if len(s) > 16 || vec.Nulls != nil && vec.Nulls[i] {
			p.gidx = append(p.gidx, p.group(b, int(i)))
			continue
		}
		lo, hi := packShort(s)
		g := int32(-1)
		for k := range p.short {
			if e := &p.short[k]; e.lo == lo && e.hi == hi && e.n == len(s) {
				g = e.g
				break
			}
		}
		if g < 0 {
			g = p.group(b, int(i))
			if len(p.short) < maxShort {
				p.short = append(p.short, shortKey{lo, hi, len(s), g})
			}
		}
		p.gidx = append(p.gidx, g)
	}
}

// dictGroups sets p.gidx for a string key vector that carries its
// dictionary: each dictionary entry's group is found once per dictionary.
func (p *aggPartial) dictGroups(b *Batch, vec *datafile.Vector, rows []int32) {
	if len(vec.Dict) == 0 || len(p.dictOf) != len(vec.Dict) || &p.dictOf[0] != &vec.Dict[0] {
		p.dictOf = vec.Dict
		p.dictGroup = grow32(p.dictGroup, len(vec.Dict))
	}
	for _, i := range rows {
		if vec.Nulls != nil && vec.Nulls[i] {
			p.gidx = append(p.gidx, p.group(b, int(i)))
			continue
		}
		x := vec.Idx[i]
		g := p.dictGroup[x] - 1
		if g < 0 {
			g = p.group(b, int(i))
			p.dictGroup[x] = g + 1
		}
		p.gidx = append(p.gidx, g)
	}
}

// sum adds an integer or DECIMAL column exactly (unscaled).
func (p *aggPartial) sum(b *Batch, rows []int32, a int, spec AggColumn) error {
	c := &p.cols[a]
	vec := &b.Cols[spec.Col]
	switch vec.Kind() {
	case VectorInt64, VectorDecimal64: // DECIMAL: unscaled at the column's scale
		sumRows(c, vec.Int64, vec.Nulls, rows, p.gidx)
		return nil
	case VectorInt32:
		sumRows(c, vec.Int32, vec.Nulls, rows, p.gidx)
		return nil
	}
	typ := p.types[spec.Col]
	for k, i := range rows {
		v := vec.Value(int(i))
		if v == nil {
			continue
		}
		g := p.gidx[k]
		c.n[g]++
		switch x := v.(type) {
		case int8:
			c.add(g, int64(x))
		case int16:
			c.add(g, int64(x))
		case int32:
			c.add(g, int64(x))
		case int64:
			c.add(g, x)
		case schema.Decimal:
			if int(x.Scale) != typ.Scale {
				return fmt.Errorf("lsmread: aggregate: a DECIMAL(%d,%d) value of scale %d", typ.Precision, typ.Scale, x.Scale)
			}
			if x.Big != nil {
				c.addBig(g, x.Big)
			} else {
				c.add(g, x.Compact)
			}
		default:
			return fmt.Errorf("lsmread: aggregate: %T value in a %s column", v, typ)
		}
	}
	return nil
}

// minMax keeps the least (MIN) or greatest (MAX) value.
func (p *aggPartial) minMax(b *Batch, rows []int32, a int, spec AggColumn) {
	c := &p.cols[a]
	vec := &b.Cols[spec.Col]
	switch vec.Kind() {
	case VectorInt64, VectorDecimal64:
		minMaxRows(c, vec.Int64, vec.Nulls, rows, p.gidx)
		return
	case VectorInt32:
		minMaxRows(c, vec.Int32, vec.Nulls, rows, p.gidx)
		return
	}
	for k, i := range rows {
		if vec.IsNull(int(i)) {
			continue
		}
		g := p.gidx[k]
		first := c.n[g] == 0
		c.n[g]++
		if vec.Kind() == VectorString {
			if x := vec.Str[i]; first || c.better(cmp.Compare(x, c.bestS[g])) {
				c.bestS[g] = x
			}
			continue
		}
		if x := vec.Any[i]; first || c.better(schema.Compare(c.typ, x, c.best[g])) {
			c.best[g] = x
		}
	}
}

// group returns the group of row i (creating it).
func (p *aggPartial) group(b *Batch, i int) int32 {
	keys := p.spec.Keys
	switch {
	case len(keys) == 0:
		return 0
	case p.intMode:
		vec := &b.Cols[keys[0]]
		if vec.IsNull(i) {
			return p.nullGroup()
		}
		var x int64
		if vec.Kind() != VectorInt32 {
			x = vec.Int64[i]
		} else {
			x = int64(vec.Int32[i])
		}
		if g := p.dense.get(x); g >= 0 {
			return g
		}
		return p.intGroup(x)
	case len(keys) == 1 && p.kinds[keys[0]] == VectorString:
		vec := &b.Cols[keys[0]]
		if vec.IsNull(i) {
			return p.nullGroup()
		}
		g, ok := p.str[vec.Str[i]]
		if !ok {
			g = p.newGroup([]any{vec.Str[i]})
			p.str[vec.Str[i]] = g
		}
		return g
	}
	vals := make([]any, len(keys))
	for j, c := range keys {
		vals[j] = b.Cols[c].Value(i)
	}
	p.keyBuf = encodeGroupKey(p.keyBuf[:0], vals)
	if g, ok := p.str[string(p.keyBuf)]; ok {
		return g
	}
	g := p.newGroup(vals)
	p.str[string(p.keyBuf)] = g
	return g
}

// intGroup returns the group of integer key x that the dense index does
// not hold (creating it with the key value raw() when it is new).
func (p *aggPartial) intGroup(x int64) int32 {
	g, ok := p.i64[x]
	if !ok {
		g = p.newIntGroup(x)
		if !p.dense.put(x, g) {
			p.dense.spill(p.i64)
			p.i64[x] = g
		}
	}
	return g
}

// encodeGroupKey appends a byte encoding of group key values, equal
// exactly for equal values of one column type.
func encodeGroupKey(dst []byte, vals []any) []byte {
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			dst = append(dst, 0)
		case bool:
			dst = append(dst, 1)
			if x {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		case int8:
			dst = binary.AppendVarint(append(dst, 2), int64(x))
		case int16:
			dst = binary.AppendVarint(append(dst, 2), int64(x))
		case int32:
			dst = binary.AppendVarint(append(dst, 2), int64(x))
		case int64:
			dst = binary.AppendVarint(append(dst, 2), x)
		case string:
			dst = append(binary.AppendUvarint(append(dst, 3), uint64(len(x))), x...)
		case schema.Decimal:
			s := strconv.FormatInt(x.Compact, 10)
			if x.Big != nil {
				s = x.Big.String()
			}
			dst = append(binary.AppendUvarint(append(dst, 4), uint64(len(s))), s...)
		default:
			s := fmt.Sprintf("%T:%v", v, v)
			dst = append(binary.AppendUvarint(append(dst, 5), uint64(len(s))), s...)
		}
	}
	return dst
}

// merge adds another worker's groups into p.
func (p *aggPartial) merge(o *aggPartial) {
	if p.intMode {
		// One integer key: o's groups are found by the key, as group does.
		for og := range o.ngroups {
			var g int32
			if int32(og) == o.null {
				g = p.nullGroup()
			} else if g = p.dense.get(o.ikeys[og]); g < 0 {
				g = p.intGroup(o.ikeys[og])
			}
			p.combine(g, o, og)
		}
		return
	}
	index := map[string]int32{}
	var buf []byte
	for g, k := range p.keys {
		buf = encodeGroupKey(buf[:0], k)
		index[string(buf)] = int32(g)
	}
	for og, k := range o.keys {
		buf = encodeGroupKey(buf[:0], k)
		g, ok := index[string(buf)]
		if !ok {
			g = p.newGroup(k)
			index[string(buf)] = g
		}
		p.combine(g, o, og)
	}
}

// combine adds group og of o into group g.
func (p *aggPartial) combine(g int32, o *aggPartial, og int) {
	for a := range p.cols {
		p.cols[a].combine(g, o.cols[a].accum(og))
	}
}

// maxDense is the widest range of integer group keys a denseIndex covers.
const maxDense = 1 << 21

// denseIndex maps integer group keys of a narrow range (user ids, small
// codes) to groups by position instead of hashing: groups[x-base] is the
// group of key x plus one (0: none yet). Once a key would widen the range
// past maxDense, the index spills into the hash map and stays off.
type denseIndex struct {
	base   int64
	groups []int32
	off    bool
}

// get returns key x's group, or -1 when the index does not have it.
func (d *denseIndex) get(x int64) int32 {
	if o := uint64(x - d.base); o < uint64(len(d.groups)) {
		return d.groups[o] - 1
	}
	return -1
}

// put records key x's new group g; false when x is out of the index's
// reach (the caller spills it into the hash map).
func (d *denseIndex) put(x int64, g int32) bool {
	if d.off {
		return false
	}
	if len(d.groups) == 0 {
		d.base, d.groups = x, make([]int32, 1, 1024)
	}
	lo, hi := min(d.base, x), max(d.base+int64(len(d.groups))-1, x)
	if hi < lo || uint64(hi-lo) >= maxDense { // hi < lo: the range overflowed int64
		return false
	}
	if lo < d.base || hi >= d.base+int64(len(d.groups)) {
		width := hi - lo + 1
		grown := make([]int32, width, max(width, 2*int64(len(d.groups))))
		copy(grown[d.base-lo:], d.groups)
		d.base, d.groups = lo, grown
	}
	d.groups[x-d.base] = g + 1
	return true
}

// spill moves the index into m and turns it off.
func (d *denseIndex) spill(m map[int64]int32) {
	if d.off {
		return
	}
	for o, g := range d.groups {
		if g > 0 {
			m[d.base+int64(o)] = g - 1
		}
	}
	d.base, d.groups, d.off = 0, nil, true
}
