package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/jackson"
)

// SchemaID is the id of a schema version: the N of schema/schema-N, 0-based.
type SchemaID int64

func (id SchemaID) String() string { return strconv.FormatInt(int64(id), 10) }

// Schema format versions (TableSchema.PAIMON_07_VERSION, PAIMON_08_VERSION,
// CURRENT_VERSION).
const (
	SchemaVersionPaimon07 = 1 // missing "bucket" option means bucket = 1
	SchemaVersionPaimon08 = 2 // missing "file.format" option means orc
	SchemaVersionCurrent  = 3
)

// TableSchema mirrors org.apache.paimon.schema.TableSchema, the content of
// schema/schema-N (serialized by SchemaSerializer).
type TableSchema struct {
	Version        int
	ID             SchemaID
	Fields         []DataField
	HighestFieldID int
	PartitionKeys  []string
	PrimaryKeys    []string
	Options        Options
	Comment        *string
	TimeMillis     int64

	// optionOrder is the order of the options in the decoded file (Java
	// writes HashMap iteration order, which depends on the map's history, so
	// a rewrite keeps the order it read).
	optionOrder []string
	// injected holds the legacy option defaults added on decode (bucket=1
	// for version 1, file.format=orc for version <= 2), with their values;
	// they are not written back unless changed.
	injected map[string]string
	// extra holds unknown top-level fields, kept on rewrite.
	extra []extraField
}

type extraField struct {
	after string // the known key this field followed in the file ("" = first)
	key   string
	val   *jackson.Node
}

// knownSchemaKeys lists the top-level keys in the order Java writes them.
var knownSchemaKeys = []string{"version", "id", "fields", "highestFieldId", "partitionKeys",
	"primaryKeys", "options", "comment", "timeMillis"}

// DecodeTableSchema parses a schema/schema-N file. Like Java's
// SchemaSerializer it requires id, fields, highestFieldId, partitionKeys,
// primaryKeys and options; "version" defaults to 1 and "timeMillis" to 0
// when missing. For version 1 schemas without "bucket" the option bucket=1
// is added, for versions 1 and 2 without "file.format" file.format=orc is
// added (as Java does); EncodeTableSchema leaves such added options out
// again. Unknown top-level fields are kept for EncodeTableSchema. The
// schema is then validated like Java's TableSchema constructor (keys name
// existing fields, primary keys not all partition keys, bucket keys valid).
// Every error wraps ErrCorrupt.
func DecodeTableSchema(data []byte) (*TableSchema, error) {
	root, err := jackson.Parse(data, jackson.Strict)
	if err != nil {
		return nil, fmt.Errorf("%w: table schema: %v", ErrCorrupt, err)
	}
	if root.Kind != jackson.Object {
		return nil, fmt.Errorf("%w: table schema: top level is a %s, not an object", ErrCorrupt, root.Kind)
	}
	s := &TableSchema{Version: SchemaVersionPaimon07}
	last := ""
	for i := range root.Members {
		k, v := root.Members[i].Key, &root.Members[i].Value
		if !slices.Contains(knownSchemaKeys, k) {
			s.extra = append(s.extra, extraField{after: last, key: k, val: v})
			continue
		}
		last = k
		if err := s.decodeKey(k, v); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"id", "fields", "highestFieldId", "partitionKeys", "primaryKeys", "options"} {
		if root.Get(k) == nil {
			return nil, fmt.Errorf("%w: table schema: missing %q", ErrCorrupt, k)
		}
	}
	if s.Version <= SchemaVersionPaimon07 {
		s.injectLegacy(OptBucket, "1")
	}
	if s.Version <= SchemaVersionPaimon08 {
		s.injectLegacy(OptFileFormat, "orc")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: schema %d: %w", ErrCorrupt, s.ID, err)
	}
	return s, nil
}

func (s *TableSchema) injectLegacy(key, value string) {
	if _, ok := s.Options[key]; ok {
		return
	}
	s.Options[key] = value
	if s.injected == nil {
		s.injected = map[string]string{}
	}
	s.injected[key] = value
}

