package lakesql.interop;

import java.time.Duration;
import java.util.Map;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.TimeUtils;

/**
 * Java Paimon's own table maintenance, for lakesql's interop tests of the
 * CALL sys.* procedures (each prints {"op":"maintained",...}):
 *
 * <pre>
 *   tag           --warehouse W --table db.t --name N [--snapshot S] [--retain DURATION]
 *   delete-tag    --warehouse W --table db.t --name N
 *   rename-tag    --warehouse W --table db.t --name N --to M
 *   branch        --warehouse W --table db.t --name B [--tag T]
 *   delete-branch --warehouse W --table db.t --name B
 *   fast-forward  --warehouse W --table db.t --name B
 *   rollback      --warehouse W --table db.t (--snapshot S | --tag T)   (S: an id or latest-N)
 *   expire        --warehouse W --table db.t --retain-max N --retain-min N
 *   orphans       --warehouse W --table db.t --older-than-ms MILLIS
 * </pre>
 *
 * The table may name a branch (db.t$branch_b).
 */
final class Maintain {
    static void run(String cmd, Map<String, String> flags) throws Exception {
        String warehouse = Harness.need(flags, "warehouse");
        Identifier id = Identifier.fromString(Harness.need(flags, "table"));
        try (Catalog cat = Reader.catalog(warehouse)) {
            FileStoreTable table = (FileStoreTable) cat.getTable(id);
            Json out = Json.obj().put("op", "maintained").put("command", cmd).put("table", id.getFullName());
            switch (cmd) {
                case "tag": {
                    String name = Harness.need(flags, "name");
                    Duration retain = flags.containsKey("retain") ? TimeUtils.parseDuration(flags.get("retain").replace('_', ' ')) : null;
                    if (flags.containsKey("snapshot")) {
                        long s = snapshotId(table, flags.get("snapshot"));
                        if (retain != null) {
                            table.createTag(name, s, retain);
                        } else {
                            table.createTag(name, s);
                        }
                    } else if (retain != null) {
                        table.createTag(name, retain);
                    } else {
                        table.createTag(name);
                    }
                    break;
                }
                case "delete-tag":
                    table.deleteTag(Harness.need(flags, "name"));
                    break;
                case "rename-tag":
                    table.renameTag(Harness.need(flags, "name"), Harness.need(flags, "to"));
                    break;
                case "branch":
                    if (flags.containsKey("tag")) {
                        table.createBranch(Harness.need(flags, "name"), flags.get("tag"));
                    } else {
                        table.createBranch(Harness.need(flags, "name"));
                    }
                    break;
                case "delete-branch":
                    table.deleteBranch(Harness.need(flags, "name"));
                    break;
                case "fast-forward":
                    table.fastForward(Harness.need(flags, "name"));
                    break;
                case "rollback":
                    if (flags.containsKey("tag")) {
                        table.rollbackTo(flags.get("tag"));
                    } else {
                        table.rollbackTo(snapshotId(table, Harness.need(flags, "snapshot")));
                    }
                    break;
                case "expire": {
                    int max = Integer.parseInt(Harness.need(flags, "retain-max"));
                    int min = Integer.parseInt(Harness.need(flags, "retain-min"));
                    int n = table.newExpireSnapshots().config(ExpireConfig.builder().snapshotRetainMax(max)
                            .snapshotRetainMin(min).snapshotTimeRetain(Duration.ZERO)
                            .snapshotMaxDeletes(Integer.MAX_VALUE).build()).expire();
                    out.put("expired", n);
                    break;
                }
                case "orphans": {
                    long older = Long.parseLong(Harness.need(flags, "older-than-ms"));
                    out.put("deleted", new LocalOrphanFilesClean(table, older).clean().getDeletedFileCount());
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown command " + cmd);
            }
            out.put("latestSnapshot", table.snapshotManager().latestSnapshotId() == null ? -1
                    : table.snapshotManager().latestSnapshotId()).println(Harness.out);
        }
    }

    /** A snapshot id, or latest-N. */
    static long snapshotId(FileStoreTable table, String s) {
        if (s.startsWith("latest")) {
            long latest = table.snapshotManager().latestSnapshotId();
            return s.equals("latest") ? latest : latest - Long.parseLong(s.substring("latest-".length()));
        }
        return Long.parseLong(s);
    }
}
