package datafile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/lakesql/lakesql/internal/schema"
)

// dictCache holds the current dictionary of a column chunk with each entry
// converted (and boxed) once.
type dictCache struct {
	dict parquet.Dictionary
	vals []any
	// The entries as one typed slice, made from vals on the first typed
	// read (NextBatch's vectors) of a dictionary-encoded page.
	typed VectorKind
	i64   []int64
	i32   []int32
	f64   []float64
	str   []string
}

// loadTyped makes the typed slice of kind (one of the typed vector kinds)
// from the converted entries.
func (c *dictCache) loadTyped(kind VectorKind) error {
	if c.typed == kind {
		return nil
	}
	c.i64, c.i32, c.f64, c.str = nil, nil, nil, nil
	var ok bool
	switch kind {
	case VectorInt64:
		c.i64, ok = unboxAll[int64](c.vals)
	case VectorDecimal64:
		c.i64 = make([]int64, len(c.vals))
		ok = true
		for i, v := range c.vals {
			d, isDec := v.(schema.Decimal)
			if !isDec || d.Big != nil {
				ok = false
				break
			}
			c.i64[i] = d.Compact
		}
	case VectorInt32:
		c.i32, ok = unboxAll[int32](c.vals)
	case VectorFloat64:
		c.f64, ok = unboxAll[float64](c.vals)
	case VectorString:
		c.str, ok = unboxAll[string](c.vals)
	}
	if !ok {
		return fmt.Errorf("%w: dictionary entries are not of the column's vector kind", ErrTypeMismatch)
	}
	c.typed = kind
	return nil
}

