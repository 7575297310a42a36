package lakesql.interop;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowKind;

/**
 * Writes a seeded random history with Paimon's own table write and commit.
 *
 * <p>Config keys (write --config k=v,...): pk=0|1 (default 1), engine=
 * deduplicate|partial-update|aggregation|first-row, bucket=N|-1, partitioned=1,
 * seq=1 (sequence.field), seqgroup=1 (partial-update sequence groups),
 * dv=32|64 (deletion vectors), changelog=none|input|lookup|full-compaction,
 * compact=1 (explicit full compactions between commits), evolve=1 (ADD COLUMN
 * halfway), tags=1, expire=1 (keep 3 snapshots), commits=N, rows=N (per
 * commit), keys=N (key range), batch=1 (one BatchTableWrite commit instead of
 * a stream of commits), opt.K=V (any other table option). A table that
 * already exists is continued with its own schema (config keys that define
 * the table are ignored then).
 *
 * <p>After the history it prints Java's own read of every surviving snapshot
 * and tag: the expected rows of each snapshot.
 */
final class Writer {

    static void run(Map<String, String> flags) throws Exception {
        String warehouse = Harness.need(flags, "warehouse");
        Identifier id = Identifier.fromString(Harness.need(flags, "table"));
        long seed = Long.parseLong(flags.getOrDefault("seed", "1"));
        Map<String, String> cfg = Harness.parseConfig(flags.get("config"));
        Random rnd = new Random(seed);
        try (Catalog cat = Reader.catalog(warehouse)) {
            cat.createDatabase(id.getDatabaseName(), true);
            boolean exists = true;
            try {
                cat.getTable(id);
            } catch (Catalog.TableNotExistException e) {
                exists = false;
            }
            if (!exists) {
                cat.createTable(id, schema(cfg), false);
            }
            History h = new History(cat, id, cfg, rnd);
            h.run();
            FileStoreTable table = (FileStoreTable) cat.getTable(id);
            Json.obj().put("op", "written").put("table", id.getFullName()).put("seed", seed)
                    .put("config", flags.getOrDefault("config", "")).put("commits", h.commits)
                    .put("compactions", h.compactions).put("alters", h.alters).put("tags", h.tags)
                    .put("latestSnapshot", table.snapshotManager().latestSnapshotId() == null ? 0
                            : table.snapshotManager().latestSnapshotId())
                    .println(Harness.out);
        }
        if (!flags.containsKey("no-read")) {
            Map<String, String> rf = new HashMap<>();
            rf.put("warehouse", warehouse);
            rf.put("table", id.getFullName());
            rf.put("all-snapshots", "");
            rf.put("tags", "");
            Reader.run(rf);
        }
    }

    /** compact --warehouse W --table db.t: a full compaction of every bucket, one commit. */
    static void compactAll(Map<String, String> flags) throws Exception {
        String warehouse = Harness.need(flags, "warehouse");
        Identifier id = Identifier.fromString(Harness.need(flags, "table"));
        try (Catalog cat = Reader.catalog(warehouse)) {
            History h = new History(cat, id, new HashMap<>(), new Random(0));
            h.open();
            h.compact();
            h.close();
            FileStoreTable table = (FileStoreTable) cat.getTable(id);
            Json.obj().put("op", "compacted").put("table", id.getFullName())
                    .put("latestSnapshot", table.snapshotManager().latestSnapshotId())
                    .println(Harness.out);
        }
    }

