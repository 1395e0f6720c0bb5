// Package source is the Copycat Go SDK for source connectors (the world
// `source` of copycat:connector@0.3.0): a task reads input streams and
// fills batches of records, which Copycat writes to Kafka.
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
//
// Poll fills a [Batch] that the SDK reuses from one poll to the next: raw
// records go in with [Batch.Append] (two copies, no allocation), typed or
// detailed ones with [Batch.Add]; [Batch.Advance] records the latest
// source offset of each source partition the batch advances.
package source

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_connector"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_source_task"
	_ "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/wit_exports_source" // the component's exports
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

// Record is one record for Kafka, for [Batch.Add].
type Record struct {
	// Topic is the Kafka topic; "" means the connector's `topic`.
	Topic string
	// Partition is the Kafka partition; nil lets the producer's partitioner
	// choose (by key hash). See [KafkaPartition].
	Partition *int32
	// Key and Value: raw bytes ([copycat.Raw]), typed ([copycat.Typed],
	// [copycat.Of]) or schemaless ([copycat.Schemaless]); the zero Payload
	// is null (no key; a tombstone value).
	Key, Value copycat.Payload
	Headers    []copycat.Header
	// Timestamp is the record's time; the zero Time lets Kafka stamp it.
	Timestamp time.Time
}

// KafkaPartition returns a pointer for [Record.Partition].
func KafkaPartition(p int32) *int32 { return &p }

// Batch is what Poll fills: records packed into the columns of the WIT
// `source-batch`, and the latest source offset of each source partition
// the batch advances. The SDK hands the same Batch, emptied, to every
// Poll, so its memory is reused.
type Batch struct {
	b          batch.Builder
	max        int
	sparse     bool // an optional column is in use: Append pads it
	topics     []string
	topicIndex map[string]int32
	topicIdx   []int32 // empty, or per record
	partitions []int32 // empty, or per record
	timestamps []int64 // empty, or per record
	positions  []copycat_connector_types.SourcePosition
	nodes      []glue.WITNode
}

// NewBatch returns an empty batch of at most max records (for tests; the
// SDK makes the one Poll fills).
func NewBatch(max int) *Batch { return &Batch{max: max} }

func (b *Batch) reset(max int) {
	b.b.Reset()
	b.max = max
	b.sparse = false
	b.topics = b.topics[:0]
	clear(b.topicIndex)
	b.topicIdx = b.topicIdx[:0]
	b.partitions = b.partitions[:0]
	b.timestamps = b.timestamps[:0]
	b.positions = b.positions[:0]
}

// Max is the most records this poll may return (the host's max-records).
func (b *Batch) Max() int { return b.max }

// Len is the number of records in the batch.
func (b *Batch) Len() int { return b.b.Len() }

// Full reports whether the batch holds Max records.
func (b *Batch) Full() bool { return b.b.Len() >= b.max }

// Append adds a record of raw bytes (nil key: none; nil value: a
// tombstone) for the configured topic, without headers or timestamp. The
// bytes are copied: reuse key and value for the next record. This is the
// fast path: two copies into the batch's data buffer and an entry in each
// of two integer columns, no allocation once the batch's memory has grown.
func (b *Batch) Append(key, value []byte) {
	if b.sparse || key == nil || value == nil {
		b.appendSlow(key, value)
		return
	}
	b.b.Data = append(append(b.b.Data, key...), value...)
	b.b.KeyLengths = append(b.b.KeyLengths, int32(len(key)))
	b.b.ValueLengths = append(b.b.ValueLengths, int32(len(value)))
}

// appendSlow is Append for a null key or value, or a batch whose optional
// columns are in use (they get an entry per record too).
func (b *Batch) appendSlow(key, value []byte) {
	b.b.AppendRaw(key, value)
	if b.sparse {
		n := b.b.Len()
		padTo(&b.topicIdx, -1, n)
		padTo(&b.partitions, -1, n)
		padTo(&b.timestamps, -1, n)
	}
}

// Add adds a record, encoding its typed parts. A value that does not fit
// its schema, a null for a required schema, an empty header key or a
// negative partition is an error naming the record; the batch is then
// left as it was.
func (b *Batch) Add(r *Record) error {
	i := b.b.Len()
	if r.Partition != nil && *r.Partition < 0 {
		return fmt.Errorf("record %d: Kafka partition %d", i, *r.Partition)
	}
	if err := b.b.Append(r.Key, r.Value, r.Headers); err != nil {
		return fmt.Errorf("record %d: %w", i, err)
	}
	topic := int32(-1)
	if r.Topic != "" {
		t, ok := b.topicIndex[r.Topic]
		if !ok {
			if b.topicIndex == nil {
				b.topicIndex = map[string]int32{}
			}
			t = int32(len(b.topics))
			b.topics = append(b.topics, r.Topic)
			b.topicIndex[r.Topic] = t
		}
		topic = t
	}
	setAt(&b.topicIdx, -1, topic, i)
	partition := int32(-1)
	if r.Partition != nil {
		partition = *r.Partition
	}
	setAt(&b.partitions, -1, partition, i)
	ts := int64(-1)
	if !r.Timestamp.IsZero() {
		ts = r.Timestamp.UnixMilli()
	}
	setAt(&b.timestamps, -1, ts, i)
	padTo(&b.topicIdx, -1, i+1)
	padTo(&b.partitions, -1, i+1)
	padTo(&b.timestamps, -1, i+1)
	b.sparse = b.b.Sparse() || len(b.topicIdx)|len(b.partitions)|len(b.timestamps) != 0
	return nil
}

