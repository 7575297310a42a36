package lsmread

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// StatsEvolution maps data files' value statistics (_VALUE_STATS) onto one
// read schema by field id (Java: SimpleStatsEvolution(s)): a file of an
// older schema has its statistics columns matched to the read fields by
// field id, dense statistics (_VALUE_STATS_COLS) are spread over the file
// schema's fields, a read field the file lacks has no bounds and a null
// count equal to the file's row count, and a field whose type changed has
// its bounds cast to the read type (a failed cast gives no bound). Scan
// pruning and the $files system table both read statistics through it.
//
// It caches one layout per (file schema, statistics columns); it is not
// safe for concurrent use.
type StatsEvolution struct {
	read    *schema.TableSchema
	schemas func(ctx context.Context, id schema.SchemaID) (*schema.TableSchema, error)
	layouts map[statsLayoutKey]*statsLayout
}

type statsLayoutKey struct {
	schema schema.SchemaID
	cols   string // "\x00all" or the dense columns joined by \x00
}

// statsLayout maps one file schema's statistics columns to the read fields.
type statsLayout struct {
	fileSch *schema.TableSchema
	// types are the statistics columns' types (nullable), in stats order.
	types []schema.DataType
	// cols are the statistics columns, in stats order.
	cols []schema.DataField
	// pos maps a read field index to its statistics column (by field id),
	// or -1 when the file has no statistics for it; fileField to its index
	// in the file schema (-1 when the file lacks the field).
	pos       []int
	fileField []int
	// sameType: the statistics column has the read field's type (ignoring
	// nullability), so its bounds are the read field's without a cast.
	sameType []bool
}

// NewStatsEvolution evolves statistics to read; schemas reads a file's
// schema by id.
func NewStatsEvolution(read *schema.TableSchema, schemas func(ctx context.Context, id schema.SchemaID) (*schema.TableSchema, error)) *StatsEvolution {
	return &StatsEvolution{read: read, schemas: schemas, layouts: map[statsLayoutKey]*statsLayout{}}
}

func (e *StatsEvolution) layout(ctx context.Context, f *manifest.DataFileMeta) (*statsLayout, error) {
	key := statsLayoutKey{schema: schema.SchemaID(f.SchemaID), cols: "\x00all"}
	if f.ValueStatsCols != nil {
		key.cols = strings.Join(f.ValueStatsCols, "\x00")
	}
	if l, ok := e.layouts[key]; ok {
		return l, nil
	}
	fs, err := e.schemas(ctx, key.schema)
	if err != nil {
		return nil, err
	}
	l := &statsLayout{fileSch: fs, cols: fs.Fields}
	if f.ValueStatsCols != nil {
		l.cols = make([]schema.DataField, len(f.ValueStatsCols))
		for i, n := range f.ValueStatsCols {
			fld, ok := fs.FieldByName(n)
			if !ok {
				return nil, fmt.Errorf("%w: stats column %q is not in schema %d", manifest.ErrCorrupt, n, fs.ID)
			}
			l.cols[i] = fld
		}
	}
	l.types = make([]schema.DataType, len(l.cols))
	for i := range l.cols {
		l.types[i] = l.cols[i].Type.WithNullable(true)
	}
	n := len(e.read.Fields)
	l.pos, l.fileField, l.sameType = make([]int, n), make([]int, n), make([]bool, n)
	for i := range e.read.Fields {
		rf := &e.read.Fields[i]
		l.pos[i], l.fileField[i] = -1, -1
		for j := range fs.Fields {
			if fs.Fields[j].ID == rf.ID {
				l.fileField[i] = j
			}
		}
		for j := range l.cols {
			if l.cols[j].ID == rf.ID {
				l.pos[i] = j
				l.sameType[i] = l.cols[j].Type.EqualIgnoreNullability(rf.Type)
			}
		}
	}
	e.layouts[key] = l
	return l, nil
}

// FileStats are one data file's value statistics, evolved to the read
// schema: one entry per read field.
type FileStats struct {
	// Arity is the number of statistics columns the file's stats row holds
	// (fewer than its schema's fields for an older or "none" stats mode).
	Arity int
	// Full reports whether the stats row holds every statistics column.
	Full   bool
	Fields []FieldStats
	// FileSchema is the schema the file was written with.
	FileSchema *schema.TableSchema
}

// FieldStats are one read field's statistics in one file.
type FieldStats struct {
	// InFile: the file's schema has the field (by field id).
	InFile bool
	// Known: the file's stats row holds the field's bounds and null count.
	Known bool
	// SameType: the bounds are of the read type without a cast.
	SameType bool
	// Min and Max are the bounds in the read type (nil: unknown or NULL).
	Min, Max any
	// NullCount is nil when unknown.
	NullCount *int64
}

// Evolve decodes f's value statistics and maps them onto the read schema;
// cast casts bounds of fields whose type changed (else they are left
// unknown). Undecodable statistics are an error wrapping the decoder's
// ErrCorrupt.
func (e *StatsEvolution) Evolve(ctx context.Context, f *manifest.DataFileMeta, cast bool) (*FileStats, error) {
	l, err := e.layout(ctx, f)
	if err != nil {
		return nil, err
	}
	mins, arity, err := binaryrow.DecodeSerializedPrefix(l.types, f.ValueStats.MinValues)
	if err != nil {
		return nil, err
	}
	maxs, maxArity, err := binaryrow.DecodeSerializedPrefix(l.types, f.ValueStats.MaxValues)
	if err != nil {
		return nil, err
	}
	arity = min(arity, maxArity)
	out := &FileStats{Arity: arity, Full: arity == len(l.types), Fields: make([]FieldStats, len(l.pos)), FileSchema: l.fileSch}
	rowCount := f.RowCount
	for i, j := range l.pos {
		fs := &out.Fields[i]
		fs.InFile = l.fileField[i] >= 0
		if !fs.InFile {
			fs.NullCount = &rowCount
			continue
		}
		if j < 0 || j >= arity {
			continue
		}
		fs.Known, fs.SameType = true, l.sameType[i]
		if j < len(f.ValueStats.NullCounts) {
			fs.NullCount = f.ValueStats.NullCounts[j]
		}
		fs.Min, fs.Max = mins[j], maxs[j]
		if !fs.SameType {
			if !cast {
				fs.Min, fs.Max = nil, nil
				continue
			}
			from, to := &l.cols[j].Type, &e.read.Fields[i].Type
			fs.Min, fs.Max = castOrNil(fs.Min, from, to), castOrNil(fs.Max, from, to)
		}
	}
	return out, nil
}

// castOrNil casts a statistics bound to the evolved type; a failed cast
// gives nil (an unknown bound).
func castOrNil(v any, from, to *schema.DataType) any {
	if v == nil {
		return nil
	}
	out, err := schema.CastValue(v, from, to)
	if err != nil {
		return nil
	}
	return out
}