    static Schema schema(Map<String, String> cfg) {
        boolean pk = !cfg.getOrDefault("pk", "1").equals("0");
        boolean partitioned = cfg.containsKey("partitioned");
        String engine = cfg.getOrDefault("engine", "deduplicate");
        Schema.Builder b = Schema.newBuilder();
        b.column("k", DataTypes.INT().notNull());
        if (partitioned) {
            b.column("p", DataTypes.STRING().notNull());
        }
        b.column("v", DataTypes.BIGINT());
        b.column("s", DataTypes.STRING());
        b.column("d", DataTypes.DECIMAL(10, 2));
        b.column("ts", DataTypes.TIMESTAMP(3));
        b.column("dt", DataTypes.DATE());
        b.column("f", DataTypes.DOUBLE());
        b.column("b", DataTypes.BOOLEAN());
        if (cfg.containsKey("seq")) {
            b.column("sq", DataTypes.BIGINT());
            b.option("sequence.field", "sq");
        }
        if (cfg.containsKey("seqgroup")) {
            b.column("g1", DataTypes.BIGINT());
            b.column("g2", DataTypes.BIGINT());
            b.option("fields.g1.sequence-group", "v,s");
            b.option("fields.g2.sequence-group", "d,f");
        }
        if (partitioned) {
            b.partitionKeys("p");
        }
        if (pk) {
            if (partitioned) {
                b.primaryKey("k", "p");
            } else {
                b.primaryKey("k");
            }
            b.option("merge-engine", engine);
        }
        String bucket = cfg.getOrDefault("bucket", pk ? "2" : "-1");
        b.option("bucket", bucket);
        if (!pk && !bucket.equals("-1")) {
            b.option("bucket-key", "k");
        }
        if (bucket.equals("-1") && pk) {
            b.option("dynamic-bucket.target-row-num", "4");
        }
        if (engine.equals("aggregation")) {
            b.option("fields.v.aggregate-function", "sum");
            b.option("fields.d.aggregate-function", "max");
            b.option("fields.f.aggregate-function", "min");
            b.option("fields.b.aggregate-function", "bool_or");
            b.option("fields.dt.aggregate-function", "last_value");
            b.option("fields.s.aggregate-function", cfg.containsKey("listagg") ? "listagg" : "last_non_null_value");
            b.option("fields.ts.aggregate-function", "first_non_null_value");
        }
        String dv = cfg.get("dv");
        if (dv != null) {
            b.option("deletion-vectors.enabled", "true");
            if (dv.equals("64")) {
                b.option("deletion-vectors.bitmap64", "true");
            }
        }
        if (cfg.containsKey("changelog")) {
            b.option("changelog-producer", cfg.get("changelog"));
        }
        if (cfg.containsKey("expire")) {
            b.option("snapshot.num-retained.min", "2");
            b.option("snapshot.num-retained.max", "3");
        }
        // Small triggers so Java's own compaction happens within a short history.
        b.option("num-sorted-run.compaction-trigger", cfg.getOrDefault("trigger", "3"));
        for (Map.Entry<String, String> e : cfg.entrySet()) {
            if (e.getKey().startsWith("opt.")) {
                b.option(e.getKey().substring(4), e.getValue());
            }
        }
        return b.build();
    }

    /** One random history over one table. */
    static final class History {
        final Catalog cat;
        final Identifier id;
        final Map<String, String> cfg;
        final Random rnd;
        final String commitUser = "harness-" + UUID.randomUUID();
        FileStoreTable table;
        StreamTableWrite write;
        StreamTableCommit commit;
        HashBucketAssigner assigner;
        RowPartitionKeyExtractor extractor;
        IOManager io;
        long commitId;
        int commits, compactions, alters, tags;
        final Set<String> writtenKeys = new HashSet<>();

        History(Catalog cat, Identifier id, Map<String, String> cfg, Random rnd) {
            this.cat = cat;
            this.id = id;
            this.cfg = cfg;
            this.rnd = rnd;
        }

        void open() throws Exception {
            table = (FileStoreTable) cat.getTable(id);
            io = IOManager.create(Harness.tempDir().toString());
            StreamWriteBuilder wb = table.newStreamWriteBuilder().withCommitUser(commitUser);
            write = wb.newWrite();
            write.withIOManager(io);
            commit = wb.newCommit();
            extractor = new RowPartitionKeyExtractor(table.schema());
            assigner = null;
            if (table.bucketMode() == BucketMode.HASH_DYNAMIC) {
                assigner = new HashBucketAssigner(table.snapshotManager(), commitUser,
                        table.store().newIndexFileHandler(), 1, 1, 0,
                        table.coreOptions().dynamicBucketTargetRowNum(), -1);
            }
        }

        void close() throws Exception {
            if (write != null) {
                write.close();
                commit.close();
                io.close();
                write = null;
            }
        }

        void run() throws Exception {
            int n = Integer.parseInt(cfg.getOrDefault("commits", "6"));
            if (cfg.containsKey("batch")) {
                batchCommit();
                commits++;
                return;
            }
            open();
            for (int i = 0; i < n; i++) {
                if (cfg.containsKey("evolve") && i == n / 2) {
                    close();
                    cat.alterTable(id, SchemaChange.addColumn("extra" + alters, DataTypes.INT()), false);
                    alters++;
                    open();
                }
                writeBatch();
                commitNow(rnd.nextInt(4) == 0);
                commits++;
                if (cfg.containsKey("compact") && rnd.nextInt(3) == 0) {
                    compact();
                }
                if (cfg.containsKey("tags") && rnd.nextInt(3) == 0) {
                    table.createTag("tag-" + commitUser.substring(8, 12) + "-" + tags);
                    tags++;
                }
            }
            close();
        }

        void commitNow(boolean waitCompaction) throws Exception {
            commitId++;
            if (assigner != null) {
                assigner.prepareCommit(commitId);
            }
            List<CommitMessage> msgs = write.prepareCommit(waitCompaction, commitId);
            commit.commit(commitId, msgs);
        }

