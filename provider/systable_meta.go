package provider

import (
	"bytes"
	"errors"
	"slices"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/jackson"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// The system tables over table metadata other than manifests: $snapshots,
// $schemas, $options, $tags, $branches, $consumers. None of them honours
// AS OF (Java's ignore time travel too).

// utcMillis is an epoch-millisecond instant as a DATETIME(3) value in UTC.
func sysUTCMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// newSnapshotsTable mirrors SnapshotsTable: one row per snapshot file of the
// branch, ascending by id.
func newSnapshotsTable(e *sysTableEnv) (*sysTable, error) {
	cols := []sysColumn{
		{"snapshot_id", sysNotNull(pBigInt)},
		{"schema_id", sysNotNull(pBigInt)},
		{"commit_user", sysNotNull(pString)},
		{"commit_identifier", sysNotNull(pBigInt)},
		{"commit_kind", sysNotNull(pString)},
		{"commit_time", sysNotNull(pTimestamp)},
		{"base_manifest_list", sysNotNull(pString)},
		{"delta_manifest_list", sysNotNull(pString)},
		{"changelog_manifest_list", sysNullable(pString)},
		{"total_record_count", sysNullable(pBigInt)},
		{"delta_record_count", sysNullable(pBigInt)},
		{"changelog_record_count", sysNullable(pBigInt)},
		{"watermark", sysNullable(pBigInt)},
	}
	sm := e.lt.Snapshots()
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		ids, err := sm.List(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, 0, len(ids))
		for _, id := range ids {
			s, err := sm.Snapshot(ctx, id)
			if errors.Is(err, snapshot.ErrSnapshotNotFound) {
				continue // expired while listing
			}
			if err != nil {
				return nil, err
			}
			rows = append(rows, sql.Row{
				int64(s.ID), int64(s.SchemaID), s.CommitUser, s.CommitIdentifier, s.CommitKind.String(),
				sysUTCMillis(s.TimeMillis), s.BaseManifestList, s.DeltaManifestList, sysOptString(s.ChangelogManifestList),
				s.TotalRecordCount, s.DeltaRecordCount, sysOptInt64(s.ChangelogRecordCount), sysOptInt64(s.Watermark),
			})
		}
		return rows, nil
	})
}

// newSchemasTable mirrors SchemasTable: one row per schema file, with the
// fields, keys and options as flat JSON (JsonSerdeUtil.toFlatJson).
func newSchemasTable(e *sysTableEnv) (*sysTable, error) {
	cols := []sysColumn{
		{"schema_id", sysNotNull(pBigInt)},
		{"fields", sysNotNull(pString)},
		{"partition_keys", sysNotNull(pString)},
		{"primary_keys", sysNotNull(pString)},
		{"options", sysNotNull(pString)},
		{"comment", sysNullable(pString)},
		{"update_time", sysNotNull(pTimestamp)},
	}
	sm := e.lt.Schemas()
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		ids, err := sm.List(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, 0, len(ids))
		for _, id := range ids {
			s, err := sm.Schema(ctx, id)
			if err != nil {
				return nil, err
			}
			fields, err := sysFieldsJSON(s.Fields)
			if err != nil {
				return nil, err
			}
			rows = append(rows, sql.Row{
				int64(s.ID), fields, sysStringsJSON(s.PartitionKeys), sysStringsJSON(s.PrimaryKeys),
				sysOptionsJSON(s.Options), sysOptString(s.Comment), sysUTCMillis(s.TimeMillis),
			})
		}
		return rows, nil
	})
}

// newOptionsTable mirrors OptionsTable: the options of the latest schema.
func newOptionsTable(e *sysTableEnv) (*sysTable, error) {
	cols := []sysColumn{
		{"key", sysNotNull(pString)},
		{"value", sysNotNull(pString)},
	}
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		s, err := e.lt.LatestSchema(ctx)
		if err != nil {
			return nil, err
		}
		keys := sysOptionKeys(s.Options)
		rows := make([]sql.Row, len(keys))
		for i, k := range keys {
			rows[i] = sql.Row{k, s.Options[k]}
		}
		return rows, nil
	})
}

