package lsmread

import (
	"context"
	"errors"
	"io"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// LookupKey returns the current row of one primary key at the latest
// snapshot: the key is the primary-key fields of row, a whole row of schema
// sch (a NULL key field matches NULL). The scan is pruned to the key's
// partition and to the files whose key range holds it, and merged on read;
// found is nil when the key has no row. The plan is returned for its
// snapshot.
func (t *Table) LookupKey(ctx context.Context, sch *schema.TableSchema, row []any) (found []any, plan *Plan, err error) {
	var and And
	for _, i := range kv.KeyIndexes(sch) {
		f := sch.Fields[i]
		if row[i] == nil {
			and = append(and, Leaf{Field: i, Name: f.Name, Type: f.Type, Op: OpIsNull})
		} else {
			and = append(and, Leaf{Field: i, Name: f.Name, Type: f.Type, Op: OpEq, Literals: []any{row[i]}})
		}
	}
	p, err := t.Plan(ctx, ScanSpec{Filter: and})
	if err != nil {
		return nil, nil, err
	}
	r, err := p.NewReader()
	if err != nil {
		return nil, nil, err
	}
	for _, split := range p.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			return nil, nil, err
		}
		for {
			x, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return nil, nil, err
			}
			found = x
		}
		if err := it.Close(); err != nil {
			return nil, nil, err
		}
	}
	return found, p, nil
}