func padTo[T any](col *[]T, def T, n int) {
	for len(*col) != 0 && len(*col) < n {
		*col = append(*col, def)
	}
}

func setAt[T comparable](col *[]T, def, v T, i int) {
	if len(*col) == 0 && v == def {
		return
	}
	for len(*col) < i {
		*col = append(*col, def)
	}
	*col = append(*col, v)
}

// Advance records offset as the latest source offset of partition in
// this batch (both compact JSON objects, see [JSON]): once the batch's
// records are in Kafka the host stores it, and a restarted task resumes
// after it. Call it once per partition per poll, after the partition's
// last record (a later call for the same partition replaces the offset).
// A batch may advance offsets without records.
func (b *Batch) Advance(partition, offset string) {
	for i := range b.positions {
		if b.positions[i].Partition == partition {
			b.positions[i].Offset = offset
			return
		}
	}
	b.positions = append(b.positions, copycat_connector_types.SourcePosition{Partition: partition, Offset: offset})
}

// JSON returns the compact JSON object of key/value pairs, in the order
// given: JSON("stream", "stream-0") is {"stream":"stream-0"}. Source
// partitions and offsets are such objects (strings, numbers, booleans or
// null as values). It panics on an odd number of arguments or a key that
// is not a string, and marshals values with encoding/json.
func JSON(pairs ...any) string {
	if len(pairs)%2 != 0 {
		panic("source.JSON: an odd number of arguments")
	}
	buf := []byte{'{'}
	for i := 0; i < len(pairs); i += 2 {
		k, ok := pairs[i].(string)
		if !ok {
			panic(fmt.Sprintf("source.JSON: key %v is not a string", pairs[i]))
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(pairs[i+1])
		if err != nil {
			panic("source.JSON: " + err.Error())
		}
		buf = append(append(append(buf, kb...), ':'), vb...)
	}
	return string(append(buf, '}'))
}

// wit returns the batch as the generated type; its slices alias the
// batch's, untouched until the next poll.
func (b *Batch) wit() copycat_connector_batch.SourceBatch {
	b.nodes = glue.NodesToWIT(b.b.Schemas.Nodes(), b.nodes)
	return copycat_connector_batch.SourceBatch{
		Data:               b.b.Data,
		KeyLengths:         b.b.KeyLengths,
		ValueLengths:       b.b.ValueLengths,
		Topics:             b.topics,
		TopicIndices:       b.topicIdx,
		Partitions:         b.partitions,
		Timestamps:         b.timestamps,
		HeaderCounts:       b.b.HeaderCounts,
		HeaderKeyLengths:   b.b.HeaderKeyLengths,
		HeaderValueLengths: b.b.HeaderValueLengths,
		Schemas:            b.nodes,
		KeySchemas:         b.b.KeySchemas,
		ValueSchemas:       b.b.ValueSchemas,
		HeaderSchemas:      b.b.HeaderSchemas,
		Positions:          b.positions,
	}
}

// Task is a started source task.
type Task interface {
	// Poll fills batch with at most batch.Max() records. It must return
	// quickly: when nothing is ready, return with the batch empty and the
	// host calls again after a short back-off. Never sleep or busy-wait;
	// every call has a CPU time limit.
	Poll(batch *Batch) error
}

// Committer is implemented by tasks that want to know when offsets are
// durable (their records acknowledged by Kafka and the offsets stored), to
// acknowledge upstream. Offsets maps each source partition to its latest
// committed offset (compact JSON). Errors are only logged by the host.
type Committer interface {
	Commit(offsets map[string]string) error
}

// Stopper is implemented by tasks that release resources when stopped. No
// call follows Stop.
type Stopper interface {
	Stop()
}

// StartFunc starts a task with one of the configs that TaskConfigs
// returned. Read the committed offsets here ([ReadOffsets]) to resume.
// Return a config error (copycat.Configf, or a Reader's Err) for a missing
// or bad key.
type StartFunc func(cfg copycat.Config) (Task, error)

// Export registers the connector and its task. Call it from an init
// function of package main; the component's exports call into them.
func Export(connector copycat.Connector, start StartFunc) {
	export_copycat_connector_connector.Impl = connector
	export_copycat_connector_connector.Kind = copycat_connector_types.ConnectorKind_Source
	export_copycat_connector_source_task.Task = &handler{start: start}
}

// handler adapts the user's task to the generated binding types.
type handler struct {
	start StartFunc
	task  Task
	batch Batch
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

func (h *handler) Poll(maxRecords int) (copycat_connector_batch.SourceBatch, error) {
	if h.task == nil {
		return copycat_connector_batch.SourceBatch{}, glue.NotStarted
	}
	h.batch.reset(maxRecords)
	if err := h.task.Poll(&h.batch); err != nil {
		return copycat_connector_batch.SourceBatch{}, err
	}
	if n := h.batch.Len(); n > maxRecords {
		return copycat_connector_batch.SourceBatch{}, copycat.Fatalf("poll returned %d records, more than the %d asked for", n, maxRecords)
	}
	return h.batch.wit(), nil
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
