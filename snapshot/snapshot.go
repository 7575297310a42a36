package snapshot

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/lakesql/lakesql/internal/jackson"
	"github.com/lakesql/lakesql/internal/schema"
)

// CurrentSnapshotVersion is the snapshot format version Java Paimon 1.x
// writes (Snapshot.CURRENT_VERSION).
const CurrentSnapshotVersion = 3

// BatchCommitIdentifier is the commitIdentifier of batch (non-streaming)
// writes: Long.MAX_VALUE (BatchWriteBuilder.COMMIT_IDENTIFIER).
const BatchCommitIdentifier int64 = 1<<63 - 1

// Snapshot mirrors org.apache.paimon.Snapshot (paimon-api), the JSON file
// snapshot/snapshot-<id>. Nullable Java fields are pointers (nil = null);
// LogOffsets and Properties are nil when absent.
//
// A Snapshot returned by DecodeSnapshot remembers the layout of its file:
// the order of its keys, keys that were absent or explicitly null, and
// fields this package does not know. EncodeSnapshot then reproduces the
// file byte for byte when nothing changed, and keeps unknown fields in
// place when something did. A Snapshot built in Go is written the way Java
// Paimon 1.3 writes it.
type Snapshot struct {
	// Version is the snapshot format version; CurrentSnapshotVersion for
	// new snapshots, 1 when the file has none (Paimon <= 0.2).
	Version int32
	// UUID is written by Paimon 2.x only.
	UUID *string
	// ID is the snapshot id, the N of snapshot-N.
	ID SnapshotID
	// SchemaID is the latest schema id at commit time.
	SchemaID schema.SchemaID
	// BaseManifestList names (file name, not path) the manifest list of
	// every file live before this commit.
	BaseManifestList string
	// BaseManifestListSize is its size in bytes (Paimon >= 1.0).
	BaseManifestListSize *int64
	// DeltaManifestList names the manifest list of this commit's changes.
	DeltaManifestList string
	// DeltaManifestListSize is its size in bytes (Paimon >= 1.0).
	DeltaManifestListSize *int64
	// ChangelogManifestList names the manifest list of this commit's
	// changelog files; nil when there are none (written as null).
	ChangelogManifestList *string
	// ChangelogManifestListSize is its size in bytes.
	ChangelogManifestListSize *int64
	// IndexManifest names the index manifest (all live index files); nil
	// when the table has no index file.
	IndexManifest *string
	// CommitUser is the writer's commit user, usually a UUID.
	CommitUser string
	// WriterVersion is written by Paimon 2.x only.
	WriterVersion *string
	// CommitIdentifier is the streaming checkpoint id, or
	// BatchCommitIdentifier for batch writes.
	CommitIdentifier int64
	// CommitKind says what the commit did.
	CommitKind CommitKind
	// TimeMillis is the commit wall-clock time, epoch milliseconds.
	TimeMillis int64
	// LogOffsets are the log-system offsets by bucket (removed in 1.4; Java
	// 1.3 writes an empty map "{ }"). nil = absent.
	LogOffsets map[int32]int64
	// TotalRecordCount is the row count of all live data files.
	TotalRecordCount int64
	// DeltaRecordCount is rows added minus rows deleted by this commit.
	DeltaRecordCount int64
	// ChangelogRecordCount is the row count of this commit's changelog
	// files (Java writes 0 when there are none).
	ChangelogRecordCount *int64
	// Watermark is the input watermark, if any.
	Watermark *int64
	// Statistics names the statistics file (statistics/stat-...), if any.
	Statistics *string
	// Properties are free-form snapshot properties (Paimon >= 1.2).
	Properties map[string]string
	// NextRowID is the next row id for row tracking (Paimon >= 1.3).
	NextRowID *int64
	// Operation is written by Paimon 2.x only (WRITE, OVERWRITE, ...).
	Operation *string

	// layout remembers how the decoded file looked; nil for snapshots
	// built in Go.
	layout *jsonLayout
}

// jsonLayout is what a decoded metadata object remembers about its file.
type jsonLayout struct {
	// order lists every key once, in file order.
	order []string
	// explicitNull holds the known keys whose value was null.
	explicitNull map[string]bool
	// extras holds the values of unknown keys.
	extras map[string]jackson.Node
	// raw holds the original value of known fields whose text is not
	// canonical (maps, dates); it is re-emitted while the field still
	// equals rawEq's argument.
	raw map[string]rawField
}