func (s *TableSchema) decodeKey(k string, v *jackson.Node) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: table schema: %q: %s", ErrCorrupt, k, fmt.Sprintf(format, args...))
	}
	switch k {
	case "version":
		n, err := v.Int(32)
		if err != nil {
			return bad("%v", err)
		}
		s.Version = int(n)
	case "id":
		n, err := v.Int(64)
		if err != nil {
			return bad("%v", err)
		}
		if n < 0 {
			return bad("negative schema id %d", n)
		}
		s.ID = SchemaID(n)
	case "highestFieldId":
		n, err := v.Int(32)
		if err != nil {
			return bad("%v", err)
		}
		s.HighestFieldID = int(n)
	case "timeMillis":
		if v.Kind == jackson.Null {
			return nil
		}
		n, err := v.Int(64)
		if err != nil {
			return bad("%v", err)
		}
		s.TimeMillis = n
	case "comment":
		if v.Kind == jackson.Null {
			return nil
		}
		c, err := v.AsText()
		if err != nil {
			return bad("%v", err)
		}
		s.Comment = &c
	case "fields":
		if v.Kind != jackson.Array {
			return bad("expected an array, got %s", v.Kind)
		}
		s.Fields = make([]DataField, 0, len(v.Elems))
		for i := range v.Elems {
			f, err := decodeDataField(&v.Elems[i], "fields["+strconv.Itoa(i)+"]", nil, 0)
			if err != nil {
				return fmt.Errorf("table schema: %w", err)
			}
			s.Fields = append(s.Fields, f)
		}
	case "partitionKeys", "primaryKeys":
		if v.Kind != jackson.Array {
			return bad("expected an array, got %s", v.Kind)
		}
		keys := make([]string, 0, len(v.Elems))
		for _, e := range v.Elems {
			t, err := e.AsText()
			if err != nil {
				return bad("%v", err)
			}
			keys = append(keys, t)
		}
		if k == "partitionKeys" {
			s.PartitionKeys = keys
		} else {
			s.PrimaryKeys = keys
		}
	case "options":
		if v.Kind != jackson.Object {
			return bad("expected an object, got %s", v.Kind)
		}
		s.Options = make(Options, len(v.Members))
		s.optionOrder = make([]string, 0, len(v.Members))
		for i := range v.Members {
			ok := v.Members[i].Key
			t, err := v.Members[i].Value.AsText()
			if err != nil {
				return bad("option %q: %v", ok, err)
			}
			s.Options[ok] = t
			s.optionOrder = append(s.optionOrder, ok)
		}
	}
	return nil
}

// EncodeTableSchema writes the schema exactly as Java's SchemaSerializer
// through JsonSerdeUtil.toJson does: Jackson's default pretty printer, keys
// in the order version, id, fields, highestFieldId, partitionKeys,
// primaryKeys, options, comment (only when set), timeMillis; no trailing
// newline. Options keep the order they were decoded in; options added since
// follow in Java HashMap iteration order. Unknown top-level fields from
// DecodeTableSchema are written back where they were.
func EncodeTableSchema(s *TableSchema) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil table schema", ErrInvalidSchema)
	}
	for _, f := range s.Fields {
		if err := f.Type.Validate(); err != nil {
			return nil, fmt.Errorf("%w: field %s: %w", ErrInvalidSchema, f.Name, err)
		}
	}
	w := &jacksonWriter{jackson.New()}
	w.BeginObject()
	s.writeExtra(w, "")
	emit := func(key string, fn func()) {
		w.Field(key)
		fn()
		s.writeExtra(w, key)
	}
	emit("version", func() { w.Int(int64(s.Version)) })
	emit("id", func() { w.Int(int64(s.ID)) })
	emit("fields", func() {
		w.BeginArray()
		for _, f := range s.Fields {
			w.dataField(f)
		}
		w.EndArray()
	})
	emit("highestFieldId", func() { w.Int(int64(s.HighestFieldID)) })
	emit("partitionKeys", func() { w.strings(s.PartitionKeys) })
	emit("primaryKeys", func() { w.strings(s.PrimaryKeys) })
	emit("options", func() {
		w.BeginObject()
		for _, k := range s.optionKeysInOrder() {
			w.Field(k)
			w.String(s.Options[k])
		}
		w.EndObject()
	})
	if s.Comment != nil {
		emit("comment", func() { w.String(*s.Comment) })
	} else {
		s.writeExtra(w, "comment")
	}
	emit("timeMillis", func() { w.Int(s.TimeMillis) })
	w.EndObject()
	return w.Bytes(), nil
}

func (w *jacksonWriter) strings(ss []string) {
	w.BeginArray()
	for _, s := range ss {
		w.String(s)
	}
	w.EndArray()
}

func (s *TableSchema) writeExtra(w *jacksonWriter, after string) {
	for _, e := range s.extra {
		if e.after == after {
			w.Field(e.key)
			w.Node(e.val)
		}
	}
}

