package lsmwrite

import (
	"bytes"
	"fmt"

	"github.com/lakesql/lakesql/snapshot"
)

// overwriteSpec says which partitions an INSERT OVERWRITE replaces.
type overwriteSpec struct {
	// static partitions named by the statement (PARTITION (...)); nil when
	// none were named.
	static [][]byte
	// dynamic replaces the partitions the statement wrote rows to (Paimon's
	// dynamic-partition-overwrite, the default).
	dynamic bool
}

// SetOverwrite makes Commit an OVERWRITE: the live files of the replaced
// partitions are deleted in the same snapshot as the new files are added.
// static lists partitions (values of the partition keys, in order) to
// replace even if no row is written to them; with dynamic, the partitions
// rows were written to are replaced too. An unpartitioned table is always
// replaced whole.
func (w *TableWrite) SetOverwrite(static [][]any, dynamic bool) error {
	o := &overwriteSpec{dynamic: dynamic}
	if static != nil {
		o.static = [][]byte{}
	}
	for _, vals := range static {
		enc, err := w.partWriter.EncodeSerialized(vals)
		if err != nil {
			return fmt.Errorf("lsmwrite: overwrite partition %v: %w", vals, err)
		}
		o.static = append(o.static, bytes.Clone(enc))
	}
	w.overwrite = o
	return nil
}

func (w *TableWrite) applyOverwrite(ch *snapshot.CommitChanges) {
	o := w.overwrite
	if o == nil {
		return
	}
	ch.Kind = snapshot.CommitKindOverwrite
	if len(w.partFields) == 0 || (!o.dynamic && o.static == nil) {
		ch.OverwritePartitions = [][]byte{} // the whole table
		return
	}
	seen := map[string]bool{}
	parts := [][]byte{}
	add := func(p []byte) {
		if !seen[string(p)] {
			seen[string(p)] = true
			parts = append(parts, p)
		}
	}
	for _, p := range o.static {
		add(p)
	}
	if o.dynamic {
		for _, p := range w.partOrder {
			add([]byte(p.row))
		}
	}
	if len(parts) == 0 {
		ch.OverwritePartitions = nil // nothing to replace
		if len(ch.Entries) == 0 {
			ch.Kind = snapshot.CommitKindAppend
		}
		return
	}
	ch.OverwritePartitions = parts
}

// replaces reports whether the commit replaces the partition row: then its
// live files are deleted and, as in Java (ignorePreviousFiles), their
// bucket count does not constrain the new files.
func (w *TableWrite) replaces(row []byte) bool {
	o := w.overwrite
	switch {
	case o == nil:
		return false
	case len(w.partFields) == 0 || o.dynamic || o.static == nil:
		return true
	}
	for _, p := range o.static {
		if bytes.Equal(p, row) {
			return true
		}
	}
	return false
}
