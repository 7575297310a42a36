package lsmread

import (
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// Op is a comparison in a predicate leaf.
type Op uint8

// The comparison operators.
const (
	OpEq Op = iota
	OpNotEq
	OpLt
	OpLtEq
	OpGt
	OpGtEq
	OpIsNull
	OpIsNotNull
	OpIn
	OpNotIn
)

var opNames = [...]string{"=", "!=", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL", "IN", "NOT IN"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// Predicate is a filter over the table's columns (by index into the current
// schema's fields), used for partition pruning, statistics pruning and row
// filtering. It mirrors org.apache.paimon.predicate.Predicate.
type Predicate interface {
	fmt.Stringer
	isPredicate()
}

// Leaf compares one column with literals (in the schema value model).
type Leaf struct {
	Field    int    // index into TableSchema.Fields
	Name     string // for display
	Type     schema.DataType
	Op       Op
	Literals []any
	// set holds IN / NOT IN literals for constant-time tests (NewInLeaf);
	// nil tests them one by one.
	set *literalSet
}

// literalSet is a hash set of literals of one Go type whose == is the
// value order's equality (integers, strings, booleans, dates, timestamps).
type literalSet struct {
	m    map[any]struct{}
	kind uint8
}

// NewInLeaf returns the IN (or NOT IN) leaf of field over literals, with a
// hash set of the literals when there are many and their type allows one.
func NewInLeaf(field int, name string, typ schema.DataType, op Op, literals []any) Leaf {
	l := Leaf{Field: field, Name: name, Type: typ, Op: op, Literals: literals}
	if len(literals) < 8 {
		return l
	}
	set := &literalSet{m: make(map[any]struct{}, len(literals))}
	for i, v := range literals {
		k := setKind(v)
		if k == 0 || i > 0 && k != set.kind {
			return l
		}
		set.kind = k
		set.m[v] = struct{}{}
	}
	l.set = set
	return l
}

// setKind names the Go types a literalSet takes (0: none).
func setKind(v any) uint8 {
	switch v.(type) {
	case int8:
		return 1
	case int16:
		return 2
	case int32:
		return 3
	case int64:
		return 4
	case string:
		return 5
	case bool:
		return 6
	case schema.Date:
		return 7
	case schema.Timestamp:
		return 8
	}
	return 0
}

// And is a conjunction; an empty And is true.
type And []Predicate

// Or is a disjunction; an empty Or is false.
type Or []Predicate

func (Leaf) isPredicate() {}
func (And) isPredicate()  {}
func (Or) isPredicate()   {}

func (l Leaf) String() string {
	switch l.Op {
	case OpIsNull, OpIsNotNull:
		return l.Name + " " + l.Op.String()
	case OpIn, OpNotIn:
		const shown = 20
		parts := make([]string, 0, min(len(l.Literals), shown+1))
		for i, v := range l.Literals {
			if i == shown {
				parts = append(parts, fmt.Sprintf("… %d values", len(l.Literals)))
				break
			}
			parts = append(parts, fmt.Sprint(v))
		}
		return fmt.Sprintf("%s %s (%s)", l.Name, l.Op, strings.Join(parts, ", "))
	}
	var lit any
	if len(l.Literals) > 0 {
		lit = l.Literals[0]
	}
	return fmt.Sprintf("%s %s %v", l.Name, l.Op, lit)
}

func (a And) String() string { return join(a, " AND ") }
func (o Or) String() string  { return join(o, " OR ") }

func join[P ~[]Predicate](ps P, sep string) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = "(" + p.String() + ")"
	}
	return strings.Join(parts, sep)
}

// Tri is a three-valued truth: a predicate over partially known values.
type Tri int8

// The truth values.
const (
	False Tri = iota
	True
	Unknown
)

