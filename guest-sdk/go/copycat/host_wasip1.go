//go:build wasip1

package copycat

import (
	// The logging and clock imports are the same in both worlds.
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_clock"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_logging"
)

func hostLog(level Level, message string) {
	copycat_connector_logging.Log(copycat_connector_logging.Level(min(max(level, LevelTrace), LevelError)), message)
}

func hostNowMillis() int64 { return copycat_connector_clock.NowMs() }

func hostMonotonicNanos() uint64 { return copycat_connector_clock.MonotonicNs() }
