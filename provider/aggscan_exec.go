package provider

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

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// iter computes the aggregate: each split's batches go to a per-worker
// partial aggregate (typed values, no boxing but for the filter's columns),
// the partials merge, and each group becomes a row of GroupBy's schema.
func (as *AggregateScan) iter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	if as.t.pending(ctx) != nil {
		// The transaction's pending writes: the overlay reads rows.
		return rowexec.DefaultBuilder.Build(ctx, as.gb, row)
	}
	spec := as.t.scanSpec()
	spec.TimeZone = sessionZone(ctx)
	p, err := as.t.lt.Plan(ctx, spec)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", as.t.name, err))
	}
	as.t.noteRead(ctx, p)
	noteScan(ctx, p)
	if as.countOnly() {
		n, ok, err := p.CountFromStats(ctx)
		if err != nil {
			return nil, mapError(err)
		}
		if ok {
			out := make(sql.Row, len(as.out))
			for j := range out {
				out[j] = n
			}
			return sql.RowsToRowIter(out), nil
		}
	}
	r, err := p.NewReader()
	if err != nil {
		return nil, mapError(err)
	}
	workers := min(runtime.GOMAXPROCS(0), max(len(p.Splits), 1))
	parts := make([]*aggPartial, workers)
	for w := range parts {
		parts[w] = as.newPartial()
	}
	work := make(chan *lsmread.DataSplit)
	errc := make(chan error, workers)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				if err := parts[w].readSplit(ctx, cctx, r, s); err != nil {
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
	rows, err := final.result()
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

func (as *AggregateScan) countOnly() bool {
	if as.filter != nil || len(as.keys) > 0 || len(as.aggs) == 0 {
		return false
	}
	for _, a := range as.aggs {
		if a.kind != aggCountRows {
			return false
		}
	}
	return len(as.out) == len(as.aggs)
}

// accum is one aggregate of one group.
type accum struct {
	n     int64    // rows (COUNT), or non-NULL values seen
	sum   int64    // exact sum, unscaled
	big   *big.Int // the sum once it left int64
	bestI int64    // MIN/MAX of an integer vector
	bestS string   // MIN/MAX of a string vector
	best  any      // MIN/MAX of another value
}

func (a *accum) add(x int64) {
	if a.big != nil {
		a.big.Add(a.big, big.NewInt(x))
		return
	}
	s := a.sum + x
	if (x > 0 && s < a.sum) || (x < 0 && s > a.sum) {
		a.big = new(big.Int).Add(big.NewInt(a.sum), big.NewInt(x))
		return
	}
	a.sum = s
}

func (a *accum) addBig(x *big.Int) {
	if a.big == nil {
		a.big = big.NewInt(a.sum)
	}
	a.big.Add(a.big, x)
}

// aggPartial is one worker's groups.
type aggPartial struct {
	as      *AggregateScan
	kinds   []lsmread.VectorKind // per scan column
	i64     map[int64]int32      // one BIGINT/INT key
	str     map[string]int32     // one string key, or the encoded keys
	null    int32                // the group of a NULL single key, or -1
	keys    [][]any              // each group's key values (raw)
	acc     []accum              // group*len(aggs)+agg
	gidx    []int32
	rows    []int32
	keyBuf  []byte
	refs    []int // scan columns the filter reads
	filterR sql.Row
}

func (as *AggregateScan) newPartial() *aggPartial {
	p := &aggPartial{as: as, i64: map[int64]int32{}, str: map[string]int32{}, null: -1}
	for i := range as.cols {
		p.kinds = append(p.kinds, lsmread.KindOf(as.typeAt(i)))
	}
	if len(as.keys) == 0 {
		p.newGroup(nil)
	}
	if as.filter != nil {
		seen := map[int]bool{}
		transform.InspectExpr(as.filter, func(e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok && !seen[gf.Index()] {
				seen[gf.Index()] = true
				p.refs = append(p.refs, gf.Index())
			}
			return false
		})
		p.filterR = make(sql.Row, len(as.cols))
	}
	return p
}

func (p *aggPartial) newGroup(keys []any) int32 {
	g := int32(len(p.keys))
	p.keys = append(p.keys, keys)
	for range p.as.aggs {
		p.acc = append(p.acc, accum{})
	}
	return g
}

func (p *aggPartial) readSplit(sctx *sql.Context, ctx context.Context, r *lsmread.Reader, s *lsmread.DataSplit) error {
	it, err := r.ReadBatches(ctx, s)
	if err != nil {
		return mapError(err)
	}
	defer it.Close()
	var b lsmread.Batch
	for {
		err := it.Next(&b)
		if errors.Is(err, io.EOF) {
			return it.Close()
		}
		if err != nil {
			return mapError(err)
		}
		if err := p.batch(sctx, &b); err != nil {
			return err
		}
	}
}

// batch adds one batch: the filter picks rows, the keys pick groups, then
// each aggregate runs over its column.
func (p *aggPartial) batch(ctx *sql.Context, b *lsmread.Batch) error {
	p.rows = p.rows[:0]
	add := func(i int32) error {
		if p.as.filter != nil {
			for _, c := range p.refs {
				v, err := toSQL(p.as.typeAt(c), b.Cols[c].Value(int(i)))
				if err != nil {
					return err
				}
				p.filterR[c] = v
			}
			res, err := sql.EvaluateCondition(ctx, p.as.filter, p.filterR)
			if err != nil {
				return err
			}
			if !sql.IsTrue(res) {
				return nil
			}
		}
		p.rows = append(p.rows, i)
		return nil
	}
	if b.Sel != nil {
		for _, i := range b.Sel {
			if err := add(i); err != nil {
				return err
			}
		}
	} else {
		for i := range int32(b.Len) {
			if err := add(i); err != nil {
				return err
			}
		}
	}
	p.gidx = p.gidx[:0]
	for _, i := range p.rows {
		p.gidx = append(p.gidx, p.group(b, int(i)))
	}
	na := len(p.as.aggs)
	for a, spec := range p.as.aggs {
		switch spec.kind {
		case aggCountRows:
			for _, g := range p.gidx {
				p.acc[int(g)*na+a].n++
			}
		case aggCount:
			vec := &b.Cols[spec.col]
			for k, i := range p.rows {
				if !vec.IsNull(int(i)) {
					p.acc[int(p.gidx[k])*na+a].n++
				}
			}
		case aggSum, aggAvg:
			if err := p.sum(b, a, spec); err != nil {
				return err
			}
		case aggMin, aggMax:
			p.minMax(b, a, spec)
		}
	}
	return nil
}

// sum adds an integer or DECIMAL column exactly (unscaled).
func (p *aggPartial) sum(b *lsmread.Batch, a int, spec aggSpec) error {
	na := len(p.as.aggs)
	vec := &b.Cols[spec.col]
	switch vec.Kind() {
	case lsmread.VectorInt64:
		for k, i := range p.rows {
			if vec.Nulls == nil || !vec.Nulls[i] {
				acc := &p.acc[int(p.gidx[k])*na+a]
				acc.n++
				acc.add(vec.Int64[i])
			}
		}
		return nil
	case lsmread.VectorInt32:
		for k, i := range p.rows {
			if vec.Nulls == nil || !vec.Nulls[i] {
				acc := &p.acc[int(p.gidx[k])*na+a]
				acc.n++
				acc.add(int64(vec.Int32[i]))
			}
		}
		return nil
	}
	for k, i := range p.rows {
		v := vec.Value(int(i))
		if v == nil {
			continue
		}
		acc := &p.acc[int(p.gidx[k])*na+a]
		acc.n++
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
			if int(x.Scale) != spec.typ.Scale {
				return fmt.Errorf("provider: aggregate: a DECIMAL(%d,%d) value of scale %d", spec.typ.Precision, spec.typ.Scale, x.Scale)
			}
			if x.Big != nil {
				acc.addBig(x.Big)
			} else {
				acc.add(x.Compact)
			}
		default:
			return fmt.Errorf("provider: aggregate: %T value in a %s column", v, spec.typ)
		}
	}
	return nil
}

