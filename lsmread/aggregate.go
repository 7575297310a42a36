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

// Accum is one aggregate of one group.
type Accum struct {
	N     int64    // rows (COUNT), or non-NULL values seen (SUM, MIN, MAX)
	Sum   int64    // the exact sum, unscaled, while it fits
	Big   *big.Int // the sum once it left int64 (then Sum is unused)
	BestI int64    // MIN/MAX of an integer column, or a DECIMAL(p ≤ 18) unscaled
	BestS string   // MIN/MAX of a string column
	Best  any      // MIN/MAX of another column (the value model)
}

// Groups is an aggregate's result: each group's key values (the value
// model, in Keys order) and accumulators (Acc[g*len(Aggs)+a]).
type Groups struct {
	Keys [][]any
	Acc  []Accum
}

func (a *Accum) add(x int64) {
	if a.Big != nil {
		a.Big.Add(a.Big, big.NewInt(x))
		return
	}
	s := a.Sum + x
	if (x > 0 && s < a.Sum) || (x < 0 && s > a.Sum) {
		a.Big = new(big.Int).Add(big.NewInt(a.Sum), big.NewInt(x))
		return
	}
	a.Sum = s
}

func (a *Accum) addBig(x *big.Int) {
	if a.Big == nil {
		a.Big = big.NewInt(a.Sum)
	}
	a.Big.Add(a.Big, x)
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
	final.boxIntKeys()
	return &Groups{Keys: final.keys, Acc: final.acc}, nil
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
	keys   [][]any          // each group's key values (nil: in ikeys)
	ikeys  []int64          // the key of each group newIntGroup made
	acc    []Accum          // group*len(aggs)+agg
	gidx   []int32
	rows   []int32
	iota   []int32 // 0, 1, 2, ...: the rows of a batch without selection
	keyBuf []byte
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
	if len(spec.Keys) == 0 {
		p.newGroup(nil)
	}
	if spec.NewFilter != nil {
		p.filter = spec.NewFilter()
	}
	return p
}

func (p *aggPartial) newGroup(keys []any) int32 {
	g := int32(len(p.keys))
	p.keys = append(p.keys, keys)
	p.acc = append(p.acc, make([]Accum, len(p.spec.Aggs))...)
	return g
}

// newIntGroup adds the group of single integer key x, whose key values
// are boxed at the end (boxIntKeys): p.keys holds nil for it meanwhile.
func (p *aggPartial) newIntGroup(x int64) int32 {
	g := p.newGroup(nil)
	for len(p.ikeys) < int(g) {
		p.ikeys = append(p.ikeys, 0)
	}
	p.ikeys = append(p.ikeys, x)
	return g
}

// intKeyOf is the integer key of group g made by newIntGroup.
func (p *aggPartial) intKeyOf(g int) (int64, bool) {
	if p.keys[g] != nil || g >= len(p.ikeys) {
		return 0, false
	}
	return p.ikeys[g], true
}

