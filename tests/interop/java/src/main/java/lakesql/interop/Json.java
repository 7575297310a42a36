package lakesql.interop;

import java.io.PrintWriter;
import java.util.List;

/** A minimal JSON object writer (strings, numbers, booleans, nested values). */
final class Json {
    private final StringBuilder sb = new StringBuilder("{");
    private boolean first = true;

    static Json obj() {
        return new Json();
    }

    private Json key(String k) {
        if (!first) {
            sb.append(',');
        }
        first = false;
        quote(sb, k);
        sb.append(':');
        return this;
    }

    Json put(String k, String v) {
        key(k);
        if (v == null) {
            sb.append("null");
        } else {
            quote(sb, v);
        }
        return this;
    }

    Json put(String k, long v) {
        key(k).sb.append(v);
        return this;
    }

    Json put(String k, boolean v) {
        key(k).sb.append(v);
        return this;
    }

    /** Puts raw JSON text. */
    Json raw(String k, String json) {
        key(k).sb.append(json);
        return this;
    }

    Json strings(String k, List<String> v) {
        key(k);
        sb.append(array(v));
        return this;
    }

    static String array(List<String> v) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < v.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            if (v.get(i) == null) {
                b.append("null");
            } else {
                quote(b, v.get(i));
            }
        }
        return b.append(']').toString();
    }

    @Override
    public String toString() {
        return sb.toString() + "}";
    }

    void println(PrintWriter w) {
        w.println(toString());
    }

    static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    b.append("\\\"");
                    break;
                case '\\':
                    b.append("\\\\");
                    break;
                case '\n':
                    b.append("\\n");
                    break;
                case '\r':
                    b.append("\\r");
                    break;
                case '\t':
                    b.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }
}
