// Package sink is the Copycat Go SDK for sink connectors (the world `sink`
// of copycat:connector@0.3.0, with the errant record reporter): Copycat reads records from Kafka through a consumer group and a
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
	"fmt"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_connector"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_sink_task"
	_ "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/wit_exports_sink" // the component's exports
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

// TopicPartition is a Kafka topic partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// Record is a record read from Kafka. Its payloads borrow the batch's
// memory, valid until Put returns: copy (or decode) what you keep.
type Record struct {
	Topic     string
	Partition int32
	// Offset is the record's offset in its topic partition.
	Offset int64
	// Key and Value: raw bytes (ByteArrayConverter) or typed values, as
	// the connector's converters read them; null when the record has
	// none (a null Value is a tombstone).
	Key, Value copycat.Payload
	Headers    []copycat.Header
	// Timestamp is the record's time as stored in Kafka; zero if none.
	Timestamp time.Time
}

// TopicPartition returns the record's topic partition.
func (r *Record) TopicPartition() TopicPartition {
	return TopicPartition{Topic: r.Topic, Partition: r.Partition}
}

// Batch is what Put receives: the records of one WIT `sink-batch`,
// read in place. Index records from 0 to Len()-1; that index is also the
// one [ReportErrant] takes.
type Batch struct {
	view       batch.View
	topics     []string
	topicIdx   []uint32
	partitions []int32
	offsets    []int64
	timestamps []int64
}

// Len is the number of records.
func (b *Batch) Len() int { return b.view.Len() }

// Record returns record i (0 <= i < Len()). Its payloads borrow the
// batch. An error means the batch's encoding is broken (a bug in the host
// or the SDK), never the record's content.
func (b *Batch) Record(i int) (Record, error) {
	r := Record{
		Topic:     b.topics[b.topicIdx[i]],
		Partition: b.partitions[i],
		Offset:    b.offsets[i],
	}
	if ts := b.timestamps[i]; ts >= 0 {
		r.Timestamp = time.UnixMilli(ts)
	}
	var err error
	if r.Key, err = b.view.Key(i); err != nil {
		return r, fmt.Errorf("record %d: key: %w", i, err)
	}
	if r.Value, err = b.view.Value(i); err != nil {
		return r, fmt.Errorf("record %d: value: %w", i, err)
	}
	if r.Headers, err = b.view.Headers(i); err != nil {
		return r, fmt.Errorf("record %d: %w", i, err)
	}
	return r, nil
}

// NewBatch builds a batch from records (for tests of a sink natively):
// their payloads are encoded as the host would send them.
func NewBatch(records ...Record) (*Batch, error) {
	var bb batch.Builder
	out := &Batch{}
	index := map[string]uint32{}
	for i, r := range records {
		if err := bb.Append(r.Key, r.Value, r.Headers); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		t, ok := index[r.Topic]
		if !ok {
			t = uint32(len(out.topics))
			out.topics = append(out.topics, r.Topic)
			index[r.Topic] = t
		}
		out.topicIdx = append(out.topicIdx, t)
		out.partitions = append(out.partitions, r.Partition)
		out.offsets = append(out.offsets, r.Offset)
		ts := int64(-1)
		if !r.Timestamp.IsZero() {
			ts = r.Timestamp.UnixMilli()
		}
		out.timestamps = append(out.timestamps, ts)
	}
	schemas, err := copycat.ReadSchemas(bb.Schemas.Nodes())
	if err != nil {
		return nil, err
	}
	out.view = batch.View{Data: bb.Data, KeyLengths: bb.KeyLengths, ValueLengths: bb.ValueLengths,
		HeaderCounts: bb.HeaderCounts, HeaderKeyLengths: bb.HeaderKeyLengths, HeaderValueLengths: bb.HeaderValueLengths,
		Schemas: schemas, KeySchemas: bb.KeySchemas, ValueSchemas: bb.ValueSchemas, HeaderSchemas: bb.HeaderSchemas}
	return out, out.view.Init()
}

// fromWIT reads the host's batch in place (its columns and data stay in
// the arena until Put returns); topic names and schemas are copied.
func fromWIT(w *copycat_connector_batch.SinkBatch) (*Batch, error) {
	n := len(w.ValueLengths)
	if len(w.TopicIndices) != n || len(w.Partitions) != n || len(w.Offsets) != n || len(w.Timestamps) != n {
		return nil, fmt.Errorf("malformed batch: record columns of different lengths")
	}
	b := &Batch{topicIdx: w.TopicIndices, partitions: w.Partitions, offsets: w.Offsets, timestamps: w.Timestamps}
	b.topics = make([]string, len(w.Topics))
	for i, t := range w.Topics {
		b.topics[i] = glue.String(t)
	}
	for i, t := range w.TopicIndices {
		if int(t) >= len(b.topics) {
			return nil, fmt.Errorf("malformed batch: record %d: topic index %d of %d topics", i, t, len(b.topics))
		}
	}
	schemas, err := copycat.ReadSchemas(glue.NodesFromWIT(w.Schemas))
	if err != nil {
		return nil, err
	}
	b.view = batch.View{Data: w.Data, KeyLengths: w.KeyLengths, ValueLengths: w.ValueLengths,
		HeaderCounts: w.HeaderCounts, HeaderKeyLengths: w.HeaderKeyLengths, HeaderValueLengths: w.HeaderValueLengths,
		Schemas: schemas, KeySchemas: w.KeySchemas, ValueSchemas: w.ValueSchemas, HeaderSchemas: w.HeaderSchemas}
	return b, b.view.Init()
}

// Task is a started sink task.
type Task interface {
	// Put writes (or buffers) a batch of records. Records only count as
	// delivered after a successful Flush. A retriable error
	// (copycat.Retriablef) makes the host deliver the same batch again.
	// The batch is valid until Put returns.
	Put(batch *Batch) error
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

func (h *handler) Put(w *copycat_connector_batch.SinkBatch) error {
	// The batch is read in place: the host's memory is released after Put.
	defer glue.Release()
	if h.task == nil {
		return glue.NotStarted
	}
	b, err := fromWIT(w)
	if err != nil {
		return err
	}
	return h.task.Put(b)
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