type rawField struct {
	value jackson.Node
	// same reports whether the field's current value is still the one
	// decoded from value.
	same func(t *Tag) bool
}

func (l *jsonLayout) has(key string) bool { return l != nil && slices.Contains(l.order, key) }

// fieldCodec describes one known JSON field of Snapshot or Tag.
type fieldCodec struct {
	key string
	// nullable fields are omitted when nil (Java @JsonInclude(NON_NULL))
	// unless alwaysNull.
	nullable bool
	// alwaysNull fields are written as null when nil.
	alwaysNull bool
	isNull     func(t *Tag) bool
	// isDefault reports, for a non-nullable field, whether the value is the
	// one assumed when the key is absent.
	isDefault func(t *Tag) bool
	decode    func(t *Tag, v *jackson.Node) error
	encode    func(w *jackson.Writer, t *Tag, level int)
}

func optInt64Codec(key string, get func(s *Snapshot) **int64) fieldCodec {
	return fieldCodec{
		key:      key,
		nullable: true,
		isNull:   func(t *Tag) bool { return *get(&t.Snapshot) == nil },
		decode: func(t *Tag, v *jackson.Node) error {
			n, err := fieldInt64(key, v)
			if err != nil {
				return err
			}
			*get(&t.Snapshot) = &n
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.Int(**get(&t.Snapshot)) },
	}
}

func optStringCodec(key string, get func(s *Snapshot) **string) fieldCodec {
	return fieldCodec{
		key:      key,
		nullable: true,
		isNull:   func(t *Tag) bool { return *get(&t.Snapshot) == nil },
		decode: func(t *Tag, v *jackson.Node) error {
			s, err := fieldString(key, v)
			if err != nil {
				return err
			}
			*get(&t.Snapshot) = &s
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.String(**get(&t.Snapshot)) },
	}
}

func int64Codec(key string, get func(s *Snapshot) *int64) fieldCodec {
	return fieldCodec{
		key:       key,
		isDefault: func(t *Tag) bool { return *get(&t.Snapshot) == 0 },
		decode: func(t *Tag, v *jackson.Node) error {
			n, err := fieldInt64(key, v)
			if err != nil {
				return err
			}
			*get(&t.Snapshot) = n
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.Int(*get(&t.Snapshot)) },
	}
}

func stringCodec(key string, get func(s *Snapshot) *string) fieldCodec {
	return fieldCodec{
		key:       key,
		isDefault: func(t *Tag) bool { return *get(&t.Snapshot) == "" },
		decode: func(t *Tag, v *jackson.Node) error {
			s, err := fieldString(key, v)
			if err != nil {
				return err
			}
			*get(&t.Snapshot) = s
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.String(*get(&t.Snapshot)) },
	}
}

