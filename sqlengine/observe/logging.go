package observe

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Log formats.
const (
	LogText = "text"
	LogJSON = "json"
)

// ParseLevel reads a level name: debug, info, warn (warning), error.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("observe: unknown log level %q (debug, info, warn, error)", s)
}

// NewLogger returns a slog logger writing to w in format (text or json)
// at level and above.
func NewLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	lv, err := ParseLevel(level)
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "", LogText:
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case LogJSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("observe: unknown log format %q (text, json)", format)
}