// newTagsTable mirrors TagsTable: one row per tag, by name.
func newTagsTable(e *sysTableEnv) (*sysTable, error) {
	cols := []sysColumn{
		{"tag_name", sysNotNull(pString)},
		{"snapshot_id", sysNotNull(pBigInt)},
		{"schema_id", sysNotNull(pBigInt)},
		{"commit_time", sysNotNull(pTimestamp)},
		{"record_count", sysNullable(pBigInt)},
		{"create_time", sysNullable(pTimestamp)},
		{"time_retained", sysNullable(pString)},
	}
	tm := e.lt.Tags()
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		names, err := tm.List(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, 0, len(names))
		for _, n := range names {
			t, err := tm.Get(ctx, n)
			if errors.Is(err, snapshot.ErrTagNotFound) {
				continue // deleted while listing
			}
			if err != nil {
				return nil, err
			}
			var create, retained any
			if t.TagCreateTime != nil {
				create = t.TagCreateTime.UTC() // a wall clock held in UTC
			}
			if t.TagTimeRetained != nil {
				retained = t.TimeRetainedString()
			}
			rows = append(rows, sql.Row{
				n, int64(t.ID), int64(t.SchemaID), sysUTCMillis(t.TimeMillis), t.TotalRecordCount, create, retained,
			})
		}
		return rows, nil
	})
}

// newBranchesTable mirrors BranchesTable: one row per branch besides main.
func newBranchesTable(e *sysTableEnv) (*sysTable, error) {
	cols := []sysColumn{
		{"branch_name", sysNotNull(pString)},
		{"create_time", sysNotNull(pTimestamp)},
	}
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		bs, err := e.lt.Branches().List(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, len(bs))
		for i, b := range bs {
			rows[i] = sql.Row{b.Name, b.CreateTime.UTC().Truncate(time.Millisecond)}
		}
		return rows, nil
	})
}

// newConsumersTable mirrors ConsumersTable: one row per consumer file.
func newConsumersTable(e *sysTableEnv) (*sysTable, error) {
	cols := []sysColumn{
		{"consumer_id", sysNotNull(pString)},
		{"next_snapshot_id", sysNotNull(pBigInt)},
	}
	cm := snapshot.NewConsumerManager(e.lt.Storage(), e.lt.BranchName())
	return e.table(cols, func(ctx *sql.Context) ([]sql.Row, error) {
		cs, err := cm.List(ctx)
		if err != nil {
			return nil, err
		}
		rows := make([]sql.Row, len(cs))
		for i, c := range cs {
			rows[i] = sql.Row{c.ID, int64(c.NextSnapshot)}
		}
		return rows, nil
	})
}

func sysOptString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func sysOptInt64(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

// optionKeys returns option keys in the iteration order of the Java HashMap
// that SchemaSerializer decodes options into.
func sysOptionKeys(o schema.Options) []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return schema.JavaHashMapOrder(keys)
}

// sysStringsJSON is a string list in Jackson's flat JSON (toFlatJson).
func sysStringsJSON(ss []string) string {
	w := jackson.NewCompact()
	w.BeginArray()
	for _, s := range ss {
		w.String(s)
	}
	w.EndArray()
	return string(w.Bytes())
}

// sysOptionsJSON is the options map in Jackson's flat JSON, keys in the
// order Java's HashMap iterates them.
func sysOptionsJSON(o schema.Options) string {
	w := jackson.NewCompact()
	w.BeginObject()
	for _, k := range sysOptionKeys(o) {
		w.Field(k)
		w.String(o[k])
	}
	w.EndObject()
	return string(w.Bytes())
}

func sysFieldsJSON(fs []schema.DataField) (string, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, f := range fs {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := f.MarshalJSON()
		if err != nil {
			return "", err
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.String(), nil
}
