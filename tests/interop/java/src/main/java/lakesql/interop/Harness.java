package lakesql.interop;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of the Java Paimon harness that lakesql's interop tests
 * (tests/interop_*_test.go) drive. Subcommands, each printing JSON lines on
 * standard output:
 *
 * <pre>
 *   read    --warehouse W --table db.t [--snapshot N | --all-snapshots] [--tags] [--audit-log] [--changes]
 *           (--changes: $audit_log with incremental-between each snapshot and its
 *           predecessor, and the whole range)
 *   write   --warehouse W --table db.t --seed S --config k=v,k=v,...
 *   compact --warehouse W --table db.t
 *   tag|delete-tag|rename-tag|branch|delete-branch|fast-forward|rollback|expire|orphans ...
 *           Java's own table maintenance (Maintain.java)
 *   script  FILE|-          one of the commands above per line (one JVM for many)
 * </pre>
 *
 * A failing command prints {"op":"error",...} and the process goes on with
 * the next script line; the exit code is 1 when any command failed.
 */
public final class Harness {
    static PrintWriter out;

    public static void main(String[] args) throws Exception {
        out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16));
        boolean ok;
        if (args.length == 2 && args[0].equals("script")) {
            ok = true;
            BufferedReader in = args[1].equals("-")
                    ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                    : new BufferedReader(new FileReader(args[1], StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                ok &= run(line.split("\\s+"));
            }
        } else {
            ok = run(args);
        }
        out.flush();
        System.exit(ok ? 0 : 1);
    }

    static boolean run(String[] args) {
        Map<String, String> flags = new HashMap<>();
        if (args.length == 0) {
            Json.obj().put("op", "error").put("error", "usage: read|write|compact|script ...").println(out);
            return false;
        }
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                Json.obj().put("op", "error").put("error", "unexpected argument " + a).println(out);
                return false;
            }
            String key = a.substring(2);
            if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                flags.put(key, args[++i]);
            } else {
                flags.put(key, "");
            }
        }
        try {
            switch (args[0]) {
                case "read":
                    Reader.run(flags);
                    break;
                case "write":
                    Writer.run(flags);
                    break;
                case "compact":
                    Writer.compactAll(flags);
                    break;
                case "tag":
                case "delete-tag":
                case "rename-tag":
                case "branch":
                case "delete-branch":
                case "fast-forward":
                case "rollback":
                case "expire":
                case "orphans":
                    Maintain.run(args[0], flags);
                    break;
                default:
                    throw new IllegalArgumentException("unknown command " + args[0]);
            }
            Json.obj().put("op", "done").put("command", String.join(" ", args)).println(out);
            return true;
        } catch (Throwable e) {
            StringBuilder msg = new StringBuilder(String.valueOf(e));
            for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
                msg.append(" <- ").append(c);
            }
            Json.obj().put("op", "error").put("command", String.join(" ", args)).put("error", msg.toString()).println(out);
            e.printStackTrace();
            return false;
        }
    }

    static String need(Map<String, String> flags, String key) {
        String v = flags.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("--" + key + " is required");
        }
        return v;
    }

    /** Parses "k=v,k=v" (a value may not contain ','; use ';' inside it). */
    static Map<String, String> parseConfig(String s) {
        Map<String, String> m = new LinkedHashMap<>();
        if (s == null || s.isEmpty()) {
            return m;
        }
        for (String kv : s.split(",")) {
            int eq = kv.indexOf('=');
            if (eq < 0) {
                m.put(kv, "1");
            } else {
                m.put(kv.substring(0, eq), kv.substring(eq + 1).replace(';', ','));
            }
        }
        return m;
    }

    static java.nio.file.Path tempDir() throws Exception {
        java.nio.file.Path p = Files.createTempDirectory("paimon-harness-io");
        p.toFile().deleteOnExit();
        return p;
    }

    static List<String> list(String... s) {
        return new ArrayList<>(Arrays.asList(s));
    }
}