// snapshotFields lists the fields of Snapshot in the order Java writes them
// (the @JsonCreator parameter order of Snapshot, 1.3 plus the 2.x fields
// at their 2.x positions).
var snapshotFields = []fieldCodec{
	{
		key:       "version",
		isDefault: func(t *Tag) bool { return t.Version == 1 },
		decode: func(t *Tag, v *jackson.Node) error {
			n, err := fieldInt32("version", v)
			t.Version = n
			return err
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.Int(int64(t.Version)) },
	},
	optStringCodec("uuid", func(s *Snapshot) **string { return &s.UUID }),
	{
		key:       "id",
		isDefault: func(t *Tag) bool { return t.ID == 0 },
		decode: func(t *Tag, v *jackson.Node) error {
			n, err := fieldInt64("id", v)
			t.ID = SnapshotID(n)
			return err
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.Int(int64(t.ID)) },
	},
	{
		key:       "schemaId",
		isDefault: func(t *Tag) bool { return t.SchemaID == 0 },
		decode: func(t *Tag, v *jackson.Node) error {
			n, err := fieldInt64("schemaId", v)
			t.SchemaID = schema.SchemaID(n)
			return err
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.Int(int64(t.SchemaID)) },
	},
	stringCodec("baseManifestList", func(s *Snapshot) *string { return &s.BaseManifestList }),
	optInt64Codec("baseManifestListSize", func(s *Snapshot) **int64 { return &s.BaseManifestListSize }),
	stringCodec("deltaManifestList", func(s *Snapshot) *string { return &s.DeltaManifestList }),
	optInt64Codec("deltaManifestListSize", func(s *Snapshot) **int64 { return &s.DeltaManifestListSize }),
	func() fieldCodec {
		c := optStringCodec("changelogManifestList", func(s *Snapshot) **string { return &s.ChangelogManifestList })
		c.alwaysNull = true
		return c
	}(),
	optInt64Codec("changelogManifestListSize", func(s *Snapshot) **int64 { return &s.ChangelogManifestListSize }),
	optStringCodec("indexManifest", func(s *Snapshot) **string { return &s.IndexManifest }),
	stringCodec("commitUser", func(s *Snapshot) *string { return &s.CommitUser }),
	optStringCodec("writerVersion", func(s *Snapshot) **string { return &s.WriterVersion }),
	int64Codec("commitIdentifier", func(s *Snapshot) *int64 { return &s.CommitIdentifier }),
	{
		key:       "commitKind",
		isDefault: func(t *Tag) bool { return t.CommitKind == 0 },
		decode: func(t *Tag, v *jackson.Node) error {
			s, err := fieldString("commitKind", v)
			if err != nil {
				return err
			}
			k, err := ParseCommitKind(s)
			if err != nil {
				return fmt.Errorf("field \"commitKind\": unknown commit kind %q", s)
			}
			t.CommitKind = k
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { w.String(t.CommitKind.String()) },
	},
	int64Codec("timeMillis", func(s *Snapshot) *int64 { return &s.TimeMillis }),
	{
		key:      "logOffsets",
		nullable: true,
		isNull:   func(t *Tag) bool { return t.LogOffsets == nil },
		decode: func(t *Tag, v *jackson.Node) error {
			if v.Kind != jackson.Object {
				return fmt.Errorf("field \"logOffsets\": want an object, got %s", v.Kind)
			}
			m := make(map[int32]int64, len(v.Members))
			for _, mem := range v.Members {
				b, err := strconv.ParseInt(mem.Key, 10, 32)
				if err != nil {
					return fmt.Errorf("field \"logOffsets\": key %q is not a 32-bit integer", mem.Key)
				}
				off, err := fieldInt64("logOffsets."+mem.Key, &mem.Value)
				if err != nil {
					return err
				}
				m[int32(b)] = off
			}
			t.LogOffsets = m
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, level int) {
			keys := slices.Sorted(maps.Keys(t.LogOffsets))
			w.BeginObject()
			for _, k := range keys {
				w.Field(strconv.FormatInt(int64(k), 10))
				w.Int(t.LogOffsets[k])
			}
			w.EndObject()
		},
	},
	int64Codec("totalRecordCount", func(s *Snapshot) *int64 { return &s.TotalRecordCount }),
	int64Codec("deltaRecordCount", func(s *Snapshot) *int64 { return &s.DeltaRecordCount }),
	optInt64Codec("changelogRecordCount", func(s *Snapshot) **int64 { return &s.ChangelogRecordCount }),
	optInt64Codec("watermark", func(s *Snapshot) **int64 { return &s.Watermark }),
	optStringCodec("statistics", func(s *Snapshot) **string { return &s.Statistics }),
	{
		key:      "properties",
		nullable: true,
		isNull:   func(t *Tag) bool { return t.Properties == nil },
		decode: func(t *Tag, v *jackson.Node) error {
			if v.Kind != jackson.Object {
				return fmt.Errorf("field \"properties\": want an object, got %s", v.Kind)
			}
			m := make(map[string]string, len(v.Members))
			for _, mem := range v.Members {
				s, err := fieldString("properties."+mem.Key, &mem.Value)
				if err != nil {
					return err
				}
				m[mem.Key] = s
			}
			t.Properties = m
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, level int) {
			keys := slices.Sorted(maps.Keys(t.Properties))
			w.BeginObject()
			for _, k := range keys {
				w.Field(k)
				w.String(t.Properties[k])
			}
			w.EndObject()
		},
	},
	optInt64Codec("nextRowId", func(s *Snapshot) **int64 { return &s.NextRowID }),
	optStringCodec("operation", func(s *Snapshot) **string { return &s.Operation }),
}

// requiredSnapshotKeys must be present: without them a snapshot cannot be
// read at all.
var requiredSnapshotKeys = []string{"id", "schemaId", "baseManifestList", "deltaManifestList", "commitKind"}

// DecodeSnapshot parses a snapshot file. Errors wrap ErrCorrupt and name
// the offending field. Unknown fields are kept for EncodeSnapshot.
func DecodeSnapshot(data []byte) (*Snapshot, error) {
	t, err := decodeObject(data, snapshotFields, "snapshot")
	if err != nil {
		return nil, err
	}
	return &t.Snapshot, nil
}

// EncodeSnapshot renders s exactly as Java Paimon writes it (Jackson's
// default pretty printer, no trailing newline).
func EncodeSnapshot(s *Snapshot) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("snapshot: EncodeSnapshot of a nil snapshot")
	}
	return encodeObject(&Tag{Snapshot: *s}, snapshotFields, "snapshot")
}

