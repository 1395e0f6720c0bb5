// Package sink is the Copycat Go SDK for sink connectors (the WIT world
// `sink`): Copycat reads records from Kafka through a consumer group and a
// task writes them somewhere else.
//
// A sink connector is a Go main package that registers its
// [copycat.Connector] and the function that starts a [Task]:
//
//	func init() { sink.Export(Lines{}, startLines) }
//
//	func main() {} // required by Go, never called
//
// Each task runs in its own WebAssembly instance. The host calls start,
// then for each partition assignment Open (if the task implements [Opener]),
// Put and Flush as records arrive, Close ([Closer]) when partitions are
// revoked, and finally Stop ([Stopper]). From Put, [ReportErrant] hands a
// record the task cannot write to the connector's dead letter queue.
package sink

import (
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_connector"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_sink_task"
	_ "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/wit_exports_sink" // the component's exports
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

// TopicPartition is a Kafka topic partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// Record is a record read from Kafka.
type Record struct {
	Topic     string
	Partition int32
	// Offset is the record's offset in its topic partition.
	Offset int64
	// Key and Value are nil when the record has none (a nil Value is a
	// tombstone); an empty one is []byte{}. They point into memory the SDK
	// does not reuse: keeping them after Put returns is fine.
	Key, Value []byte
	Headers    []copycat.Header
	// Timestamp is the record's time as stored in Kafka; zero if none.
	Timestamp time.Time
}

// TopicPartition returns the record's topic partition.
func (r *Record) TopicPartition() TopicPartition {
	return TopicPartition{Topic: r.Topic, Partition: r.Partition}
}

// Task is a started sink task.
type Task interface {
	// Put writes (or buffers) a batch of records. Records only count as
	// delivered after a successful Flush. A retriable error
	// (copycat.Retriablef) makes the host deliver the same batch again.
	Put(records []Record) error
	// Flush makes everything Put so far durable. offsets holds the next
	// offset to read per partition; the host commits them to Kafka only if
	// Flush returns nil, so on failure the records are delivered again.
	Flush(offsets map[TopicPartition]int64) error
}

// Opener is implemented by tasks that keep their own record of progress in
// the destination. Open is called when partitions are assigned; it returns
// the next offset to read for those partitions it knows, and the host seeks
// there instead of using the consumer group's committed offsets.
type Opener interface {
	Open(partitions []TopicPartition) (map[TopicPartition]int64, error)
}

// Closer is implemented by tasks that drop per-partition state when
// partitions are revoked (the host has flushed them already).
type Closer interface {
	Close(partitions []TopicPartition) error
}

// Stopper is implemented by tasks that release resources when stopped. No
// call follows Stop.
type Stopper interface {
	Stop()
}

// StartFunc starts a task with one of the configs that TaskConfigs
// returned. Return a config error (copycat.Configf, or a Reader's Err) for a
// missing or bad key.
type StartFunc func(cfg copycat.Config) (Task, error)

// Export registers the connector and its task. Call it from an init
// function of package main; the component's exports call into them.
func Export(connector copycat.Connector, start StartFunc) {
	export_copycat_connector_connector.Impl = connector
	export_copycat_connector_connector.Kind = copycat_connector_types.ConnectorKind_Sink
	export_copycat_connector_sink_task.Task = &handler{start: start}
}

type (
	witTP  = copycat_connector_types.TopicPartition
	witTPO = copycat_connector_types.TopicPartitionOffset
)

// handler adapts the user's task to the generated binding types. Every
// method first copies what the host passed and calls glue.Release (see
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

// partitions converts (copies) partitions from the host and releases the
// host's memory.
func partitions(tps []witTP) []TopicPartition {
	out := make([]TopicPartition, len(tps))
	for i, tp := range tps {
		out[i] = TopicPartition{Topic: glue.String(tp.Topic), Partition: tp.Partition}
	}
	glue.Release()
	return out
}

func (h *handler) Open(tps []witTP) ([]witTPO, error) {
	assigned := partitions(tps)
	if h.task == nil {
		return nil, glue.NotStarted
	}
	o, ok := h.task.(Opener)
	if !ok {
		return nil, nil
	}
	offsets, err := o.Open(assigned)
	if err != nil {
		return nil, err
	}
	out := make([]witTPO, 0, len(offsets))
	for tp, off := range offsets {
		out = append(out, witTPO{Topic: tp.Topic, Partition: tp.Partition, Offset: off})
	}
	return out, nil
}

func (h *handler) Put(records []copycat_connector_types.SinkRecord) error {
	out := make([]Record, len(records))
	var topic string // one copy per run of records of the same topic
	for i := range records {
		r := &records[i]
		if r.Topic != topic || i == 0 {
			topic = glue.String(r.Topic)
		}
		out[i] = Record{
			Topic:     topic,
			Partition: r.Partition,
			Offset:    r.Offset,
			Key:       glue.Bytes(r.Key),
			Value:     glue.Bytes(r.Value),
			Headers:   glue.Headers(r.Headers),
		}
		if r.Timestamp.IsSome() {
			out[i].Timestamp = time.UnixMilli(r.Timestamp.Some())
		}
	}
	glue.Release()
	if h.task == nil {
		return glue.NotStarted
	}
	return h.task.Put(out)
}

func (h *handler) Flush(offsets []witTPO) error {
	m := make(map[TopicPartition]int64, len(offsets))
	for _, o := range offsets {
		m[TopicPartition{Topic: glue.String(o.Topic), Partition: o.Partition}] = o.Offset
	}
	glue.Release()
	if h.task == nil {
		return glue.NotStarted
	}
	return h.task.Flush(m)
}

func (h *handler) Close(tps []witTP) error {
	revoked := partitions(tps)
	if c, ok := h.task.(Closer); ok {
		return c.Close(revoked)
	}
	return nil
}

func (h *handler) Stop() {
	if s, ok := h.task.(Stopper); ok {
		s.Stop()
	}
	h.task = nil
}