// minMax keeps the least (MIN) or greatest (MAX) value.
func (p *aggPartial) minMax(b *lsmread.Batch, a int, spec aggSpec) {
	na := len(p.as.aggs)
	vec := &b.Cols[spec.col]
	better := func(c int) bool { return spec.kind == aggMin && c < 0 || spec.kind == aggMax && c > 0 }
	for k, i := range p.rows {
		if vec.IsNull(int(i)) {
			continue
		}
		acc := &p.acc[int(p.gidx[k])*na+a]
		switch vec.Kind() {
		case lsmread.VectorInt64, lsmread.VectorInt32:
			x := int64(0)
			if vec.Kind() == lsmread.VectorInt64 {
				x = vec.Int64[i]
			} else {
				x = int64(vec.Int32[i])
			}
			if acc.n == 0 || better(cmp.Compare(x, acc.bestI)) {
				acc.bestI = x
			}
		case lsmread.VectorString:
			x := vec.Str[i]
			if acc.n == 0 || better(cmpStr(x, acc.bestS)) {
				acc.bestS = x
			}
		default:
			x := vec.Any[i]
			if acc.n == 0 || better(schema.Compare(spec.typ, x, acc.best)) {
				acc.best = x
			}
		}
		acc.n++
	}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// group returns the group of row i (creating it).
func (p *aggPartial) group(b *lsmread.Batch, i int) int32 {
	keys := p.as.keys
	switch {
	case len(keys) == 0:
		return 0
	case len(keys) == 1 && p.kinds[keys[0]] == lsmread.VectorInt64, len(keys) == 1 && p.kinds[keys[0]] == lsmread.VectorInt32:
		vec := &b.Cols[keys[0]]
		if vec.IsNull(i) {
			if p.null < 0 {
				p.null = p.newGroup([]any{nil})
			}
			return p.null
		}
		var x int64
		if vec.Kind() == lsmread.VectorInt64 {
			x = vec.Int64[i]
		} else {
			x = int64(vec.Int32[i])
		}
		g, ok := p.i64[x]
		if !ok {
			g = p.newGroup([]any{vec.Value(i)})
			p.i64[x] = g
		}
		return g
	case len(keys) == 1 && p.kinds[keys[0]] == lsmread.VectorString:
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
	p.keyBuf = encodeKey(p.keyBuf[:0], vals)
	if g, ok := p.str[string(p.keyBuf)]; ok {
		return g
	}
	g := p.newGroup(vals)
	p.str[string(p.keyBuf)] = g
	return g
}

// encodeKey appends a byte encoding of group key values, equal exactly for
// equal values of one column type.
func encodeKey(dst []byte, vals []any) []byte {
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
	index := map[string]int32{}
	var buf []byte
	for g, k := range p.keys {
		buf = encodeKey(buf[:0], k)
		index[string(buf)] = int32(g)
	}
	na := len(p.as.aggs)
	for og, k := range o.keys {
		buf = encodeKey(buf[:0], k)
		g, ok := index[string(buf)]
		if !ok {
			g = p.newGroup(k)
			index[string(buf)] = g
		}
		for a, spec := range p.as.aggs {
			p.combine(spec, &p.acc[int(g)*na+a], &o.acc[og*na+a])
		}
	}
}

func (p *aggPartial) combine(spec aggSpec, dst, src *accum) {
	switch spec.kind {
	case aggCountRows, aggCount:
		dst.n += src.n
	case aggSum, aggAvg:
		if src.big != nil {
			dst.addBig(src.big)
		} else {
			dst.add(src.sum)
		}
		dst.n += src.n
	case aggMin, aggMax:
		if src.n == 0 {
			return
		}
		if dst.n == 0 {
			*dst = *src
			return
		}
		var c int
		switch p.kinds[spec.col] {
		case lsmread.VectorInt64, lsmread.VectorInt32:
			c = cmp.Compare(src.bestI, dst.bestI)
		case lsmread.VectorString:
			c = cmpStr(src.bestS, dst.bestS)
		default:
			c = schema.Compare(spec.typ, src.best, dst.best)
		}
		if spec.kind == aggMin && c < 0 || spec.kind == aggMax && c > 0 {
			dst.bestI, dst.bestS, dst.best = src.bestI, src.bestS, src.best
		}
		dst.n += src.n
	}
}

// rows turns the groups into rows of GroupBy's schema, with the values
// the row path computes (MySQL's SUM and AVG of lakesql's builtins,
// GMS's COUNT, MIN and MAX over the scan's values).
func (p *aggPartial) result() ([]sql.Row, error) {
	na := len(p.as.aggs)
	out := make([]sql.Row, 0, len(p.keys))
	for g, keys := range p.keys {
		row := make(sql.Row, len(p.as.out))
		for j, o := range p.as.out {
			if o < 0 {
				k := -1 - o
				v, err := toSQL(p.as.typeAt(p.as.keys[k]), keys[k])
				if err != nil {
					return nil, err
				}
				row[j] = v
				continue
			}
			v, err := p.value(p.as.aggs[o], &p.acc[g*na+o])
			if err != nil {
				return nil, err
			}
			row[j] = v
		}
		out = append(out, row)
	}
	return out, nil
}

func (p *aggPartial) value(spec aggSpec, acc *accum) (any, error) {
	switch spec.kind {
	case aggCountRows, aggCount:
		return acc.n, nil
	case aggSum, aggAvg:
		if acc.n == 0 {
			return nil, nil
		}
		exp := -int32(0)
		if spec.typ.Root == schema.TypeDecimal {
			exp = -int32(spec.typ.Scale)
		}
		var d decimal.Decimal
		if acc.big != nil {
			d = decimal.NewFromBigInt(acc.big, exp)
		} else {
			d = decimal.New(acc.sum, exp)
		}
		if spec.kind == aggAvg {
			return d.DivRound(decimal.NewFromInt(acc.n), spec.scale), nil
		}
		return d, nil
	}
	if acc.n == 0 {
		return nil, nil
	}
	var raw any
	switch p.kinds[spec.col] {
	case lsmread.VectorInt64:
		raw = acc.bestI
	case lsmread.VectorInt32:
		raw = int32(acc.bestI)
	case lsmread.VectorString:
		raw = acc.bestS
	default:
		raw = acc.best
	}
	return toSQL(spec.typ, raw)
}
