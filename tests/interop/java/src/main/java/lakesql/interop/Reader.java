package lakesql.interop;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

/** Reads tables with Paimon's own ReadBuilder and prints JSON lines. */
final class Reader {
    static Catalog catalog(String warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)));
    }

    /**
     * read --warehouse W --table db.t [--snapshot N | --all-snapshots] [--tags] [--audit-log]
     *
     * <p>Without --snapshot or --all-snapshots it reads the latest snapshot.
     * Each snapshot read prints one line:
     * {"op":"read","table":..,"snapshot":N,"schemaId":..,"commitKind":..,
     * "columns":[..],"rows":[[kind,v1,..],..],"files":[..]}; --tags adds one
     * line per tag ("tag":name).
     */
    static void run(Map<String, String> flags) throws Exception {
        String warehouse = Harness.need(flags, "warehouse");
        Identifier id = Identifier.fromString(Harness.need(flags, "table"));
        boolean audit = flags.containsKey("audit-log");
        try (Catalog cat = catalog(warehouse)) {
            FileStoreTable table = (FileStoreTable) cat.getTable(id);
            List<Long> ids = new ArrayList<>();
            if (flags.containsKey("snapshot")) {
                ids.add(Long.parseLong(flags.get("snapshot")));
            } else if (flags.containsKey("all-snapshots")) {
                Long earliest = table.snapshotManager().earliestSnapshotId();
                Long latest = table.snapshotManager().latestSnapshotId();
                if (earliest != null && latest != null) {
                    for (long s = earliest; s <= latest; s++) {
                        if (table.snapshotManager().snapshotExists(s)) {
                            ids.add(s);
                        }
                    }
                }
            } else if (!flags.containsKey("changes")) {
                Long latest = table.snapshotManager().latestSnapshotId();
                if (latest != null) {
                    ids.add(latest);
                }
            }
            for (long s : ids) {
                readOne(cat, id, table, s, null, audit);
            }
            if (flags.containsKey("changes")) {
                Long earliest = table.snapshotManager().earliestSnapshotId();
                Long latest = table.snapshotManager().latestSnapshotId();
                if (earliest != null && latest != null) {
                    for (long s = earliest; s <= latest; s++) {
                        readChanges(cat, id, s - 1, s);
                    }
                    readChanges(cat, id, earliest - 1, latest);
                }
            }
            if (flags.containsKey("tags")) {
                for (String tag : table.tagManager().allTagNames()) {
                    long s = table.tagManager().getOrThrow(tag).trimToSnapshot().id();
                    readOne(cat, id, table, s, tag, audit);
                }
            }
        }
    }

    /**
     * Prints Java's $audit_log read with 'incremental-between' = 'from,to':
     * {"op":"changes","table":..,"from":a,"to":b,"columns":[..],"rows":[[rowkind,v1,..],..]}.
     */
    static void readChanges(Catalog cat, Identifier id, long from, long to) throws Exception {
        Map<String, String> dyn = new HashMap<>();
        dyn.put("incremental-between", from + "," + to);
        Table t = cat.getTable(new Identifier(id.getDatabaseName(), id.getObjectName() + "$audit_log")).copy(dyn);
        ReadBuilder rb = t.newReadBuilder();
        List<Split> splits = rb.newScan().plan().splits();
        RowType rt = t.rowType();
        List<String> cols = new ArrayList<>();
        List<InternalRow.FieldGetter> getters = new ArrayList<>();
        List<DataType> types = new ArrayList<>();
        for (int i = 0; i < rt.getFieldCount(); i++) {
            DataField f = rt.getFields().get(i);
            cols.add(f.name());
            types.add(f.type());
            getters.add(InternalRow.createFieldGetter(f.type(), i));
        }
        StringBuilder rows = new StringBuilder("[");
        int n = 0;
        try (RecordReader<InternalRow> r = rb.newRead().createReader(splits)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = r.readBatch()) != null) {
                InternalRow row;
                while ((row = batch.next()) != null) {
                    List<String> vals = new ArrayList<>();
                    for (int i = 0; i < getters.size(); i++) {
                        vals.add(text(getters.get(i).getFieldOrNull(row), types.get(i)));
                    }
                    if (n++ > 0) {
                        rows.append(',');
                    }
                    rows.append(Json.array(vals));
                }
                batch.releaseBatch();
            }
        }
        rows.append(']');
        Json.obj().put("op", "changes").put("table", id.getFullName()).put("from", from).put("to", to)
                .strings("columns", cols).raw("rows", rows.toString()).println(Harness.out);
    }

    static void readOne(Catalog cat, Identifier id, FileStoreTable table, long snapshotId, String tag, boolean audit)
            throws Exception {
        Map<String, String> dyn = new HashMap<>();
        if (tag != null && table.coreOptions().branch().equals("main")) {
            dyn.put("scan.tag-name", tag);
        } else if (tag != null) {
            // Paimon 1.3.1's scan.tag-name looks the tag up on the main
            // branch (StaticFromTagStartingScanner): read a branch's tag by
            // its snapshot id, which the branch must still have.
            dyn.put("scan.snapshot-id", Long.toString(snapshotId));
        } else {
            dyn.put("scan.snapshot-id", Long.toString(snapshotId));
        }
        FileStoreTable data = table.copy(dyn);
        Table t = data;
        if (audit) {
            t = cat.getTable(new Identifier(id.getDatabaseName(), id.getObjectName() + "$audit_log")).copy(dyn);
        }
        // A tag's snapshot may have expired: the tag holds it.
        Snapshot snap = tag != null ? table.tagManager().getOrThrow(tag).trimToSnapshot()
                : table.snapshotManager().snapshot(snapshotId);
        ReadBuilder rb = t.newReadBuilder();
        List<Split> splits = rb.newScan().plan().splits();
        RowType rt = t.rowType();
        List<String> cols = new ArrayList<>();
        List<InternalRow.FieldGetter> getters = new ArrayList<>();
        List<DataType> types = new ArrayList<>();
        for (int i = 0; i < rt.getFieldCount(); i++) {
            DataField f = rt.getFields().get(i);
            cols.add(f.name());
            types.add(f.type());
            getters.add(InternalRow.createFieldGetter(f.type(), i));
        }
        StringBuilder rows = new StringBuilder("[");
        int n = 0;
        try (RecordReader<InternalRow> r = rb.newRead().createReader(splits)) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = r.readBatch()) != null) {
                InternalRow row;
                while ((row = batch.next()) != null) {
                    List<String> vals = new ArrayList<>();
                    vals.add(row.getRowKind().shortString());
                    for (int i = 0; i < getters.size(); i++) {
                        vals.add(text(getters.get(i).getFieldOrNull(row), types.get(i)));
                    }
                    if (n++ > 0) {
                        rows.append(',');
                    }
                    rows.append(Json.array(vals));
                }
                batch.releaseBatch();
            }
        }
        rows.append(']');
        StringBuilder files = new StringBuilder("[");
        int nf = 0;
        String root = table.location().toString();
        for (Split sp : splits) {
            if (!(sp instanceof DataSplit)) {
                continue;
            }
            DataSplit ds = (DataSplit) sp;
            String bp = ds.bucketPath();
            if (bp.startsWith(root)) {
                bp = bp.substring(root.length());
            }
            if (bp.startsWith("/")) {
                bp = bp.substring(1);
            }
            for (DataFileMeta f : ds.dataFiles()) {
                if (nf++ > 0) {
                    files.append(',');
                }
                files.append(Json.obj().put("bucketPath", bp).put("bucket", ds.bucket()).put("file", f.fileName())
                        .put("level", f.level()).put("minSeq", f.minSequenceNumber())
                        .put("maxSeq", f.maxSequenceNumber()).put("rowCount", f.rowCount())
                        .put("schemaId", f.schemaId()));
            }
        }
        files.append(']');
        Json.obj().put("op", "read").put("table", id.getFullName()).put("snapshot", snapshotId)
                .put("tag", tag).put("audit", audit)
                .put("schemaId", snap.schemaId()).put("commitKind", snap.commitKind().name())
                .put("totalRecordCount", snap.totalRecordCount() == null ? -1 : snap.totalRecordCount())
                .strings("columns", cols).raw("rows", rows.toString()).raw("files", files.toString())
                .println(Harness.out);
    }

    /** The canonical text of a value, the way the Go side normalizes MySQL text. */
    static String text(Object v, DataType type) {
        if (v == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return ((Boolean) v) ? "1" : "0";
            case DATE:
                return LocalDate.ofEpochDay((Integer) v).toString();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                LocalDateTime ldt = ((Timestamp) v).toLocalDateTime();
                String s = ldt.toLocalDate() + " " + String.format("%02d:%02d:%02d", ldt.getHour(), ldt.getMinute(), ldt.getSecond());
                if (ldt.getNano() != 0) {
                    String frac = String.format("%09d", ldt.getNano()).replaceAll("0+$", "");
                    s += "." + frac;
                }
                return s;
            case DECIMAL:
                return ((Decimal) v).toBigDecimal().toPlainString();
            case CHAR:
            case VARCHAR:
                return ((BinaryString) v).toString();
            default:
                return String.valueOf(v);
        }
    }
}
