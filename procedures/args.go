package procedures

import (
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// withDynamicOptions overlays the "options" argument ('k1=v1,k2=v2', Java:
// ParameterUtils.parseCommaSeparatedKeyValues) on the table options.
func withDynamicOptions(base schema.Options, args Args) (schema.Options, error) {
	s, ok := args.String("options")
	out := make(schema.Options, len(base))
	for k, v := range base {
		out[k] = v
	}
	if !ok || strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, found := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !found || k == "" {
			return nil, badValue("options", s, "want 'key=value' pairs separated by commas")
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// timestampLayouts are the forms a timestamp argument may take (Java:
// DateTimeUtils.parseTimestampData).
var timestampLayouts = []string{
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02",
}

// parseTimestampArg parses a timestamp argument as UTC wall-clock time (as
// AS OF TIMESTAMP reads it).
func parseTimestampArg(name, s string) (time.Time, error) {
	v := strings.TrimSpace(s)
	for _, l := range timestampLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, badValue(name, s, "want a timestamp such as '2026-01-31 12:00:00' (UTC)")
}
