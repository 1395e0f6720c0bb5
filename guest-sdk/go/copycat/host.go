package copycat

import "fmt"

// Level is the severity of a log line.
type Level int

const (
	LevelTrace Level = iota
	LevelDebug
	LevelInfo
	LevelWarn
	LevelError
)

// Log writes one line into the worker's log. The host tags it with the
// connector name and task id. Inside a component it calls the WIT
// `logging.log` import; natively (go test) it writes to stderr. (Anything
// written to os.Stdout or os.Stderr also ends up in the task's log.)
func Log(level Level, message string) { hostLog(level, message) }

// Logf is Log with fmt.Sprintf formatting.
func Logf(level Level, format string, args ...any) { hostLog(level, fmt.Sprintf(format, args...)) }

// NowMillis returns the host's wall clock in milliseconds since the Unix
// epoch (the WIT `clock.now-ms`). time.Now works too, through WASI.
func NowMillis() int64 { return hostNowMillis() }

// MonotonicNanos returns nanoseconds on a monotonic clock with an arbitrary
// origin (the WIT `clock.monotonic-ns`): use it for rates and timeouts.
func MonotonicNanos() uint64 { return hostMonotonicNanos() }

// Debugf logs at debug level.
func Debugf(format string, args ...any) { Logf(LevelDebug, format, args...) }

// Infof logs at info level.
func Infof(format string, args ...any) { Logf(LevelInfo, format, args...) }

// Warnf logs at warn level.
func Warnf(format string, args ...any) { Logf(LevelWarn, format, args...) }