        /** A full compaction of every (partition, bucket) of the latest snapshot. */
        void compact() throws Exception {
            FileStoreTable latest = (FileStoreTable) cat.getTable(id);
            Set<String> seen = new HashSet<>();
            for (Split sp : latest.newReadBuilder().newScan().plan().splits()) {
                DataSplit ds = (DataSplit) sp;
                if (seen.add(ds.partition().toString() + "/" + ds.bucket())) {
                    write.compact(ds.partition(), ds.bucket(), true);
                }
            }
            commitNow(true);
            compactions++;
        }

        void writeBatch() throws Exception {
            int rows = 1 + rnd.nextInt(Integer.parseInt(cfg.getOrDefault("rows", "12")));
            for (int i = 0; i < rows; i++) {
                GenericRow row = randomRow();
                if (assigner != null) {
                    BinaryRow part = extractor.partition(row);
                    int hash = extractor.trimmedPrimaryKey(row).hashCode();
                    write.write(row, assigner.assign(part, hash));
                } else {
                    write.write(row);
                }
            }
        }

        /** batch=1: one BatchTableWrite and BatchTableCommit. */
        void batchCommit() throws Exception {
            table = (FileStoreTable) cat.getTable(id);
            if (table.bucketMode() == BucketMode.HASH_DYNAMIC) {
                throw new IllegalArgumentException("batch=1 needs a fixed-bucket or append table");
            }
            BatchWriteBuilder wb = table.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
                int rows = 1 + rnd.nextInt(Integer.parseInt(cfg.getOrDefault("rows", "12")) * 3);
                for (int i = 0; i < rows; i++) {
                    w.write(randomRow());
                }
                c.commit(w.prepareCommit());
            }
        }

        GenericRow randomRow() {
            List<DataField> fields = table.rowType().getFields();
            boolean pk = !table.primaryKeys().isEmpty();
            String engine = table.options().getOrDefault("merge-engine", "deduplicate");
            Set<String> keys = new HashSet<>(table.primaryKeys());
            keys.addAll(table.partitionKeys());
            int keyRange = Integer.parseInt(cfg.getOrDefault("keys", "20"));
            GenericRow row = new GenericRow(fields.size());
            for (int i = 0; i < fields.size(); i++) {
                DataField f = fields.get(i);
                if (f.name().equals("k")) {
                    row.setField(i, rnd.nextInt(keyRange));
                } else if (table.partitionKeys().contains(f.name())) {
                    row.setField(i, BinaryString.fromString(new String[] {"a", "b", "c"}[rnd.nextInt(3)]));
                } else if (!keys.contains(f.name()) && f.type().isNullable() && rnd.nextInt(100) < nullPercent(engine)) {
                    row.setField(i, null);
                } else {
                    row.setField(i, value(f.type()));
                }
            }
            if (pk && engine.equals("deduplicate")) {
                int r = rnd.nextInt(10);
                if (r < 2) {
                    row.setRowKind(RowKind.DELETE);
                } else if (r < 3) {
                    row.setRowKind(RowKind.UPDATE_AFTER);
                }
            }
            return row;
        }

        int nullPercent(String engine) {
            return engine.equals("partial-update") ? 40 : 15;
        }

        Object value(DataType t) {
            switch (t.getTypeRoot()) {
                case INTEGER:
                    return rnd.nextInt(2000) - 1000;
                case BIGINT:
                    return (long) (rnd.nextInt(2000) - 1000);
                case VARCHAR:
                case CHAR:
                    return BinaryString.fromString("s" + rnd.nextInt(100) + (rnd.nextInt(5) == 0 ? "ü'\"" : ""));
                case DECIMAL:
                    DecimalType dt = (DecimalType) t;
                    return Decimal.fromBigDecimal(BigDecimal.valueOf(rnd.nextInt(2_000_000) - 1_000_000, 2),
                            dt.getPrecision(), dt.getScale());
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    return Timestamp.fromEpochMillis(1_767_225_600_000L + rnd.nextInt(1_000_000_000));
                case DATE:
                    return 20000 + rnd.nextInt(1000);
                case DOUBLE:
                    return (rnd.nextInt(4000) - 2000) / 8.0;
                case BOOLEAN:
                    return rnd.nextBoolean();
                case TINYINT:
                    return (byte) rnd.nextInt(100);
                case SMALLINT:
                    return (short) rnd.nextInt(1000);
                case FLOAT:
                    return (rnd.nextInt(400) - 200) / 4.0f;
                default:
                    throw new IllegalArgumentException("no random values for " + t);
            }
        }
    }
}
