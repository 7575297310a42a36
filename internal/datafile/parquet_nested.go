package datafile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/schema"
)

// leafStream buffers the (repetition, definition, value) triplets of one
// leaf of a nested column and hands them out row by row.
type leafStream struct {
	leaf           int
	maxDef, maxRep byte
	// conv is nil for a probe leaf read only for its levels.
	conv  *leafConv
	name  string
	pages parquet.Pages
	pv    pageValues
	dict  dictCache
	eof   bool
	// Buffered triplets; vals[i] is set only when defs[i] == maxDef.
	reps, defs []byte
	vals       []any
	pos        int // first triplet of the next row
	scan       int // rows boundaries were searched up to here
	tmp        []any
}

func (s *leafStream) start(rg parquet.RowGroup) {
	s.stop()
	s.pages = rg.ColumnChunks()[s.leaf].Pages()
}

func (s *leafStream) stop() {
	s.pv.release()
	if s.pages != nil {
		s.pages.Close()
		s.pages = nil
	}
	// Dictionaries belong to their column chunk (the library may recycle
	// them): never carry one over.
	s.dict = dictCache{}
	s.eof = false
	clear(s.vals)
	s.reps, s.defs, s.vals = s.reps[:0], s.defs[:0], s.vals[:0]
	s.pos, s.scan = 0, 0
}

// loadPage appends the triplets of the next page; at the end of the column
// chunk it sets eof.
func (s *leafStream) loadPage() error {
	// Drop consumed triplets first.
	if s.pos > 0 {
		n := copy(s.reps, s.reps[s.pos:])
		copy(s.defs, s.defs[s.pos:])
		copy(s.vals, s.vals[s.pos:])
		clear(s.vals[n:])
		s.reps, s.defs, s.vals = s.reps[:n], s.defs[:n], s.vals[:n]
		s.scan -= s.pos
		s.pos = 0
	}
	p, err := s.pages.ReadPage()
	if err != nil {
		if errors.Is(err, io.EOF) {
			s.eof = true
			return nil
		}
		return err
	}
	defer parquet.Release(p)
	n := int(p.NumValues())
	reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
	if (s.maxRep > 0 && len(reps) != n) || (s.maxDef > 0 && len(defs) != n) {
		return fmt.Errorf("%w: column %s: page levels do not match its %d values", ErrCorrupt, s.name, n)
	}
	nn := 0
	for i := range n {
		r, d := byte(0), s.maxDef
		if s.maxRep > 0 {
			r = reps[i]
		}
		if s.maxDef > 0 {
			d = defs[i]
		}
		if r > s.maxRep || d > s.maxDef {
			return fmt.Errorf("%w: column %s: level out of range", ErrCorrupt, s.name)
		}
		if d == s.maxDef {
			nn++
		}
		s.reps = append(s.reps, r)
		s.defs = append(s.defs, d)
	}
	base := len(s.vals)
	s.vals = append(s.vals, make([]any, n)...)
	if s.conv == nil || nn == 0 {
		return nil
	}
	if err := s.pv.open(p, s.conv, &s.dict); err != nil {
		return err
	}
	s.pv.page = nil // released by the defer above
	if cap(s.tmp) < nn {
		s.tmp = make([]any, nn)
	}
	tmp := s.tmp[:nn]
	if err := s.pv.read(0, tmp, s.conv, &s.dict); err != nil {
		return err
	}
	j := 0
	for i := range n {
		if s.defs[base+i] == s.maxDef {
			s.vals[base+i] = tmp[j]
			j++
		}
	}
	clear(tmp)
	return nil
}

// nextRow returns the triplet range [lo, hi) of the next row.
func (s *leafStream) nextRow() (lo, hi int, err error) {
	for {
		if s.pos < len(s.reps) {
			if s.reps[s.pos] != 0 {
				return 0, 0, fmt.Errorf("%w: column %s: row starts with repetition level %d", ErrCorrupt, s.name, s.reps[s.pos])
			}
			if s.maxRep == 0 {
				s.pos++
				return s.pos - 1, s.pos, nil
			}
			i := max(s.scan, s.pos+1)
			for ; i < len(s.reps); i++ {
				if s.reps[i] == 0 {
					lo = s.pos
					s.pos, s.scan = i, i
					return lo, i, nil
				}
			}
			s.scan = i
			if s.eof {
				lo = s.pos
				s.pos = len(s.reps)
				return lo, s.pos, nil
			}
		} else if s.eof {
			return 0, 0, fmt.Errorf("%w: column %s has fewer values than its row group has rows", ErrCorrupt, s.name)
		}
		if err := s.loadPage(); err != nil {
			return 0, 0, err
		}
	}
}

