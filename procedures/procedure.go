package procedures

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Param declares one parameter of a procedure: its name as Paimon's Spark
// procedures spell it, other spellings Paimon's Flink procedures use, its
// type, and whether it is required.
type Param struct {
	Name     string
	Aliases  []string
	Type     ParamType
	Required bool
}

// Privilege is a table privilege a procedure needs on its table (besides
// EXECUTE, which every CALL needs).
type Privilege uint8

const (
	PrivSelect Privilege = iota + 1
	PrivInsert
	PrivUpdate
	PrivDelete
	PrivAlter
)

// Procedure is one CALL sys.<Name> procedure.
type Procedure struct {
	Name   string
	Params []Param
	// Privileges are the table privileges the caller needs on the table
	// named by the "table" argument.
	Privileges []Privilege
	// Run executes the call with bound arguments.
	Run func(ctx context.Context, env *Env, args Args) (*Result, error)
}

// QualifiedName is "sys.<name>".
func (p *Procedure) QualifiedName() string { return "sys." + p.Name }

// Signature lists the parameters for messages: "table, tag[, snapshot]…".
func (p *Procedure) Signature() string {
	var b strings.Builder
	for i, prm := range p.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if !prm.Required {
			b.WriteString("[")
		}
		b.WriteString(prm.Name)
		if !prm.Required {
			b.WriteString("]")
		}
	}
	return b.String()
}

// param finds a parameter by name or alias, case-insensitively.
func (p *Procedure) param(name string) (int, bool) {
	for i, prm := range p.Params {
		if strings.EqualFold(prm.Name, name) {
			return i, true
		}
		for _, a := range prm.Aliases {
			if strings.EqualFold(a, name) {
				return i, true
			}
		}
	}
	return 0, false
}

// Args are the bound arguments of a call: the Go value (string, int64 or
// bool) of each parameter given a non-NULL value, by canonical name.
type Args struct {
	vals map[string]any
}

// Has reports whether parameter name was given a non-NULL value.
func (a Args) Has(name string) bool { _, ok := a.vals[name]; return ok }

// String returns a STRING argument; ok is false when it was not given.
func (a Args) String(name string) (s string, ok bool) {
	s, ok = a.vals[name].(string)
	return s, ok
}

// Int returns an INT or BIGINT argument; ok is false when it was not given.
func (a Args) Int(name string) (n int64, ok bool) {
	n, ok = a.vals[name].(int64)
	return n, ok
}

// Bool returns a BOOLEAN argument; ok is false when it was not given.
func (a Args) Bool(name string) (b bool, ok bool) {
	b, ok = a.vals[name].(bool)
	return b, ok
}

// Bind matches the arguments of a call to the procedure's parameters, as
// Paimon's Spark resolver does, and converts their values: positional
// arguments fill the parameters in order, named ones (by name or alias,
// case-insensitively) after them; no argument may be given twice, every
// required parameter needs a non-NULL value.
func (p *Procedure) Bind(args []Arg) (Args, error) {
	out := Args{vals: map[string]any{}}
	given := make([]bool, len(p.Params))
	named := false
	for n, a := range args {
		var i int
		if a.Name == "" {
			if named {
				return Args{}, fmt.Errorf("%w: %s: positional argument %d follows a named argument", ErrUnknownArgument, p.QualifiedName(), n+1)
			}
			if n >= len(p.Params) {
				return Args{}, fmt.Errorf("%w: %s takes at most %d arguments (%s), got %d",
					ErrArgumentCount, p.QualifiedName(), len(p.Params), p.Signature(), len(args))
			}
			i = n
		} else {
			named = true
			var ok bool
			if i, ok = p.param(a.Name); !ok {
				return Args{}, fmt.Errorf("%w: %s has no argument '%s' (arguments: %s)", ErrUnknownArgument, p.QualifiedName(), a.Name, p.Signature())
			}
		}
		prm := p.Params[i]
		if given[i] {
			return Args{}, fmt.Errorf("%w: %s: argument '%s' is given twice", ErrUnknownArgument, p.QualifiedName(), prm.Name)
		}
		given[i] = true
		if a.Value.Kind == KindNull {
			continue
		}
		v, err := prm.Type.convert(a.Value)
		if err != nil {
			return Args{}, badValue(prm.Name, a.Value.String(), "%s: %v", prm.Type, err)
		}
		out.vals[prm.Name] = v
	}
	var missing []string
	for _, prm := range p.Params {
		if _, ok := out.vals[prm.Name]; prm.Required && !ok {
			missing = append(missing, prm.Name)
		}
	}
	if len(missing) > 0 {
		return Args{}, fmt.Errorf("%w: %s needs %s (arguments: %s)", ErrArgumentCount, p.QualifiedName(), strings.Join(missing, ", "), p.Signature())
	}
	return out, nil
}

// BadValueError is an argument value that cannot be used (ErrBadValue).
type BadValueError struct {
	Param, Value, Reason string
}

func (e *BadValueError) Error() string {
	return fmt.Sprintf("argument '%s' can't be set to the value of '%s': %s", e.Param, e.Value, e.Reason)
}

func (e *BadValueError) Unwrap() error { return ErrBadValue }

func badValue(param, value, format string, args ...any) error {
	return &BadValueError{Param: param, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// ColumnType is the SQL type of a result column.
type ColumnType uint8

const (
	ColString ColumnType = iota
	ColInt64
	ColBool
)

// Column is one column of a procedure's result.
type Column struct {
	Name string
	Type ColumnType
}

// Result is what a procedure returns to the client: one result set whose
// rows hold string, int64 or bool values (nil for NULL).
type Result struct {
	Columns []Column
	Rows    [][]any
}

// Env is what a procedure runs against.
type Env struct {
	Catalog Catalog
	// CurrentDB is the session's database, for a table argument without
	// one ("" when none is selected).
	CurrentDB string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Registry is the set of procedures a server offers, by name.
type Registry struct {
	procs map[string]*Procedure
}

// NewRegistry returns a registry of procs.
func NewRegistry(procs ...*Procedure) *Registry {
	r := &Registry{procs: map[string]*Procedure{}}
	for _, p := range procs {
		r.procs[p.Name] = p
	}
	return r
}

// Lookup finds a procedure by name (case-insensitively); an unknown name
// gives an error wrapping ErrUnknownProcedure.
func (r *Registry) Lookup(name string) (*Procedure, error) {
	if p, ok := r.procs[strings.ToLower(name)]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w: PROCEDURE sys.%s does not exist (lakesql has %s)", ErrUnknownProcedure, name, strings.Join(r.Names(), ", "))
}

// Names lists the procedure names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.procs))
	for n := range r.procs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