// Test evaluates p with value(field) giving a column's value and whether it is
// known. SQL semantics: a comparison with NULL is False (the row is filtered).
func Test(p Predicate, value func(field int) (any, bool)) Tri {
	switch p := p.(type) {
	case Leaf:
		v, ok := value(p.Field)
		if !ok {
			return Unknown
		}
		if testLeaf(&p, v) {
			return True
		}
		return False
	case And:
		res := True
		for _, c := range p {
			switch Test(c, value) {
			case False:
				return False
			case Unknown:
				res = Unknown
			}
		}
		return res
	case Or:
		res := False
		for _, c := range p {
			switch Test(c, value) {
			case True:
				return True
			case Unknown:
				res = Unknown
			}
		}
		return res
	}
	return Unknown
}

func testLeaf(l *Leaf, v any) bool {
	switch l.Op {
	case OpIsNull:
		return v == nil
	case OpIsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	switch l.Op {
	case OpIn, OpNotIn:
		if l.set != nil && setKind(v) == l.set.kind {
			_, found := l.set.m[v]
			return found == (l.Op == OpIn)
		}
		found := false
		for _, lit := range l.Literals {
			if lit != nil && schema.Compare(&l.Type, v, lit) == 0 {
				found = true
				break
			}
		}
		return found == (l.Op == OpIn)
	}
	if len(l.Literals) == 0 || l.Literals[0] == nil {
		return false
	}
	c := schema.Compare(&l.Type, v, l.Literals[0])
	switch l.Op {
	case OpEq:
		return c == 0
	case OpNotEq:
		return c != 0
	case OpLt:
		return c < 0
	case OpLtEq:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGtEq:
		return c >= 0
	}
	return false
}

// ColumnStats are a column's statistics over a set of rows (a file or a row
// group). Min and Max are nil when unknown; NullCount is -1 when unknown.
type ColumnStats struct {
	Min, Max  any
	NullCount int64
	RowCount  int64
}

// MayMatch reports whether any row summarised by stats can satisfy p.
// stats(field) returns false when the column has no statistics.
func MayMatch(p Predicate, stats func(field int) (ColumnStats, bool)) bool {
	switch p := p.(type) {
	case Leaf:
		s, ok := stats(p.Field)
		if !ok {
			return true
		}
		return leafMayMatch(&p, s)
	case And:
		for _, c := range p {
			if !MayMatch(c, stats) {
				return false
			}
		}
		return true
	case Or:
		for _, c := range p {
			if MayMatch(c, stats) {
				return true
			}
		}
		return len(p) == 0
	}
	return true
}

func leafMayMatch(l *Leaf, s ColumnStats) bool {
	allNull := s.NullCount >= 0 && s.RowCount >= 0 && s.NullCount == s.RowCount
	switch l.Op {
	case OpIsNull:
		return s.NullCount != 0
	case OpIsNotNull:
		return !allNull
	}
	if allNull {
		return false
	}
	if s.Min == nil || s.Max == nil {
		return true
	}
	cmp := func(a, b any) int { return schema.Compare(&l.Type, a, b) }
	switch l.Op {
	case OpIn:
		for _, lit := range l.Literals {
			if lit != nil && cmp(lit, s.Min) >= 0 && cmp(lit, s.Max) <= 0 {
				return true
			}
		}
		return false
	case OpNotIn:
		return true
	}
	if len(l.Literals) == 0 || l.Literals[0] == nil {
		return false
	}
	lit := l.Literals[0]
	switch l.Op {
	case OpEq:
		return cmp(lit, s.Min) >= 0 && cmp(lit, s.Max) <= 0
	case OpNotEq:
		return !(cmp(lit, s.Min) == 0 && cmp(lit, s.Max) == 0)
	case OpLt:
		return cmp(s.Min, lit) < 0
	case OpLtEq:
		return cmp(s.Min, lit) <= 0
	case OpGt:
		return cmp(s.Max, lit) > 0
	case OpGtEq:
		return cmp(s.Max, lit) >= 0
	}
	return true
}

// Fields returns the set of field indexes p refers to.
func Fields(p Predicate) map[int]bool {
	out := map[int]bool{}
	var walk func(Predicate)
	walk = func(p Predicate) {
		switch p := p.(type) {
		case Leaf:
			out[p.Field] = true
		case And:
			for _, c := range p {
				walk(c)
			}
		case Or:
			for _, c := range p {
				walk(c)
			}
		}
	}
	if p != nil {
		walk(p)
	}
	return out
}
