package datafile

import (
	"fmt"

	"github.com/parquet-go/parquet-go/format"
)

// maxSchemaDepth bounds the nesting of a Parquet schema we accept, so that a
// hostile footer cannot exhaust the stack.
const maxSchemaDepth = 64

// pqNode is one element of a file's Parquet schema, as a tree.
type pqNode struct {
	elem     *format.SchemaElement
	children []*pqNode
	// leaf is the column chunk index of a primitive node, -1 for groups.
	leaf int
	// maxDef and maxRep are the definition and repetition levels reached at
	// this node (counting this node).
	maxDef, maxRep int
}

func (n *pqNode) name() string { return n.elem.Name }

func (n *pqNode) isLeaf() bool { return n.leaf >= 0 }

func (n *pqNode) repetition() format.FieldRepetitionType {
	if r, ok := n.elem.RepetitionType.Get(); ok {
		return r
	}
	return format.Required
}

func (n *pqNode) optional() bool { return n.repetition() == format.Optional }
func (n *pqNode) repeated() bool { return n.repetition() == format.Repeated }

func (n *pqNode) physical() format.Type { return n.elem.Type.V }

func (n *pqNode) converted() (int32, bool) {
	c, ok := n.elem.ConvertedType.Get()
	return int32(c), ok
}

// buildSchemaTree turns the flattened footer schema into a tree and numbers
// the leaves in depth-first order (the order of the column chunks).
func buildSchemaTree(elems []format.SchemaElement) (*pqNode, int, error) {
	if len(elems) == 0 {
		return nil, 0, fmt.Errorf("%w: parquet footer has an empty schema", ErrCorrupt)
	}
	pos, leaves := 0, 0
	var build func(depth, def, rep int) (*pqNode, error)
	build = func(depth, def, rep int) (*pqNode, error) {
		if depth > maxSchemaDepth {
			return nil, fmt.Errorf("%w: parquet schema nested deeper than %d", ErrCorrupt, maxSchemaDepth)
		}
		if pos >= len(elems) {
			return nil, fmt.Errorf("%w: parquet schema ends early", ErrCorrupt)
		}
		e := &elems[pos]
		pos++
		n := &pqNode{elem: e, leaf: -1}
		if depth > 0 {
			switch n.repetition() {
			case format.Optional:
				def++
			case format.Repeated:
				def++
				rep++
			}
		}
		n.maxDef, n.maxRep = def, rep
		nc, isGroup := e.NumChildren.Get()
		if depth == 0 || (isGroup && !e.Type.Valid) || (isGroup && nc > 0) {
			if nc < 0 || int(nc) > len(elems)-pos {
				return nil, fmt.Errorf("%w: parquet schema element %q has %d children", ErrCorrupt, e.Name, nc)
			}
			n.children = make([]*pqNode, 0, nc)
			for i := 0; i < int(nc); i++ {
				c, err := build(depth+1, def, rep)
				if err != nil {
					return nil, err
				}
				n.children = append(n.children, c)
			}
			return n, nil
		}
		if !e.Type.Valid {
			return nil, fmt.Errorf("%w: parquet schema leaf %q has no type", ErrCorrupt, e.Name)
		}
		n.leaf = leaves
		leaves++
		return n, nil
	}
	root, err := build(0, 0, 0)
	if err != nil {
		return nil, 0, err
	}
	if pos != len(elems) {
		return nil, 0, fmt.Errorf("%w: parquet schema has %d trailing elements", ErrCorrupt, len(elems)-pos)
	}
	return root, leaves, nil
}

// findField locates a requested field among the children of a group: by
// field id when the group's fields carry ids, else by name. A single field
// with id 0 (ambiguous: 0 is also "no id") matches by name first, then by id.
func findField(parent *pqNode, id int, name string) *pqNode {
	hasIDs := false
	for _, c := range parent.children {
		if c.elem.FieldID != 0 {
			hasIDs = true
			break
		}
	}
	if hasIDs {
		for _, c := range parent.children {
			if int(c.elem.FieldID) == id {
				return c
			}
		}
		return nil
	}
	for _, c := range parent.children {
		if c.name() == name {
			return c
		}
	}
	if id == 0 && len(parent.children) == 1 {
		return parent.children[0]
	}
	return nil
}

// leafNodes appends every leaf under n, in column order.
func leafNodes(n *pqNode, out []*pqNode) []*pqNode {
	if n.isLeaf() {
		return append(out, n)
	}
	for _, c := range n.children {
		out = leafNodes(c, out)
	}
	return out
}