// unboxAll copies boxed values of type T into a new slice; false when one
// is of another type.
func unboxAll[T any](vals []any) ([]T, bool) {
	out := make([]T, len(vals))
	for i, v := range vals {
		x, ok := v.(T)
		if !ok {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// load converts d unless it is the cached one.
func (c *dictCache) load(d parquet.Dictionary, conv *leafConv) error {
	if d == c.dict && c.vals != nil {
		return nil
	}
	p := d.Page()
	data := p.Data()
	n := conv.valueCount(data, int(p.NumValues()))
	if n != d.Len() {
		return fmt.Errorf("%w: column %s: dictionary of %d entries holds %d values", ErrCorrupt, conv.name, d.Len(), n)
	}
	vals := make([]any, n) // non-nil even when empty: marks the cache loaded
	if err := conv.convert(data, 0, vals); err != nil {
		return err
	}
	*c = dictCache{dict: d, vals: vals}
	return nil
}

// lookup fills dst with the dictionary entries named by idx.
func (c *dictCache) lookup(idx []int32, dst []any, name string) error {
	vals := c.vals
	for i, x := range idx {
		if uint(x) >= uint(len(vals)) {
			return fmt.Errorf("%w: column %s: dictionary index %d out of %d entries", ErrCorrupt, name, x, len(vals))
		}
		dst[i] = vals[x]
	}
	return nil
}

// pageValues is the decoded view of one data page of a leaf column.
type pageValues struct {
	page parquet.Page
	data encoding.Values
	// idx holds the dictionary indexes of a dictionary-encoded page.
	idx   []int32
	nvals int
}

// open takes the value buffers of page p, converting its dictionary if it
// has one.
func (pv *pageValues) open(p parquet.Page, conv *leafConv, dc *dictCache) error {
	pv.page = p
	pv.idx = nil
	if d := p.Dictionary(); d != nil {
		if err := dc.load(d, conv); err != nil {
			return err
		}
		data := p.Data()
		if data.Kind() != encoding.Int32 {
			return fmt.Errorf("%w: column %s: dictionary page without indexes", ErrCorrupt, conv.name)
		}
		pv.idx = data.Int32()
		pv.nvals = len(pv.idx)
		return nil
	}
	pv.data = p.Data()
	pv.nvals = conv.valueCount(pv.data, int(p.NumValues()-p.NumNulls()))
	return nil
}

// read decodes values [from, from+len(dst)) of the page into dst.
func (pv *pageValues) read(from int, dst []any, conv *leafConv, dc *dictCache) error {
	if from < 0 || from+len(dst) > pv.nvals {
		return fmt.Errorf("%w: column %s: page has %d values, %d needed", ErrCorrupt, conv.name, pv.nvals, from+len(dst))
	}
	if pv.idx != nil {
		return dc.lookup(pv.idx[from:from+len(dst)], dst, conv.name)
	}
	return conv.convert(pv.data, from, dst)
}

func (pv *pageValues) release() {
	if pv.page != nil {
		parquet.Release(pv.page)
		pv.page = nil
	}
	pv.data = encoding.Values{}
	pv.idx = nil
	pv.nvals = 0
}

// flatCursor streams one top-level primitive column (no repetition, at most
// one definition level) of the current row group into rows.
type flatCursor struct {
	out    int
	leaf   int
	maxDef byte
	conv   *leafConv
	pages  parquet.Pages
	pv     pageValues
	dict   dictCache
	defs   []byte
	// rows in the current page, next row in it, next value in it.
	rows, row, vi int
	buf           []any
}

func (c *flatCursor) start(rg parquet.RowGroup) {
	c.stop()
	c.pages = rg.ColumnChunks()[c.leaf].Pages()
}

func (c *flatCursor) stop() {
	c.pv.release()
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
	// Dictionaries belong to their column chunk (the library may recycle
	// them): never carry one over.
	c.dict = dictCache{}
	c.defs = nil
	c.rows, c.row, c.vi = 0, 0, 0
}

func (c *flatCursor) nextPage() error {
	c.pv.release()
	p, err := c.pages.ReadPage()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: column %s has fewer values than its row group has rows", ErrCorrupt, c.conv.name)
		}
		return err
	}
	if err := c.pv.open(p, c.conv, &c.dict); err != nil {
		return err
	}
	c.rows, c.row, c.vi = int(p.NumValues()), 0, 0
	c.defs = nil
	if c.maxDef > 0 {
		c.defs = p.DefinitionLevels()
		if len(c.defs) != c.rows {
			return fmt.Errorf("%w: column %s: page has %d definition levels for %d values", ErrCorrupt, c.conv.name, len(c.defs), c.rows)
		}
	}
	return nil
}

// runs walks the next k rows of the column page run by page run: for each
// run of m rows within one page it calls fn with the run's offset in the k
// rows, its definition levels (nil when the column has no NULLs) and the
// number nn of values it holds, then advances past them.
func (c *flatCursor) runs(k int, fn func(done, m int, defs []byte, nn int) error) error {
	for done := 0; done < k; {
		if c.row >= c.rows {
			if err := c.nextPage(); err != nil {
				return err
			}
			continue
		}
		m := min(k-done, c.rows-c.row)
		nn := m
		var defs []byte
		if c.maxDef > 0 {
			defs = c.defs[c.row : c.row+m]
			nn = 0
			for _, d := range defs {
				if d == c.maxDef {
					nn++
				}
			}
			if nn == m {
				// No NULL in the run: its values are copied as they are.
				defs = nil
			}
		}
		if err := fn(done, m, defs, nn); err != nil {
			return err
		}
		c.vi += nn
		c.row += m
		done += m
	}
	return nil
}

// fill sets column c.out of every row in rows.
func (c *flatCursor) fill(rows [][]any) error {
	return c.runs(len(rows), func(done, m int, defs []byte, nn int) error {
		if cap(c.buf) < nn {
			c.buf = make([]any, nn)
		}
		vals := c.buf[:nn]
		if err := c.pv.read(c.vi, vals, c.conv, &c.dict); err != nil {
			return err
		}
		out := c.out
		dst := rows[done : done+m]
		if defs == nil {
			for j, v := range vals {
				dst[j][out] = v
			}
		} else {
			v := 0
			for j, d := range defs {
				if d == c.maxDef {
					dst[j][out] = vals[v]
					v++
				} else {
					dst[j][out] = nil
				}
			}
		}
		clear(vals)
		return nil
	})
}
