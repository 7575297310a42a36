package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// A TxRecord is lakesql's own record of a transaction over several tables
// (Paimon has no multi-table transactions; no Java class mirrors it). It is
// written to the warehouse, beside the *.db folders where Paimon catalogs
// do not look (TxRecordDir), after every table's files are written and its
// conflicts checked and before the first table commits; it lists each
// table's prepared commit. Each table's snapshot is committed with the
// record's ID as commit user and BatchCommitIdentifier, which makes a
// table's commit recognizable and so idempotent. Once every table has
// committed the record is deleted. A record left behind (a crash in
// between) is rolled forward by any lakesql server: the tables without a
// snapshot of that commit user after Base get their commit
// (lsmwrite.RollForward).
type TxRecord struct {
	// ID identifies the transaction (a UUID); it is the commit user of its
	// snapshots.
	ID string
	// TimeMillis is when the record was written.
	TimeMillis int64
	Tables     []TxRecordTable
}

// TxRecordTable is one table's prepared commit in a TxRecord.
type TxRecordTable struct {
	// Path is the table folder relative to the warehouse ("db.db/t").
	Path   string
	Branch string
	// SchemaID is the schema the files were written with, and SchemaTime
	// that schema's timeMillis: a table dropped and created again under
	// the same name has another, and is not rolled forward into.
	SchemaID   schema.SchemaID
	SchemaTime int64
	// Base is the snapshot the files were written on (0: none).
	Base SnapshotID
	// Changes are the commit's changes; CommitUser is the record's ID.
	Changes CommitChanges
}

// TxRecordDir is the warehouse folder of transaction records.
const TxRecordDir = storage.PrivateDir + "/transactions"

const txRecordPrefix = "tx-"

// TxRecordPath is the warehouse path of the record of transaction id.
func TxRecordPath(id string) string { return TxRecordDir + "/" + txRecordPrefix + id }

// ParseTxRecordPath returns the transaction id of a record path.
func ParseTxRecordPath(p string) (string, bool) {
	name, ok := strings.CutPrefix(p, TxRecordDir+"/"+txRecordPrefix)
	if !ok || name == "" || strings.ContainsAny(name, "/.") {
		return "", false
	}
	return name, true
}

// txRecordJSON is the file's JSON form; entries are Avro manifest bytes
// (manifest.WriteManifest, WriteIndexManifest), base64 in JSON.
type txRecordJSON struct {
	Version    int               `json:"version"`
	ID         string            `json:"id"`
	TimeMillis int64             `json:"timeMillis"`
	Tables     []txRecordTableJS `json:"tables"`
}

type txRecordTableJS struct {
	Path                string            `json:"path"`
	Branch              string            `json:"branch,omitempty"`
	SchemaID            int64             `json:"schemaId"`
	SchemaTime          int64             `json:"schemaTimeMillis"`
	Base                int64             `json:"baseSnapshotId"`
	Kind                string            `json:"commitKind"`
	CommitIdentifier    int64             `json:"commitIdentifier"`
	Entries             []byte            `json:"entries,omitempty"`
	ChangelogEntries    []byte            `json:"changelogEntries,omitempty"`
	IndexChanges        []byte            `json:"indexChanges,omitempty"`
	OverwritePartitions [][]byte          `json:"overwritePartitions"`
	Properties          map[string]string `json:"properties,omitempty"`
	Watermark           *int64            `json:"watermark,omitempty"`
}

const txRecordVersion = 1

// EncodeTxRecord serializes r.
func EncodeTxRecord(r *TxRecord) ([]byte, error) {
	out := txRecordJSON{Version: txRecordVersion, ID: r.ID, TimeMillis: r.TimeMillis}
	for _, t := range r.Tables {
		ch := &t.Changes
		js := txRecordTableJS{
			Path: t.Path, Branch: t.Branch, SchemaID: int64(t.SchemaID), SchemaTime: t.SchemaTime, Base: int64(t.Base),
			Kind: ch.Kind.String(), CommitIdentifier: ch.CommitIdentifier, OverwritePartitions: ch.OverwritePartitions,
			Properties: ch.Properties, Watermark: ch.Watermark,
		}
		if !ch.Kind.Valid() {
			return nil, fmt.Errorf("snapshot: encode transaction record: table %s: commit kind %v", t.Path, ch.Kind)
		}
		var err error
		if len(ch.Entries) > 0 {
			if js.Entries, err = manifest.WriteManifest(ch.Entries); err != nil {
				return nil, fmt.Errorf("snapshot: encode transaction record: %w", err)
			}
		}
		if len(ch.ChangelogEntries) > 0 {
			if js.ChangelogEntries, err = manifest.WriteManifest(ch.ChangelogEntries); err != nil {
				return nil, fmt.Errorf("snapshot: encode transaction record: %w", err)
			}
		}
		if len(ch.IndexChanges) > 0 {
			if js.IndexChanges, err = manifest.WriteIndexManifest(ch.IndexChanges); err != nil {
				return nil, fmt.Errorf("snapshot: encode transaction record: %w", err)
			}
		}
		out.Tables = append(out.Tables, js)
	}
	return json.MarshalIndent(out, "", "  ")
}

