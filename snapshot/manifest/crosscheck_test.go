package manifest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2/ocf"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestReaderAgreesWithHamba decodes every Avro fixture a second way, with
// hamba/avro's generic ocf decoder (map[string]any), and checks that every
// field this package models has the same value, and that fields missing
// from a file are zero/null here.
func TestReaderAgreesWithHamba(t *testing.T) {
	checked := 0
	for _, f := range fixtureFiles(t) {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if isORC(data) {
			continue
		}
		generic := hambaRecords(t, data)
		ours, err := readAny(f.kind, data, filepath.Base(f.path))
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		ov := reflect.ValueOf(ours)
		if ov.Len() != len(generic) {
			t.Fatalf("%s: %d records, hamba %d", f.path, ov.Len(), len(generic))
		}
		for i, g := range generic {
			var mine map[string]any
			switch r := ov.Index(i).Interface().(type) {
			case manifest.ManifestEntry:
				mine = entryMap(r)
			case manifest.ManifestFileMeta:
				mine = fileMetaMap(r)
			case manifest.IndexManifestEntry:
				mine = indexMap(r)
			}
			compareMaps(t, fmt.Sprintf("%s record %d", f.path, i), mine, g)
			checked++
		}
	}
	t.Logf("%d records agree with hamba's generic decoding", checked)
}

func hambaRecords(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	dec, err := ocf.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for dec.HasNext() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		m, ok := unwrapUnion(v).(map[string]any)
		if !ok {
			t.Fatalf("hamba decoded %T", v)
		}
		out = append(out, m)
	}
	if err := dec.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareMaps compares mine (every modelled field, normalized) with hamba's
// generic map: shared keys must agree; keys only in mine must be null or
// zero (the file lacks the field).
func compareMaps(t *testing.T, where string, mine, theirs map[string]any) {
	t.Helper()
	for k, mv := range mine {
		tv, ok := theirs[k]
		tv = unwrapUnion(tv)
		if !ok {
			if mv != nil && !reflect.ValueOf(mv).IsZero() {
				t.Errorf("%s: %s absent from the file but %v here", where, k, mv)
			}
			continue
		}
		if sub, ok := mv.(map[string]any); ok {
			tsub, ok := tv.(map[string]any)
			if !ok {
				t.Errorf("%s: %s: hamba has %T", where, k, tv)
				continue
			}
			compareMaps(t, where+"."+k, sub, tsub)
			continue
		}
		if !reflect.DeepEqual(mv, norm(tv)) {
			t.Errorf("%s: %s = %#v, hamba %#v", where, k, mv, norm(tv))
		}
	}
}

// unwrapUnion removes hamba's {"<branch type>": value} wrapping of union
// values whose branch is a complex type.
func unwrapUnion(v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return v
	}
	for k, inner := range m {
		if k == "array" || k == "map" || strings.HasPrefix(k, "org.apache.paimon.avro.generated.") {
			return inner
		}
	}
	return v
}

func norm(v any) any {
	v = unwrapUnion(v)
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case time.Time:
		return x.UnixMilli()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if m, ok := unwrapUnion(e).(map[string]any); ok {
				nm := map[string]any{}
				for k, v := range m {
					nm[k] = norm(v)
				}
				out[i] = nm
				continue
			}
			out[i] = norm(e)
		}
		return out
	}
	return v
}

func opt[V any, W any](p *V, f func(V) W) any {
	if p == nil {
		return nil
	}
	return f(*p)
}

