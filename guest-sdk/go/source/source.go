// Package source is the Copycat Go SDK for source connectors (the WIT world
// `source`): a task reads input streams and returns records, which Copycat
// writes to Kafka.
//
// A source connector is a Go main package that registers its
// [copycat.Connector] and the function that starts a [Task]:
//
//	func init() { source.Export(Counter{}, startCounter) }
//
//	func main() {} // required by Go, never called
//
// Each task runs in its own WebAssembly instance (its own memory), so
// package-level state is per task. The host calls start once, then Poll
// repeatedly (with Commit notifications in between), then Stop.
package source

import (
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_connector"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_source_task"
	_ "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/wit_exports_source" // the component's exports
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

// Record is one record for Kafka.
type Record struct {
	// SourcePartition names the input stream the record came from (a file
	// path, a table, "stream-3"); offsets are stored per source partition.
	SourcePartition string
	// SourceOffset is the record's position in that stream, chosen by the
	// connector (decimal numbers or JSON work well). Once the record is in
	// Kafka the host stores it, and a restarted task resumes after it.
	SourceOffset string
	// Topic is the Kafka topic; "" means the connector's `topic`.
	Topic string
	// Partition is the Kafka partition; nil lets the producer's partitioner
	// choose (by key hash). See [KafkaPartition].
	Partition *int32
	// Key and Value are the record's bytes; nil is none (a nil Value is a
	// tombstone), []byte{} is empty.
	Key, Value []byte
	Headers    []copycat.Header
	// Timestamp is the record's time; the zero Time lets Kafka stamp it.
	Timestamp time.Time
}

// KafkaPartition returns a pointer for [Record.Partition].
func KafkaPartition(p int32) *int32 { return &p }

// Task is a started source task.
type Task interface {
	// Poll returns the next batch of at most maxRecords records. It must
	// return quickly: when nothing is ready, return an empty batch and the
	// host calls again after a short back-off. Never sleep or busy-wait;
	// every call has a CPU time limit.
	Poll(maxRecords int) ([]Record, error)
}

// Committer is implemented by tasks that want to know when offsets are
// durable (their records acknowledged by Kafka and the offsets stored), to
// acknowledge upstream. Offsets maps each source partition to its latest
// committed offset. Errors are only logged by the host.
type Committer interface {
	Commit(offsets map[string]string) error
}

// Stopper is implemented by tasks that release resources when stopped. No
// call follows Stop.
type Stopper interface {
	Stop()
}

// StartFunc starts a task with one of the configs that TaskConfigs
// returned. Read the committed offsets here ([ReadOffsets]) to resume. Return
// a config error (copycat.Configf, or a Reader's Err) for a missing or bad key.
type StartFunc func(cfg copycat.Config) (Task, error)

// Export registers the connector and its task. Call it from an init
// function of package main; the component's exports call into them.
func Export(connector copycat.Connector, start StartFunc) {
	export_copycat_connector_connector.Impl = connector
	export_copycat_connector_connector.Kind = copycat_connector_types.ConnectorKind_Source
	export_copycat_connector_source_task.Task = &handler{start: start}
}

// handler adapts the user's task to the generated binding types. Values
// from the host are copied, then released with glue.Release (see
// internal/wit/runtime).
type handler struct {
	start StartFunc
	task  Task
}

func (h *handler) Start(cfg copycat.Config) error {
	task, err := h.start(cfg)
	if err != nil {
		return err
	}
	if task == nil {
		return copycat.Fatalf("start returned no task")
	}
	h.task = task
	return nil
}

func (h *handler) Poll(maxRecords int) ([]copycat_connector_types.SourceRecord, error) {
	if h.task == nil {
		return nil, glue.NotStarted
	}
	records, err := h.task.Poll(maxRecords)
	if err != nil {
		return nil, err
	}
	if len(records) > maxRecords {
		return nil, copycat.Fatalf("poll returned %d records, more than the %d asked for", len(records), maxRecords)
	}
	out := make([]copycat_connector_types.SourceRecord, len(records))
	for i := range records {
		out[i] = toWIT(&records[i])
	}
	return out, nil
}

func toWIT(r *Record) copycat_connector_types.SourceRecord {
	out := copycat_connector_types.SourceRecord{
		SourcePartition: r.SourcePartition,
		SourceOffset:    r.SourceOffset,
		Topic:           witTypes.None[string](),
		Partition:       witTypes.None[int32](),
		Key:             glue.OptBytes(r.Key),
		Value:           glue.OptBytes(r.Value),
		Headers:         glue.HeadersToWIT(r.Headers),
		Timestamp:       witTypes.None[int64](),
	}
	if r.Topic != "" {
		out.Topic = witTypes.Some(r.Topic)
	}
	if r.Partition != nil {
		out.Partition = witTypes.Some(*r.Partition)
	}
	if !r.Timestamp.IsZero() {
		out.Timestamp = witTypes.Some(r.Timestamp.UnixMilli())
	}
	return out
}

func (h *handler) Commit(offsets []copycat_connector_types.SourcePosition) error {
	m := make(map[string]string, len(offsets))
	for _, p := range offsets {
		m[glue.String(p.Partition)] = glue.String(p.Offset)
	}
	glue.Release()
	if c, ok := h.task.(Committer); ok {
		return c.Commit(m)
	}
	return nil
}

func (h *handler) Stop() {
	if s, ok := h.task.(Stopper); ok {
		s.Stop()
	}
	h.task = nil
}