// decodeObject decodes a JSON object whose known keys are described by
// fields into a Tag (a Snapshot plus the tag fields).
func decodeObject(data []byte, fields []fieldCodec, what string) (*Tag, error) {
	root, err := jackson.Parse(data, jackson.Lenient)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
	}
	if root.Kind != jackson.Object {
		return nil, fmt.Errorf("%w: %s: want a JSON object, got %s", ErrCorrupt, what, root.Kind)
	}
	t := &Tag{}
	t.Version = 1
	l := &jsonLayout{}
	for i := range root.Members {
		m := &root.Members[i]
		if !slices.Contains(l.order, m.Key) {
			l.order = append(l.order, m.Key)
		}
		f := findField(fields, m.Key)
		if f == nil {
			if l.extras == nil {
				l.extras = map[string]jackson.Node{}
			}
			l.extras[m.Key] = m.Value
			continue
		}
		if l.explicitNull != nil {
			delete(l.explicitNull, m.Key)
		}
		if l.raw != nil {
			delete(l.raw, m.Key)
		}
		if m.Value.Kind == jackson.Null && f.nullable {
			if l.explicitNull == nil {
				l.explicitNull = map[string]bool{}
			}
			l.explicitNull[m.Key] = true
			resetField(t, m.Key)
			continue
		}
		if err := f.decode(t, &m.Value); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, what, err)
		}
		if keep := rawKeeper(t, m.Key); keep != nil {
			if l.raw == nil {
				l.raw = map[string]rawField{}
			}
			l.raw[m.Key] = rawField{value: m.Value, same: keep}
		}
	}
	for _, k := range requiredSnapshotKeys {
		if !slices.Contains(l.order, k) {
			return nil, fmt.Errorf("%w: %s: missing field %q", ErrCorrupt, what, k)
		}
	}
	t.layout = l
	return t, nil
}

