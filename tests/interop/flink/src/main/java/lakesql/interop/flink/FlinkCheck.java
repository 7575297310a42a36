package lakesql.interop.flink;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink SQL (1.20 table planner, local mini-cluster) with paimon-flink-1.20
 * on a Paimon catalog over lakesql's warehouse, driven by
 * tests/interop_flink_test.go. Prints JSON lines.
 *
 * <pre>
 *   session                      reads the commands below from standard input, one
 *                                per line, printing {"op":"done"} after each (one
 *                                JVM for the whole check)
 *   setup --warehouse W          creates shop.orders (the design document's DDL:
 *                                changelog-producer=lookup, deduplicate, no bucket
 *                                option: dynamic buckets) and shop.orders_rw
 *                                (changelog-producer=input, 2 buckets), INSERTs
 *                                from VALUES (and updates a key of orders in a
 *                                second INSERT), prints a batch SELECT of each
 *   check --warehouse W --stream TABLE:SNAPSHOT:K [--stream ...]
 *                                batch SELECT of both tables, then for each
 *                                --stream a streaming SELECT of TABLE with
 *                                scan.mode=from-snapshot from SNAPSHOT, printing
 *                                its first K changes (or what arrived within
 *                                -Dstream.timeout.ms, 120 s by default)
 * </pre>
 */