// DecodeTxRecord parses a record; what is not a record EncodeTxRecord
// writes gives an error wrapping ErrCorrupt.
func DecodeTxRecord(data []byte, name string) (*TxRecord, error) {
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w: transaction record %s: %s", ErrCorrupt, name, fmt.Sprintf(format, args...))
	}
	var in txRecordJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		return nil, corrupt("%v", err)
	}
	if in.Version != txRecordVersion {
		return nil, corrupt("version %d (this lakesql reads %d)", in.Version, txRecordVersion)
	}
	if in.ID == "" || strings.ContainsAny(in.ID, "/.") {
		return nil, corrupt("id %q", in.ID)
	}
	if len(in.Tables) == 0 {
		return nil, corrupt("no tables")
	}
	r := &TxRecord{ID: in.ID, TimeMillis: in.TimeMillis}
	for i, js := range in.Tables {
		if js.Path == "" || storage.CheckPath(js.Path) != nil {
			return nil, corrupt("table %d: path %q", i, js.Path)
		}
		if js.SchemaID < 0 || js.Base < 0 {
			return nil, corrupt("table %s: negative id", js.Path)
		}
		kind, err := ParseCommitKind(js.Kind)
		if err != nil || (kind != CommitKindAppend && kind != CommitKindOverwrite) {
			return nil, corrupt("table %s: commit kind %q", js.Path, js.Kind)
		}
		t := TxRecordTable{
			Path: js.Path, Branch: js.Branch, SchemaID: schema.SchemaID(js.SchemaID), SchemaTime: js.SchemaTime, Base: SnapshotID(js.Base),
			Changes: CommitChanges{
				Kind: kind, CommitUser: in.ID, CommitIdentifier: js.CommitIdentifier,
				OverwritePartitions: js.OverwritePartitions, Properties: js.Properties, Watermark: js.Watermark,
			},
		}
		if len(js.Entries) > 0 {
			if t.Changes.Entries, err = manifest.ReadManifest(js.Entries, name); err != nil {
				return nil, corrupt("table %s: entries: %v", js.Path, err)
			}
		}
		if len(js.ChangelogEntries) > 0 {
			if t.Changes.ChangelogEntries, err = manifest.ReadManifest(js.ChangelogEntries, name); err != nil {
				return nil, corrupt("table %s: changelog entries: %v", js.Path, err)
			}
		}
		if len(js.IndexChanges) > 0 {
			if t.Changes.IndexChanges, err = manifest.ReadIndexManifest(js.IndexChanges, name); err != nil {
				return nil, corrupt("table %s: index changes: %v", js.Path, err)
			}
		}
		if err := validateEntries(&t.Changes); err != nil {
			return nil, corrupt("table %s: %v", js.Path, err)
		}
		r.Tables = append(r.Tables, t)
	}
	return r, nil
}

// WriteTxRecord writes r to the warehouse st (atomically: a reader sees
// the whole record or none).
func WriteTxRecord(ctx context.Context, st storage.Storage, r *TxRecord) error {
	data, err := EncodeTxRecord(r)
	if err != nil {
		return err
	}
	if err := st.CreateIfNotExists(ctx, TxRecordPath(r.ID), data); err != nil {
		return fmt.Errorf("snapshot: write transaction record %s: %w", r.ID, err)
	}
	return nil
}

// DeleteTxRecord deletes the record of transaction id; a missing record
// is not an error.
func DeleteTxRecord(ctx context.Context, st storage.Storage, id string) error {
	if err := st.Delete(ctx, TxRecordPath(id)); err != nil && !errors.Is(err, storage.ErrNotExist) {
		return fmt.Errorf("snapshot: delete transaction record %s: %w", id, err)
	}
	return nil
}

// TxRecordInfo is a listed record.
type TxRecordInfo struct {
	ID      string
	ModTime time.Time
}

// ListTxRecords lists the transaction records of the warehouse st.
func ListTxRecords(ctx context.Context, st storage.Storage) iter.Seq2[TxRecordInfo, error] {
	return func(yield func(TxRecordInfo, error) bool) {
		for obj, err := range st.List(ctx, TxRecordDir+"/") {
			if err != nil {
				yield(TxRecordInfo{}, fmt.Errorf("snapshot: list transaction records: %w", err))
				return
			}
			if id, ok := ParseTxRecordPath(obj.Path); ok {
				if !yield(TxRecordInfo{ID: id, ModTime: obj.ModTime}, nil) {
					return
				}
			}
		}
	}
}

// ReadTxRecord reads the record of transaction id; a missing one wraps
// storage.ErrNotExist.
func ReadTxRecord(ctx context.Context, st storage.Storage, id string) (*TxRecord, error) {
	p := TxRecordPath(id)
	data, err := st.ReadAll(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read transaction record %s: %w", id, err)
	}
	return DecodeTxRecord(data, p)
}
