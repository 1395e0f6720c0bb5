// Package dynamic lets a source or sink connector reconfigure its tasks
// while it runs (copycat:dynamic@0.1.0, Kafka Connect's
// Connector.start / taskConfigs / stop with a ConnectorContext): the host
// keeps one running [Instance] per connector, calls its Monitor every
// connector.monitor.interval.ms (default 5000), and when the instance
// calls [RequestTaskReconfiguration] asks TaskConfigs again and, if they
// changed, restarts the tasks with the new configs (each resuming from
// its committed offsets).
//
// Register the instance beside the connector, from an init function:
//
//	func init() {
//		source.Export(Counter{}, Start)
//		dynamic.Export(&Watcher{})
//	}
//
// Importing this package makes the component export
// `copycat:dynamic/instance` (guest-sdk/go/componentize.sh sees the export
// and embeds the dynamic world); a connector that does not import it is
// not dynamic.
package dynamic

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_dynamic_instance"
	_ "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/wit_exports_dynamic" // the component's exports
)

// Instance is the running connector instance.
type Instance interface {
	// Start begins watching the source with the connector's config
	// (already validated). false: this config gives nothing to watch; the
	// host asks TaskConfigs once, then stops the instance. An error fails
	// the connector (a config error naming the key, usually).
	Start(cfg copycat.Config) (bool, error)
	// TaskConfigs returns the task configs for the work as the instance
	// sees it now, at most maxTasks; called after Start and after each
	// RequestTaskReconfiguration. An error fails the connector.
	TaskConfigs(maxTasks int) ([]copycat.Config, error)
	// Monitor looks at the source and calls RequestTaskReconfiguration
	// when the work changed. A retriable error (copycat.Retriablef) is
	// logged and the next call comes as usual; any other fails the
	// connector.
	Monitor() error
	// Stop: the connector stops (deleted, paused, failed, its worker
	// stops).
	Stop()
}

// Export registers the instance. Call it from an init function of package
// main, beside source.Export or sink.Export.
func Export(instance Instance) {
	export_copycat_dynamic_instance.Impl = instance
}

// RequestTaskReconfiguration asks the host to call TaskConfigs again and
// replace the tasks if their configs changed. Cheap: the host acts once the
// current call returns, however often it was called. Calls from a task's
// instance are ignored by the host. Natively (go test) it counts calls in
// [TestContext].
func RequestTaskReconfiguration() { requestTaskReconfiguration() }

// RaiseError puts the connector in FAILED with message (the first 4 KiB
// are kept): the host stops the instance after the current call; the
// tasks go on. Natively it records the message in [TestContext].
func RaiseError(message string) { raiseError(message) }