public final class FlinkCheck {
    static final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("session")) {
            // One JVM for several commands: each line of standard input is
            // a command; {"op":"done"} follows each one's output.
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty()) {
                    continue;
                }
                run(line.split("\\s+"));
                out.println("{\"op\":\"done\"}");
                out.flush();
            }
        } else {
            run(args);
        }
        out.flush();
        System.exit(0);
    }

    static final Map<String, TableEnvironment> envs = new HashMap<>();

    static void run(String[] args) throws Exception {
        String cmd = args[0];
        String warehouse = flag(args, "--warehouse");
        if (cmd.equals("setup")) {
            TableEnvironment t = env(warehouse, false);
            t.executeSql("CREATE DATABASE IF NOT EXISTS shop");
            t.executeSql("USE shop");
            t.executeSql("CREATE TABLE orders (\n"
                    + "  order_id BIGINT,\n"
                    + "  user_id BIGINT,\n"
                    + "  status STRING,\n"
                    + "  updated_at TIMESTAMP(3),\n"
                    + "  PRIMARY KEY (order_id) NOT ENFORCED\n"
                    + ") WITH (\n"
                    + "  'changelog-producer' = 'lookup',\n"
                    + "  'merge-engine' = 'deduplicate'\n"
                    + ")");
            t.executeSql("CREATE TABLE orders_rw (\n"
                    + "  order_id BIGINT,\n"
                    + "  user_id BIGINT,\n"
                    + "  status STRING,\n"
                    + "  updated_at TIMESTAMP(3),\n"
                    + "  PRIMARY KEY (order_id) NOT ENFORCED\n"
                    + ") WITH (\n"
                    + "  'changelog-producer' = 'input',\n"
                    + "  'merge-engine' = 'deduplicate',\n"
                    + "  'bucket' = '2'\n"
                    + ")");
            String values = "VALUES (1, 10, 'new', TIMESTAMP '2026-01-01 10:00:00.123'),"
                    + " (2, 11, 'paid', TIMESTAMP '2026-01-01 10:05:00'),"
                    + " (3, 10, 'shipped', TIMESTAMP '2026-01-02 08:00:00.5'),"
                    + " (4, 12, 'new', TIMESTAMP '2026-01-02 09:30:00'),"
                    + " (5, 13, 'cancelled', CAST(NULL AS TIMESTAMP(3)))";
            StatementSet both = t.createStatementSet();
            both.addInsertSql("INSERT INTO orders " + values);
            both.addInsertSql("INSERT INTO orders_rw " + values);
            both.execute().await();
            // A second commit that updates a key (the lookup producer's changelog).
            t.executeSql("INSERT INTO orders VALUES (2, 11, 'shipped', TIMESTAMP '2026-01-03 00:00:00')").await();
            batch(t, "orders");
            batch(t, "orders_rw");
        } else if (cmd.equals("check")) {
            TableEnvironment t = env(warehouse, false);
            t.executeSql("USE shop");
            batch(t, "orders");
            batch(t, "orders_rw");
            TableEnvironment s = env(warehouse, true);
            s.executeSql("USE shop");
            for (String spec : flags(args, "--stream")) {
                String[] p = spec.split(":");
                stream(s, p[0], Long.parseLong(p[1]), Integer.parseInt(p[2]));
            }
        } else {
            throw new IllegalArgumentException("unknown command " + cmd);
        }
        out.flush();
    }

    /** Prints the first {@code changes} rows of a streaming read of table from snapshot {@code from}. */
    static void stream(TableEnvironment s, String table, long from, int changes) throws Exception {
        TableResult r = s.executeSql("SELECT * FROM " + table + " /*+ OPTIONS('scan.mode' = 'from-snapshot', "
                + "'scan.snapshot-id' = '" + from + "') */");
        List<String> rows = java.util.Collections.synchronizedList(new ArrayList<>());
        CloseableIterator<Row> it = r.collect();
        Thread reader = new Thread(() -> {
            try {
                while (rows.size() < changes && it.hasNext()) {
                    rows.add(rowJson(it.next()));
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        });
        reader.setDaemon(true);
        reader.start();
        // An unbounded read: print what arrived within the time limit.
        reader.join(Long.parseLong(System.getProperty("stream.timeout.ms", "120000")));
        out.println("{\"op\":\"stream\",\"table\":\"shop." + table + "\",\"from\":" + from + ",\"rows\":["
                + String.join(",", rows) + "]}");
        out.flush();
        try {
            it.close(); // cancels the streaming job
        } catch (Exception e) {
            // the job may already be gone
        }
    }

    static List<String> flags(String[] args, String name) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                out.add(args[i + 1]);
            }
        }
        return out;
    }

    static String flag(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        throw new IllegalArgumentException(name + " is required");
    }

    static TableEnvironment env(String warehouse, boolean streaming) {
        String key = warehouse + (streaming ? "#stream" : "#batch");
        TableEnvironment t = envs.get(key);
        if (t == null) {
            t = newEnv(warehouse, streaming);
            envs.put(key, t);
        }
        return t;
    }

    static TableEnvironment newEnv(String warehouse, boolean streaming) {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("taskmanager.numberOfTaskSlots", "2");
        EnvironmentSettings.Builder b = EnvironmentSettings.newInstance().withConfiguration(conf);
        TableEnvironment t = TableEnvironment.create(streaming ? b.inStreamingMode().build() : b.inBatchMode().build());
        t.executeSql("CREATE CATALOG paimon WITH ('type' = 'paimon', 'cache-enabled' = 'false', 'warehouse' = 'file://" + warehouse + "')");
        t.executeSql("USE CATALOG paimon");
        return t;
    }

    static void batch(TableEnvironment t, String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT * FROM " + table).collect()) {
            while (it.hasNext()) {
                rows.add(rowJson(it.next()));
            }
        }
        out.println("{\"op\":\"read\",\"table\":\"shop." + table + "\",\"columns\":[\"order_id\",\"user_id\",\"status\",\"updated_at\"],\"rows\":["
                + String.join(",", rows) + "]}");
    }

    static String rowJson(Row r) {
        StringBuilder b = new StringBuilder("[");
        quote(b, r.getKind().shortString());
        for (int i = 0; i < r.getArity(); i++) {
            b.append(',');
            Object v = r.getField(i);
            if (v == null) {
                b.append("null");
            } else if (v instanceof LocalDateTime) {
                LocalDateTime ldt = (LocalDateTime) v;
                String s = ldt.toLocalDate() + " " + String.format("%02d:%02d:%02d", ldt.getHour(), ldt.getMinute(), ldt.getSecond());
                if (ldt.getNano() != 0) {
                    s += "." + String.format("%09d", ldt.getNano()).replaceAll("0+$", "");
                }
                quote(b, s);
            } else {
                quote(b, v.toString());
            }
        }
        return b.append(']').toString();
    }

    static void quote(StringBuilder b, String s) {
        b.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\');
            }
            if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
