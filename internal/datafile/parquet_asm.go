package datafile

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// addStream registers a leaf stream and returns its index.
func (c *nestedColumn) addStream(n *pqNode, conv *leafConv, name string) int {
	c.streams = append(c.streams, &leafStream{
		leaf: n.leaf, maxDef: byte(n.maxDef), maxRep: byte(n.maxRep), conv: conv, name: name,
	})
	return len(c.streams) - 1
}

// asm builds the assembly plan of node n read as type t. asElement is set
// when n is the repeated node of a legacy 2-level list standing for its own
// element (never null).
func (c *nestedColumn) asm(n *pqNode, t schema.DataType, name string, asElement bool) (*asmNode, error) {
	a := &asmNode{optional: n.optional() && !asElement, def: n.maxDef}
	firstStream := len(c.streams)
	switch t.Root {
	case schema.TypeRow:
		if n.isLeaf() {
			return nil, fmt.Errorf("%w: column %s: parquet primitive cannot be read as ROW", ErrTypeMismatch, name)
		}
		a.kind = asmRow
		a.children = make([]*asmNode, len(t.Fields))
		for i, f := range t.Fields {
			ch := findField(n, f.ID, f.Name)
			if ch == nil {
				continue
			}
			sub, err := c.asm(ch, f.Type, name+"."+f.Name, false)
			if err != nil {
				return nil, err
			}
			a.children[i] = sub
		}
		if len(c.streams) == firstStream {
			// No field of the row is in the file: read one leaf for its
			// levels only, to tell a null row from a row of nulls.
			leaves := leafNodes(n, nil)
			if len(leaves) == 0 {
				return nil, fmt.Errorf("%w: column %s: group without leaves", ErrCorrupt, name)
			}
			c.addStream(leaves[0], nil, name)
		}
	case schema.TypeArray:
		if t.Elem == nil {
			return nil, fmt.Errorf("%w: column %s: ARRAY without element type", ErrTypeMismatch, name)
		}
		a.kind = asmList
		var elem *pqNode
		elemIsRepeated := false
		switch {
		case n.repeated() && !asElement:
			// Unannotated repeated field: a list that is never null.
			a.optional = false
			a.def = n.maxDef - 1
			a.repLevel, a.repDef = n.maxRep, n.maxDef
			elem, elemIsRepeated = n, true
		case !n.isLeaf() && len(n.children) == 1 && n.children[0].repeated():
			r := n.children[0]
			a.repLevel, a.repDef = r.maxRep, r.maxDef
			if r.isLeaf() || len(r.children) > 1 || r.name() == "array" || r.name() == n.name()+"_tuple" {
				elem, elemIsRepeated = r, true
			} else {
				elem = r.children[0]
			}
		default:
			return nil, fmt.Errorf("%w: column %s: parquet node %q is not a LIST", ErrTypeMismatch, name, n.name())
		}
		sub, err := c.asm(elem, *t.Elem, name+".element", elemIsRepeated)
		if err != nil {
			return nil, err
		}
		a.children = []*asmNode{sub}
	case schema.TypeMap, schema.TypeMultiset:
		keyType, valType := t.Key, t.Value
		if t.Root == schema.TypeMultiset {
			keyType, valType = t.Elem, &schema.DataType{Root: schema.TypeInt}
		}
		if keyType == nil || valType == nil {
			return nil, fmt.Errorf("%w: column %s: %s without key or value type", ErrTypeMismatch, name, typeName(t))
		}
		if n.isLeaf() || len(n.children) != 1 || !n.children[0].repeated() || n.children[0].isLeaf() ||
			len(n.children[0].children) == 0 || len(n.children[0].children) > 2 {
			return nil, fmt.Errorf("%w: column %s: parquet node %q is not a MAP", ErrTypeMismatch, name, n.name())
		}
		a.kind = asmMap
		kv := n.children[0]
		a.repLevel, a.repDef = kv.maxRep, kv.maxDef
		a.children = make([]*asmNode, 2)
		k, err := c.asm(kv.children[0], *keyType, name+".key", false)
		if err != nil {
			return nil, err
		}
		a.children[0] = k
		if len(kv.children) == 2 {
			v, err := c.asm(kv.children[1], *valType, name+".value", false)
			if err != nil {
				return nil, err
			}
			a.children[1] = v
		}
	default:
		if !n.isLeaf() {
			return nil, fmt.Errorf("%w: column %s: parquet group cannot be read as %s", ErrTypeMismatch, name, typeName(t))
		}
		conv, err := newLeafConv(n, t, name)
		if err != nil {
			return nil, err
		}
		a.kind = asmLeaf
		a.stream = c.addStream(n, conv, name)
	}
	a.first = firstStream
	for i := firstStream; i < len(c.streams); i++ {
		a.under = append(a.under, i)
	}
	return a, nil
}