// boxIntKeys gives the groups made by newIntGroup their key values in the
// value model of the key column (one allocation for all).
func (p *aggPartial) boxIntKeys() {
	n := 0
	for g := range p.keys {
		if _, ok := p.intKeyOf(g); ok {
			n++
		}
	}
	if n == 0 {
		return
	}
	kind, scale := p.kinds[p.spec.Keys[0]], int32(p.types[p.spec.Keys[0]].Scale)
	vals := make([]any, n)
	i := 0
	for g := range p.keys {
		x, ok := p.intKeyOf(g)
		if !ok {
			continue
		}
		switch kind {
		case VectorInt32:
			vals[i] = int32(x)
		case VectorDecimal64:
			vals[i] = schema.Decimal{Compact: x, Scale: scale}
		default:
			vals[i] = x
		}
		p.keys[g] = vals[i : i+1 : i+1]
		i++
	}
	p.ikeys = nil
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
	na := len(p.spec.Aggs)
	for a, spec := range p.spec.Aggs {
		switch spec.Kind {
		case AggCountRows:
			for _, g := range p.gidx {
				p.acc[int(g)*na+a].N++
			}
		case AggCount:
			vec := &b.Cols[spec.Col]
			for k, i := range rows {
				if !vec.IsNull(int(i)) {
					p.acc[int(p.gidx[k])*na+a].N++
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
		acc := &p.acc[a]
		switch spec.Kind {
		case AggCountRows:
			acc.N += int64(len(rows))
			continue
		case AggSum:
			vec := &b.Cols[spec.Col]
			switch vec.Kind() {
			case VectorInt64, VectorDecimal64:
				sumInto(acc, vec.Int64, vec.Nulls, rows)
				continue
			case VectorInt32:
				sumInto(acc, vec.Int32, vec.Nulls, rows)
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
					acc.N++
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

// sumInto adds the non-NULL values of rows to acc exactly, summing in an
// int64 until a value would overflow it.
func sumInto[T int64 | int32](acc *Accum, vals []T, nulls []bool, rows []int32) {
	var s, n int64
	flush := func() {
		acc.add(s)
		acc.N += n
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
	na := len(p.spec.Aggs)
	vec := &b.Cols[spec.Col]
	switch vec.Kind() {
	case VectorInt64, VectorDecimal64: // DECIMAL: unscaled at the column's scale
		for k, i := range rows {
			if vec.Nulls == nil || !vec.Nulls[i] {
				acc := &p.acc[int(p.gidx[k])*na+a]
				acc.N++
				acc.add(vec.Int64[i])
			}
		}
		return nil
	case VectorInt32:
		for k, i := range rows {
			if vec.Nulls == nil || !vec.Nulls[i] {
				acc := &p.acc[int(p.gidx[k])*na+a]
				acc.N++
				acc.add(int64(vec.Int32[i]))
			}
		}
		return nil
	}
	typ := p.types[spec.Col]
	for k, i := range rows {
		v := vec.Value(int(i))
		if v == nil {
			continue
		}
		acc := &p.acc[int(p.gidx[k])*na+a]
		acc.N++
		switch x := v.(type) {
		case int8:
			acc.add(int64(x))
		case int16:
			acc.add(int64(x))
		case int32:
			acc.add(int64(x))
		case int64:
			acc.add(x)
		case schema.Decimal:
			if int(x.Scale) != typ.Scale {
				return fmt.Errorf("lsmread: aggregate: a DECIMAL(%d,%d) value of scale %d", typ.Precision, typ.Scale, x.Scale)
			}
			if x.Big != nil {
				acc.addBig(x.Big)
			} else {
				acc.add(x.Compact)
			}
		default:
			return fmt.Errorf("lsmread: aggregate: %T value in a %s column", v, typ)
		}
	}
	return nil
}

// minMax keeps the least (MIN) or greatest (MAX) value.
func (p *aggPartial) minMax(b *Batch, rows []int32, a int, spec AggColumn) {
	na := len(p.spec.Aggs)
	vec := &b.Cols[spec.Col]
	typ := p.types[spec.Col]
	better := func(c int) bool { return spec.Kind == AggMin && c < 0 || spec.Kind == AggMax && c > 0 }
	for k, i := range rows {
		if vec.IsNull(int(i)) {
			continue
		}
		acc := &p.acc[int(p.gidx[k])*na+a]
		switch vec.Kind() {
		case VectorInt64, VectorInt32, VectorDecimal64:
			x := int64(0)
			if vec.Kind() != VectorInt32 {
				x = vec.Int64[i]
			} else {
				x = int64(vec.Int32[i])
			}
			if acc.N == 0 || better(cmp.Compare(x, acc.BestI)) {
				acc.BestI = x
			}
		case VectorString:
			x := vec.Str[i]
			if acc.N == 0 || better(cmp.Compare(x, acc.BestS)) {
				acc.BestS = x
			}
		default:
			x := vec.Any[i]
			if acc.N == 0 || better(schema.Compare(typ, x, acc.Best)) {
				acc.Best = x
			}
		}
		acc.N++
	}
}

// group returns the group of row i (creating it).
func (p *aggPartial) group(b *Batch, i int) int32 {
	keys := p.spec.Keys
	switch {
	case len(keys) == 0:
		return 0
	case len(keys) == 1 && (p.kinds[keys[0]] == VectorInt64 || p.kinds[keys[0]] == VectorInt32 || p.kinds[keys[0]] == VectorDecimal64):
		vec := &b.Cols[keys[0]]
		if vec.IsNull(i) {
			if p.null < 0 {
				p.null = p.newGroup([]any{nil})
			}
			return p.null
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
			if p.null < 0 {
				p.null = p.newGroup([]any{nil})
			}
			return p.null
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

// intKeys reports whether the groups are of one integer key and every
// group of o has a NULL or integer key value.
func (p *aggPartial) intKeys(o *aggPartial) bool {
	keys := p.spec.Keys
	if len(keys) != 1 {
		return false
	}
	switch p.kinds[keys[0]] {
	case VectorInt64, VectorInt32, VectorDecimal64:
	default:
		return false
	}
	for g, k := range o.keys {
		if _, ok := o.intKeyOf(g); ok {
			continue
		}
		if _, ok := intKey(k[0]); !ok && k[0] != nil {
			return false
		}
	}
	return true
}

// intKey is the int64 of a single integer group key value (the value model
// of an Int64, Int32 or Decimal64 vector).
func intKey(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case schema.Decimal:
		return x.Compact, x.Big == nil
	}
	return 0, false
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
	na := len(p.spec.Aggs)
	if p.intKeys(o) {
		// One integer key: o's groups are found by the key, as group does.
		for og, k := range o.keys {
			var g int32
			x, ok := o.intKeyOf(og)
			if !ok && k[0] != nil {
				x, ok = intKey(k[0])
			}
			if !ok {
				if p.null < 0 {
					p.null = p.newGroup(k)
				}
				g = p.null
			} else if g = p.dense.get(x); g < 0 {
				g = p.intGroup(x)
			}
			for a, spec := range p.spec.Aggs {
				p.combine(spec, &p.acc[int(g)*na+a], &o.acc[og*na+a])
			}
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
		for a, spec := range p.spec.Aggs {
			p.combine(spec, &p.acc[int(g)*na+a], &o.acc[og*na+a])
		}
	}
}

func (p *aggPartial) combine(spec AggColumn, dst, src *Accum) {
	switch spec.Kind {
	case AggCountRows, AggCount:
		dst.N += src.N
	case AggSum:
		if src.Big != nil {
			dst.addBig(src.Big)
		} else {
			dst.add(src.Sum)
		}
		dst.N += src.N
	case AggMin, AggMax:
		if src.N == 0 {
			return
		}
		if dst.N == 0 {
			*dst = *src
			return
		}
		var c int
		switch p.kinds[spec.Col] {
		case VectorInt64, VectorInt32, VectorDecimal64:
			c = cmp.Compare(src.BestI, dst.BestI)
		case VectorString:
			c = cmp.Compare(src.BestS, dst.BestS)
		default:
			c = schema.Compare(p.types[spec.Col], src.Best, dst.Best)
		}
		if spec.Kind == AggMin && c < 0 || spec.Kind == AggMax && c > 0 {
			dst.BestI, dst.BestS, dst.Best = src.BestI, src.BestS, src.Best
		}
		dst.N += src.N
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