// optionKeysInOrder returns the option keys to write: decoded ones in their
// decoded order, then new ones in Java HashMap iteration order. Legacy
// defaults added on decode are skipped while unchanged.
func (s *TableSchema) optionKeysInOrder() []string {
	keys := make([]string, 0, len(s.Options))
	seen := make(map[string]bool, len(s.Options))
	skip := func(k string) bool {
		v, ok := s.injected[k]
		return ok && s.Options[k] == v
	}
	for _, k := range s.optionOrder {
		if _, ok := s.Options[k]; ok && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var fresh []string
	for k := range s.Options {
		if !seen[k] && !skip(k) {
			fresh = append(fresh, k)
		}
	}
	// Ties inside a HashMap bucket follow insertion order, which a Go map
	// does not have: insert new keys sorted, so the output is deterministic.
	slices.Sort(fresh)
	return append(keys, JavaHashMapOrder(fresh)...)
}

// JavaHashMapOrder returns keys in the iteration order of a java.util.HashMap
// built by inserting them into a default-capacity map in the given order
// (buckets by String.hashCode spread, ties in insertion order; the table
// doubles from 16 at load factor 0.75).
func JavaHashMapOrder(keys []string) []string {
	capacity := 16
	for float64(len(keys)) > float64(capacity)*0.75 {
		capacity *= 2
	}
	type kb struct {
		k      string
		bucket uint32
		pos    int
	}
	items := make([]kb, len(keys))
	for i, k := range keys {
		h := javaStringHash(k)
		h ^= h >> 16
		items[i] = kb{k, h & uint32(capacity-1), i}
	}
	slices.SortStableFunc(items, func(a, b kb) int {
		if a.bucket != b.bucket {
			return int(a.bucket) - int(b.bucket)
		}
		return a.pos - b.pos
	})
	out := make([]string, len(keys))
	for i, it := range items {
		out[i] = it.k
	}
	return out
}

// javaStringHash is java.lang.String.hashCode over UTF-16 code units.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + uint32(0xD800+(r>>10))
			h = 31*h + uint32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// Validate checks the rules of Java's TableSchema constructor and
// SchemaValidation that readers depend on: field names unique, partition,
// primary and bucket keys name existing fields, primary keys are not all
// partition keys, bucket keys are not partition keys and (for primary-key
// tables) are part of the primary key. Errors wrap ErrInvalidSchema.
func (s *TableSchema) Validate() error {
	names := make(map[string]bool, len(s.Fields))
	for _, f := range s.Fields {
		if names[f.Name] {
			return fmt.Errorf("%w: duplicate field name %q", ErrInvalidSchema, f.Name)
		}
		names[f.Name] = true
		if err := f.Type.Validate(); err != nil {
			return fmt.Errorf("%w: field %s: %w", ErrInvalidSchema, f.Name, err)
		}
	}
	for _, k := range s.PartitionKeys {
		if !names[k] {
			return fmt.Errorf("%w: partition key %q is not a field", ErrInvalidSchema, k)
		}
	}
	for _, k := range s.PrimaryKeys {
		if !names[k] {
			return fmt.Errorf("%w: primary key %q is not a field", ErrInvalidSchema, k)
		}
	}
	if len(s.PrimaryKeys) > 0 && len(s.TrimmedPrimaryKeys()) == 0 {
		return fmt.Errorf("%w: primary key constraint %v should not be same with partition fields %v", ErrInvalidSchema, s.PrimaryKeys, s.PartitionKeys)
	}
	for _, k := range s.Options.BucketKey() {
		if !names[k] {
			return fmt.Errorf("%w: bucket key %q is not a field", ErrInvalidSchema, k)
		}
		if slices.Contains(s.PartitionKeys, k) {
			return fmt.Errorf("%w: bucket key %q should not be a partition key", ErrInvalidSchema, k)
		}
		if len(s.PrimaryKeys) > 0 && !slices.Contains(s.PrimaryKeys, k) {
			return fmt.Errorf("%w: primary keys %v should contain bucket key %q", ErrInvalidSchema, s.PrimaryKeys, k)
		}
	}
	return nil
}

// String returns the schema as Java-compatible JSON (EncodeTableSchema), or
// an error text.
func (s *TableSchema) String() string {
	b, err := EncodeTableSchema(s)
	if err != nil {
		return "<invalid schema: " + err.Error() + ">"
	}
	return string(b)
}

// IsPrimaryKeyTable reports whether the table has a primary key.
func (s *TableSchema) IsPrimaryKeyTable() bool { return len(s.PrimaryKeys) > 0 }

// FieldNames returns the top-level field names in order.
func (s *TableSchema) FieldNames() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// TrimmedPrimaryKeys returns the primary keys minus the partition keys
// (TableSchema.trimmedPrimaryKeys), empty for append tables.
func (s *TableSchema) TrimmedPrimaryKeys() []string {
	out := make([]string, 0, len(s.PrimaryKeys))
	for _, k := range s.PrimaryKeys {
		if !slices.Contains(s.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// BucketKeys returns the "bucket-key" option split on commas, or the
// trimmed primary keys when it is unset or blank (TableSchema.bucketKeys).
func (s *TableSchema) BucketKeys() []string {
	if bk := s.Options.BucketKey(); len(bk) > 0 {
		return bk
	}
	return s.TrimmedPrimaryKeys()
}

// CrossPartitionUpdate reports whether the primary key does not contain all
// partition keys (TableSchema.crossPartitionUpdate).
func (s *TableSchema) CrossPartitionUpdate() bool {
	if len(s.PrimaryKeys) == 0 || len(s.PartitionKeys) == 0 {
		return false
	}
	for _, p := range s.PartitionKeys {
		if !slices.Contains(s.PrimaryKeys, p) {
			return true
		}
	}
	return false
}

// FieldIndex returns the position of the top-level field name, or -1.
func (s *TableSchema) FieldIndex(name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FieldByName returns the top-level field called name.
func (s *TableSchema) FieldByName(name string) (DataField, bool) {
	if i := s.FieldIndex(name); i >= 0 {
		return s.Fields[i], true
	}
	return DataField{}, false
}

// FieldByID returns the top-level field with the given field id.
func (s *TableSchema) FieldByID(id int) (DataField, bool) {
	for _, f := range s.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return DataField{}, false
}

// ProjectedFields returns the fields named, in the order named.
func (s *TableSchema) ProjectedFields(names []string) ([]DataField, error) {
	out := make([]DataField, 0, len(names))
	for _, n := range names {
		f, ok := s.FieldByName(n)
		if !ok {
			return nil, fmt.Errorf("%w: no field %q in [%s]", ErrInvalidSchema, n, strings.Join(s.FieldNames(), ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

// Projection returns the index of each named field (-1 when absent), like
// TableSchema.projection.
func (s *TableSchema) Projection(names []string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = s.FieldIndex(n)
	}
	return out
}

func (s *TableSchema) mustProject(names []string) []DataField {
	fs, err := s.ProjectedFields(names)
	if err != nil {
		// Validate guarantees keys exist for decoded schemas; for a
		// hand-built invalid schema skip unknown names rather than panic.
		fs = fs[:0]
		for _, n := range names {
			if f, ok := s.FieldByName(n); ok {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

// PartitionFields returns the partition key fields in partition-key order.
func (s *TableSchema) PartitionFields() []DataField { return s.mustProject(s.PartitionKeys) }

// PrimaryKeyFields returns the primary key fields in key order.
func (s *TableSchema) PrimaryKeyFields() []DataField { return s.mustProject(s.PrimaryKeys) }

// TrimmedPrimaryKeyFields returns the trimmed primary key fields.
func (s *TableSchema) TrimmedPrimaryKeyFields() []DataField {
	return s.mustProject(s.TrimmedPrimaryKeys())
}

// BucketKeyFields returns the bucket key fields.
func (s *TableSchema) BucketKeyFields() []DataField { return s.mustProject(s.BucketKeys()) }

// LogicalRowType returns ROW<fields> (TableSchema.logicalRowType), nullable.
func (s *TableSchema) LogicalRowType() DataType { return RowType(s.Fields...) }

// LogicalPartitionType returns ROW<partition fields>.
func (s *TableSchema) LogicalPartitionType() DataType { return RowType(s.PartitionFields()...) }

// LogicalPrimaryKeysType returns ROW<primary key fields>.
func (s *TableSchema) LogicalPrimaryKeysType() DataType { return RowType(s.PrimaryKeyFields()...) }

// LogicalTrimmedPrimaryKeysType returns ROW<trimmed primary key fields>,
// the key type of KeyValue files.
func (s *TableSchema) LogicalTrimmedPrimaryKeysType() DataType {
	return RowType(s.TrimmedPrimaryKeyFields()...)
}

// LogicalBucketKeyType returns ROW<bucket key fields>.
func (s *TableSchema) LogicalBucketKeyType() DataType { return RowType(s.BucketKeyFields()...) }

// Copy returns a deep-enough copy whose slices and options may be modified
// without touching s (field types are shared; they are immutable).
func (s *TableSchema) Copy() *TableSchema {
	c := *s
	c.Fields = slices.Clone(s.Fields)
	c.PartitionKeys = slices.Clone(s.PartitionKeys)
	c.PrimaryKeys = slices.Clone(s.PrimaryKeys)
	c.Options = make(Options, len(s.Options))
	for k, v := range s.Options {
		c.Options[k] = v
	}
	c.optionOrder = slices.Clone(s.optionOrder)
	c.extra = slices.Clone(s.extra)
	return &c
}