func strs(s []string) any {
	if s == nil {
		return nil
	}
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func statsMap(s manifest.SimpleStats) map[string]any {
	var nc any
	if s.NullCounts != nil {
		l := make([]any, len(s.NullCounts))
		for i, p := range s.NullCounts {
			l[i] = opt(p, func(v int64) int64 { return v })
		}
		nc = l
	}
	return map[string]any{"_MIN_VALUES": []byte(s.MinValues), "_MAX_VALUES": []byte(s.MaxValues), "_NULL_COUNTS": nc}
}

func entryMap(e manifest.ManifestEntry) map[string]any {
	f := e.File
	var emb any
	if f.EmbeddedIndex != nil {
		emb = f.EmbeddedIndex
	}
	return map[string]any{
		"_VERSION": int64(2), "_KIND": int64(e.Kind), "_PARTITION": []byte(e.Partition),
		"_BUCKET": int64(e.Bucket), "_TOTAL_BUCKETS": int64(e.TotalBuckets),
		"_FILE": map[string]any{
			"_FILE_NAME": f.FileName, "_FILE_SIZE": f.FileSize, "_ROW_COUNT": f.RowCount,
			"_MIN_KEY": []byte(f.MinKey), "_MAX_KEY": []byte(f.MaxKey),
			"_KEY_STATS": statsMap(f.KeyStats), "_VALUE_STATS": statsMap(f.ValueStats),
			"_MIN_SEQUENCE_NUMBER": f.MinSequenceNumber, "_MAX_SEQUENCE_NUMBER": f.MaxSequenceNumber,
			"_SCHEMA_ID": f.SchemaID, "_LEVEL": int64(f.Level), "_EXTRA_FILES": strs(f.ExtraFiles),
			"_CREATION_TIME":       opt(f.CreationTime, func(v int64) int64 { return v }),
			"_DELETE_ROW_COUNT":    opt(f.DeleteRowCount, func(v int64) int64 { return v }),
			"_EMBEDDED_FILE_INDEX": emb,
			"_FILE_SOURCE":         opt(f.FileSource, func(v manifest.FileSource) int64 { return int64(v) }),
			"_VALUE_STATS_COLS":    strs(f.ValueStatsCols),
			"_EXTERNAL_PATH":       opt(f.ExternalPath, func(v string) string { return v }),
			"_FIRST_ROW_ID":        opt(f.FirstRowID, func(v int64) int64 { return v }),
			"_WRITE_COLS":          strs(f.WriteCols),
		},
	}
}

func fileMetaMap(m manifest.ManifestFileMeta) map[string]any {
	return map[string]any{
		"_VERSION": int64(2), "_FILE_NAME": m.FileName, "_FILE_SIZE": m.FileSize,
		"_NUM_ADDED_FILES": m.NumAddedFiles, "_NUM_DELETED_FILES": m.NumDeletedFiles,
		"_PARTITION_STATS": statsMap(m.PartitionStats), "_SCHEMA_ID": m.SchemaID,
		"_MIN_BUCKET": opt(m.MinBucket, func(v manifest.Bucket) int64 { return int64(v) }),
		"_MAX_BUCKET": opt(m.MaxBucket, func(v manifest.Bucket) int64 { return int64(v) }),
		"_MIN_LEVEL":  opt(m.MinLevel, func(v manifest.Level) int64 { return int64(v) }),
		"_MAX_LEVEL":  opt(m.MaxLevel, func(v manifest.Level) int64 { return int64(v) }),
	}
}

func indexMap(e manifest.IndexManifestEntry) map[string]any {
	f := e.IndexFile
	var dvs any
	if f.DVRanges != nil {
		l := make([]any, len(f.DVRanges))
		for i, dv := range f.DVRanges {
			m := map[string]any{"f0": dv.DataFileName, "f1": int64(dv.Offset), "f2": int64(dv.Length)}
			if dv.Cardinality != nil { // absent from 0.9-era files
				m["_CARDINALITY"] = *dv.Cardinality
			}
			l[i] = m
		}
		dvs = l
	}
	return map[string]any{
		"_VERSION": int64(1), "_KIND": int64(e.Kind), "_PARTITION": []byte(e.Partition),
		"_BUCKET": int64(e.Bucket), "_INDEX_TYPE": f.IndexType, "_FILE_NAME": f.FileName,
		"_FILE_SIZE": f.FileSize, "_ROW_COUNT": f.RowCount, "_DELETIONS_VECTORS_RANGES": dvs,
		"_EXTERNAL_PATH": opt(f.ExternalPath, func(v string) string { return v }),
	}
}
