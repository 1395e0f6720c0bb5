//go:build !wasip1

package copycat

import (
	"fmt"
	"os"
	"time"
)

var levelNames = [...]string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR"}

func hostLog(level Level, message string) {
	name := "INFO"
	if level >= 0 && int(level) < len(levelNames) {
		name = levelNames[level]
	}
	fmt.Fprintf(os.Stderr, "%s %s\n", name, message)
}

var start = time.Now()

func hostNowMillis() int64 { return time.Now().UnixMilli() }

func hostMonotonicNanos() uint64 { return uint64(time.Since(start).Nanoseconds()) }
