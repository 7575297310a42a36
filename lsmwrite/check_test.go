package lsmwrite_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
)

func testSchema(pk, part []string, opts map[string]string) *schema.TableSchema {
	return &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "p", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 2, Name: "v", Type: schema.StringType()},
		},
		HighestFieldID: 2,
		PrimaryKeys:    pk,
		PartitionKeys:  part,
		Options:        opts,
	}
}

func TestCheckWritable(t *testing.T) {
	ok := []struct {
		name string
		s    *schema.TableSchema
	}{
		{"pk fixed", testSchema([]string{"k"}, nil, map[string]string{"bucket": "4"})},
		{"pk dynamic", testSchema([]string{"k", "p"}, []string{"p"}, map[string]string{})},
		{"pk input changelog", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "changelog-producer": "input"})},
		{"pk lookup changelog", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "changelog-producer": "lookup"})},
		{"pk full-compaction changelog", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "changelog-producer": "full-compaction"})},
		{"append unaware", testSchema(nil, []string{"p"}, map[string]string{})},
		{"append fixed", testSchema(nil, nil, map[string]string{"bucket": "2", "bucket-key": "k"})},
		{"partial-update", testSchema([]string{"k"}, nil, map[string]string{"bucket": "2", "merge-engine": "partial-update"})},
		{"copy on write", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "full-compaction.delta-commits": "1"})},
		{"full compaction every 3 commits, dynamic bucket", testSchema([]string{"k"}, nil, map[string]string{"full-compaction.delta-commits": "3"})},
		{"full compaction of a bucketed append table", testSchema(nil, nil, map[string]string{"bucket": "2", "bucket-key": "k", "full-compaction.delta-commits": "2"})},
		{"pk dv", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"})},
		{"pk dv 64", testSchema([]string{"k"}, nil, map[string]string{"bucket": "2", "deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true"})},
		{"pk dv dynamic", testSchema([]string{"k", "p"}, []string{"p"}, map[string]string{"deletion-vectors.enabled": "true", "merge-engine": "partial-update"})},
		{"first-row", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "merge-engine": "first-row"})},
		{"append dv", testSchema(nil, []string{"p"}, map[string]string{"deletion-vectors.enabled": "true"})},
		{"append bucketed dv", testSchema(nil, nil, map[string]string{"bucket": "2", "bucket-key": "k", "deletion-vectors.enabled": "true"})},
	}
	for _, c := range ok {
		if err := lsmwrite.CheckWritable(c.s); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	bad := []struct {
		name, option string
		s            *schema.TableSchema
	}{
		{"first-row dv", "deletion-vectors.enabled", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "merge-engine": "first-row", "deletion-vectors.enabled": "true"})},
		{"full compaction on an unaware append table", "full-compaction.delta-commits", testSchema(nil, nil, map[string]string{"full-compaction.delta-commits": "2"})},
		{"postpone", "bucket=-2", testSchema([]string{"k"}, nil, map[string]string{"bucket": "-2"})},
		{"orc", "file.format=orc", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "file.format": "orc"})},
		{"cross partition", "cross-partition", testSchema([]string{"k"}, []string{"p"}, map[string]string{})},
		{"append bucket without key", "bucket-key", testSchema(nil, nil, map[string]string{"bucket": "2"})},
		{"thin mode", "data-file.thin-mode", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "data-file.thin-mode": "true"})},
		{"bad stats mode", "fields.v.stats-mode", testSchema([]string{"k"}, nil, map[string]string{"bucket": "1", "fields.v.stats-mode": "some"})},
	}
	for _, c := range bad {
		err := lsmwrite.CheckWritable(c.s)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.option) {
			t.Errorf("%s: error does not name %s: %v", c.name, c.option, err)
		}
		if c.name != "bad stats mode" && !errors.Is(err, lsmwrite.ErrUnsupported) {
			t.Errorf("%s: not ErrUnsupported: %v", c.name, err)
		}
		if strings.Contains(c.option, "changelog-producer") || c.name == "lookup" || c.name == "postpone" {
			if !strings.Contains(err.Error(), "compaction") {
				t.Errorf("%s: error does not say compaction is needed: %v", c.name, err)
			}
		}
		st, err := storage.Open(context.Background(), "mem://")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lsmwrite.NewTableWrite(context.Background(), st, c.s, nil, lsmwrite.Options{}); err == nil {
			t.Errorf("%s: NewTableWrite accepted", c.name)
		}
	}
}