type asmKind uint8

const (
	asmLeaf asmKind = iota + 1
	asmRow
	asmList
	asmMap
)

// asmNode is one level of a nested column's assembly plan.
type asmNode struct {
	kind     asmKind
	optional bool
	// def is the definition level at which this node is non-null.
	def int
	// repLevel and repDef are the levels of the repeated group of a list or
	// map: a new element starts at repetition level <= repLevel, and the
	// list is empty when the definition level is below repDef.
	repLevel, repDef int
	// stream is the leaf's stream (asmLeaf); first is the first stream
	// under the node, used to read its levels.
	stream, first int
	// children: ROW fields (nil when absent from the file), the ARRAY
	// element, or the MAP key and value.
	children []*asmNode
	// under lists the streams below this node.
	under []int
}

type span struct{ lo, hi int }

// nestedColumn assembles one top-level nested column.
type nestedColumn struct {
	out     int
	root    *asmNode
	streams []*leafStream
	spans   []span
}

func (c *nestedColumn) start(rg parquet.RowGroup) {
	for _, s := range c.streams {
		s.start(rg)
	}
}

func (c *nestedColumn) stop() {
	for _, s := range c.streams {
		s.stop()
	}
}

func (c *nestedColumn) fill(rows [][]any) error {
	if c.spans == nil {
		c.spans = make([]span, len(c.streams))
	}
	for _, row := range rows {
		for i, s := range c.streams {
			lo, hi, err := s.nextRow()
			if err != nil {
				return err
			}
			c.spans[i] = span{lo, hi}
		}
		v, err := c.build(c.root, c.spans)
		if err != nil {
			return err
		}
		row[c.out] = v
	}
	return nil
}

func (c *nestedColumn) build(n *asmNode, sp []span) (any, error) {
	s := c.streams[n.first]
	at := sp[n.first]
	if at.lo >= at.hi {
		return nil, fmt.Errorf("%w: column %s: missing levels", ErrCorrupt, s.name)
	}
	d := int(s.defs[at.lo])
	if n.optional && d < n.def {
		return nil, nil
	}
	switch n.kind {
	case asmLeaf:
		ls := c.streams[n.stream]
		at := sp[n.stream]
		if at.hi-at.lo != 1 {
			return nil, fmt.Errorf("%w: column %s: %d values where one was expected", ErrCorrupt, ls.name, at.hi-at.lo)
		}
		return ls.vals[at.lo], nil
	case asmRow:
		out := make([]any, len(n.children))
		for i, ch := range n.children {
			if ch == nil {
				continue
			}
			v, err := c.build(ch, sp)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	// ARRAY or MAP.
	if d < n.repDef {
		if n.kind == asmMap {
			return schema.Map{Keys: []any{}, Values: []any{}}, nil
		}
		return []any{}, nil
	}
	elems, err := c.split(n, sp)
	if err != nil {
		return nil, err
	}
	if n.kind == asmList {
		out := make([]any, len(elems))
		for i, e := range elems {
			if out[i], err = c.build(n.children[0], e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	m := schema.Map{Keys: make([]any, len(elems)), Values: make([]any, len(elems))}
	for i, e := range elems {
		if n.children[0] != nil {
			if m.Keys[i], err = c.build(n.children[0], e); err != nil {
				return nil, err
			}
		}
		if n.children[1] != nil {
			if m.Values[i], err = c.build(n.children[1], e); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// split cuts the spans of every stream under a list or map into one span set
// per element.
func (c *nestedColumn) split(n *asmNode, sp []span) ([][]span, error) {
	var elems [][]span
	for k, si := range n.under {
		s := c.streams[si]
		at := sp[si]
		e := 0
		lo := at.lo
		for i := at.lo + 1; i <= at.hi; i++ {
			if i < at.hi && int(s.reps[i]) > n.repLevel {
				continue
			}
			if k == 0 {
				es := make([]span, len(sp))
				elems = append(elems, es)
			} else if e >= len(elems) {
				return nil, fmt.Errorf("%w: column %s: leaves disagree on element count", ErrCorrupt, s.name)
			}
			elems[e][si] = span{lo, i}
			e++
			lo = i
		}
		if e != len(elems) {
			return nil, fmt.Errorf("%w: column %s: leaves disagree on element count", ErrCorrupt, s.name)
		}
	}
	return elems, nil
}
