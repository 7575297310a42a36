package sqlengine

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/sirupsen/logrus"
)

// go-mysql-server and vitess log through logrus; lakesql logs through
// log/slog. routeLogrus sends every logrus entry to slog.Default(): GMS's
// info lines (one per connection, per KILL, …) become debug lines, its
// warnings and errors stay what they are, and logrus's fields become
// attributes. logrus itself writes nothing. It is installed once per
// process, by New; the logrus level follows whether slog logs debug.
func routeLogrus() {
	logrusOnce.Do(func() {
		logrus.SetOutput(io.Discard)
		logrus.SetFormatter(&logrus.TextFormatter{DisableColors: true})
		logrus.AddHook(slogHook{})
	})
	lv := logrus.WarnLevel
	if slog.Default().Enabled(context.Background(), slog.LevelDebug) {
		lv = logrus.DebugLevel
	}
	logrus.SetLevel(lv)
}

var logrusOnce sync.Once

type slogHook struct{}

func (slogHook) Levels() []logrus.Level { return logrus.AllLevels }

func (slogHook) Fire(e *logrus.Entry) error {
	lv := slog.LevelDebug
	switch e.Level {
	case logrus.PanicLevel, logrus.FatalLevel, logrus.ErrorLevel:
		lv = slog.LevelError
	case logrus.WarnLevel:
		lv = slog.LevelWarn
		if e.Message == "error running query" {
			lv = slog.LevelDebug // the client gets the error; it is not the server's
		}
	}
	l := slog.Default()
	ctx := context.Background()
	if !l.Enabled(ctx, lv) {
		return nil
	}
	attrs := make([]slog.Attr, 0, len(e.Data)+1)
	attrs = append(attrs, slog.String("source", "go-mysql-server"))
	for k, v := range e.Data {
		attrs = append(attrs, slog.Any(k, v))
	}
	l.LogAttrs(ctx, lv, e.Message, attrs...)
	return nil
}
