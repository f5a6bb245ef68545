package kafka

import (
	"context"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kgo"
)

// kgoLogger hands franz-go's warnings and errors to slog; its info and debug
// lines (every metadata refresh, every heartbeat) are too chatty for a
// service log.
type kgoLogger struct{ l *slog.Logger }

func (k kgoLogger) Level() kgo.LogLevel { return kgo.LogLevelWarn }

func (k kgoLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	lvl := slog.LevelWarn
	switch level {
	case kgo.LogLevelError:
		lvl = slog.LevelError
	case kgo.LogLevelInfo:
		lvl = slog.LevelInfo
	case kgo.LogLevelDebug:
		lvl = slog.LevelDebug
	}
	k.l.Log(context.Background(), lvl, "kafka client: "+msg, keyvals...)
}