func findField(fields []fieldCodec, key string) *fieldCodec {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

// resetField sets a nullable field back to nil (for a duplicate key whose
// last value is null, as Jackson keeps the last value).
func resetField(t *Tag, key string) {
	switch key {
	case "uuid":
		t.UUID = nil
	case "baseManifestListSize":
		t.BaseManifestListSize = nil
	case "deltaManifestListSize":
		t.DeltaManifestListSize = nil
	case "changelogManifestList":
		t.ChangelogManifestList = nil
	case "changelogManifestListSize":
		t.ChangelogManifestListSize = nil
	case "indexManifest":
		t.IndexManifest = nil
	case "writerVersion":
		t.WriterVersion = nil
	case "logOffsets":
		t.LogOffsets = nil
	case "changelogRecordCount":
		t.ChangelogRecordCount = nil
	case "watermark":
		t.Watermark = nil
	case "statistics":
		t.Statistics = nil
	case "properties":
		t.Properties = nil
	case "nextRowId":
		t.NextRowID = nil
	case "operation":
		t.Operation = nil
	case "tagCreateTime":
		t.TagCreateTime = nil
	case "tagTimeRetained":
		t.TagTimeRetained = nil
	}
}

// rawKeeper returns, for fields whose text is not canonical (map order,
// date forms), a function reporting whether the field still holds the
// value just decoded; nil for other fields.
func rawKeeper(t *Tag, key string) func(*Tag) bool {
	switch key {
	case "logOffsets":
		m := maps.Clone(t.LogOffsets)
		return func(t *Tag) bool { return t.LogOffsets != nil && maps.Equal(m, t.LogOffsets) }
	case "properties":
		m := maps.Clone(t.Properties)
		return func(t *Tag) bool { return t.Properties != nil && maps.Equal(m, t.Properties) }
	case "tagCreateTime":
		v := *t.TagCreateTime
		return func(t *Tag) bool { return t.TagCreateTime != nil && t.TagCreateTime.Equal(v) }
	case "tagTimeRetained":
		v := *t.TagTimeRetained
		return func(t *Tag) bool { return t.TagTimeRetained != nil && *t.TagTimeRetained == v }
	}
	return nil
}

// encodeObject writes t with the given field set, honouring t's layout.
func encodeObject(t *Tag, fields []fieldCodec, what string) ([]byte, error) {
	if !t.CommitKind.Valid() {
		return nil, fmt.Errorf("snapshot: encode %s %d: invalid commit kind %v", what, t.ID, t.CommitKind)
	}
	l := t.layout
	// Decide which known keys are written and how.
	type entry struct {
		key   string
		field *fieldCodec // nil for an unknown key
		null  bool
	}
	emit := make(map[string]entry, len(fields))
	for i := range fields {
		f := &fields[i]
		if f.nullable && f.isNull(t) {
			explicit := l != nil && l.explicitNull[f.key]
			always := f.alwaysNull && (l == nil || l.has(f.key))
			if explicit || always {
				emit[f.key] = entry{key: f.key, field: f, null: true}
			}
			continue
		}
		if !f.nullable && l != nil && !l.has(f.key) && f.isDefault(t) {
			continue
		}
		emit[f.key] = entry{key: f.key, field: f}
	}
	var order []entry
	if l == nil {
		for _, f := range fields {
			if e, ok := emit[f.key]; ok {
				order = append(order, e)
			}
		}
	} else {
		for _, k := range l.order {
			if e, ok := emit[k]; ok {
				order = append(order, e)
			} else if _, ok := l.extras[k]; ok {
				order = append(order, entry{key: k})
			}
		}
		// Keys new to this layout go right after the last known key that
		// precedes them in canonical order (or first, if none does).
		for ci, f := range fields {
			e, ok := emit[f.key]
			if !ok || l.has(f.key) {
				continue
			}
			pos := 0
			for j, o := range order {
				if o.field != nil && fieldIndex(fields, o.key) < ci {
					pos = j + 1
				}
			}
			order = slices.Insert(order, pos, e)
		}
	}
	w := jackson.New()
	w.BeginObject()
	for _, e := range order {
		w.Field(e.key)
		switch {
		case e.field == nil:
			x := l.extras[e.key]
			w.Node(&x)
		case e.null:
			w.Raw("null")
		default:
			if l != nil {
				if r, ok := l.raw[e.key]; ok && r.same(t) {
					w.Node(&r.value)
					continue
				}
			}
			e.field.encode(w, t, 1)
		}
	}
	w.EndObject()
	return w.Bytes(), nil
}

func fieldIndex(fields []fieldCodec, key string) int {
	for i := range fields {
		if fields[i].key == key {
			return i
		}
	}
	return -1
}

// Typed field readers of the decoders; each names the field on error.

func fieldInt64(key string, v *jackson.Node) (int64, error) {
	n, err := v.Int(64)
	if err != nil {
		return 0, fmt.Errorf("field %q: %v", key, err)
	}
	return n, nil
}

func fieldInt32(key string, v *jackson.Node) (int32, error) {
	n, err := v.Int(32)
	if err != nil {
		return 0, fmt.Errorf("field %q: %v", key, err)
	}
	return int32(n), nil
}

func fieldString(key string, v *jackson.Node) (string, error) {
	s, err := v.Str()
	if err != nil {
		return "", fmt.Errorf("field %q: %v", key, err)
	}
	return s, nil
}
