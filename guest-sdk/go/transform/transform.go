// Package transform is the Copycat Go SDK for transform components (the
// world `transform` of copycat:transform@0.1.0): a batch of records in, a
// batch out. A transform runs in a connector's task, between the connector
// and the converters (a source) or between the converters and the
// connector (a sink), wherever its alias sits in the connector's
// `transforms=` chain.
//
// A transform is a Go main package that registers its [Transformer]:
//
//	func init() { transform.Export(&Uppercase{}) }
//
//	func main() {} // required by Go, never called
//
// The host hands a transform every key, value and header typed (a
// connector's raw bytes arrive as an optional bytes value). Apply reads the
// input [Batch] in place and writes what comes out into an [Output]:
// [Output.Keep] passes a record on unchanged (its bytes copied, no
// decoding), [Output.Append] adds a changed one.
package transform

import (
	"fmt"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_transform_transformer"
	_ "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/wit_exports_transform" // the component's exports
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_transform_transformer"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

// Info is what a transform says about itself.
type Info struct {
	// Name is short and stable, e.g. "uppercase-transform".
	Name    string
	Version string
	// Description is one line for operators: what it does to records.
	Description string
	// Config lists every setting (the keys after `transforms.<alias>.`);
	// the host refuses a setting not listed.
	Config []copycat.ConfigKey
}

// Transformer is a transform.
type Transformer interface {
	// Describe must not fail and must not depend on any setting.
	Describe() Info
	// Validate checks settings beyond their types: one problem per key at
	// fault.
	Validate(cfg copycat.Config) []copycat.Problem
	// Configure is called once with the settings, before any Apply. A
	// config error (copycat.Configf, a Reader's Err) fails the task until
	// the settings change.
	Configure(cfg copycat.Config) error
	// Apply transforms a batch: for each input record, in order, add what
	// comes out of it to out (nothing drops it, several split it). Return
	// [RecordFailed] for a record that cannot be transformed (Kafka
	// Connect's DataException); any other error fails the task.
	Apply(in *Batch, out *Output) error
}

// Export registers the transform. Call it from an init function of
// package main.
func Export(t Transformer) {
	export_copycat_transform_transformer.Impl = &handler{t: t}
}

// Record is one record in a transform's batch. Its payloads borrow the
// input batch (valid during Apply).
type Record struct {
	Topic string
	// Partition is the Kafka partition, or -1 for none.
	Partition int32
	// Offset is a sink record's Kafka offset, or -1 (a source's record).
	// The host restores an input record's offset on what comes out of it.
	Offset int64
	// Timestamp is the record's time; the zero Time for none.
	Timestamp time.Time
	// Key and Value; null when the record has none.
	Key, Value copycat.Payload
	Headers    []copycat.Header
}

// Batch is the input of Apply, read in place.
type Batch struct {
	view       batch.View
	nodes      []copycat.SchemaNode
	topics     []string
	topicIdx   []uint32
	partitions []int32
	timestamps []int64
	offsets    []int64
}

// Len is the number of records.
func (b *Batch) Len() int { return b.view.Len() }

// Record returns record i (0 <= i < Len()). An error means the batch's
// encoding is broken, never the record's content.
func (b *Batch) Record(i int) (Record, error) {
	r := Record{Topic: b.topics[b.topicIdx[i]], Partition: b.partitions[i], Offset: b.offsets[i]}
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

// Output is what Apply fills: records, each with the index of the input
// record it came from. Schemas of the input batch keep their nodes (the
// input's schema table is returned as it was, plus any new schemas).
type Output struct {
	in         *Batch
	b          batch.Builder
	topics     []string
	topicIndex map[string]uint32
	topicIdx   []uint32
	partitions []int32
	timestamps []int64
	offsets    []int64
	origins    []uint32
	nodes      []glue.WITNode
}

// Len is the number of records added so far.
func (o *Output) Len() int { return o.b.Len() }

// Keep passes input record i on unchanged.
func (o *Output) Keep(i int) error {
	r, err := o.in.Record(i)
	if err != nil {
		return err
	}
	return o.Append(i, r)
}

// Append adds r as coming from input record origin. Origins never
// decrease. A payload that does not fit its schema is an error naming the
// record; the output is then left as it was.
func (o *Output) Append(origin int, r Record) error {
	if origin < 0 || origin >= o.in.Len() {
		return fmt.Errorf("origin %d: the input has %d records", origin, o.in.Len())
	}
	if n := len(o.origins); n > 0 && int(o.origins[n-1]) > origin {
		return fmt.Errorf("origin %d after origin %d: origins never decrease", origin, o.origins[n-1])
	}
	if err := o.b.Append(r.Key, r.Value, r.Headers); err != nil {
		return fmt.Errorf("output record %d (from input record %d): %w", o.b.Len(), origin, err)
	}
	t, ok := o.topicIndex[r.Topic]
	if !ok {
		t = uint32(len(o.topics))
		o.topics = append(o.topics, r.Topic)
		o.topicIndex[r.Topic] = t
	}
	ts := int64(-1)
	if !r.Timestamp.IsZero() {
		ts = r.Timestamp.UnixMilli()
	}
	o.topicIdx = append(o.topicIdx, t)
	o.partitions = append(o.partitions, r.Partition)
	o.timestamps = append(o.timestamps, ts)
	o.offsets = append(o.offsets, r.Offset)
	o.origins = append(o.origins, uint32(origin))
	return nil
}

// recordFailed is transform-error::record.
type recordFailed struct {
	index int
	err   error
}

func (e *recordFailed) Error() string    { return e.err.Error() }
func (e *recordFailed) Unwrap() error    { return e.err }
func (e *recordFailed) RecordIndex() int { return e.index }

// RecordFailed is the error of an input record that cannot be transformed
// (the WIT transform-error::record): its index in the batch, and why.
func RecordFailed(index int, err error) error { return &recordFailed{index: index, err: err} }

// handler adapts the user's transform to the generated binding types.
type handler struct {
	t   Transformer
	out Output
}

func (h *handler) Describe() copycat_transform_transformer.TransformInfo {
	info := h.t.Describe()
	return copycat_transform_transformer.TransformInfo{
		Name: info.Name, Version: info.Version, Description: info.Description,
		ConfigDef: glue.ConfigKeys(info.Config),
	}
}

func (h *handler) Validate(cfg copycat.Config) []copycat.Problem { return h.t.Validate(cfg) }

func (h *handler) Configure(cfg copycat.Config) error { return h.t.Configure(cfg) }

func (h *handler) Apply(w *copycat_transform_transformer.RecordBatch) (copycat_transform_transformer.RecordBatch, error) {
	in, err := fromWIT(w)
	if err != nil {
		return copycat_transform_transformer.RecordBatch{}, err
	}
	out := &h.out
	out.reset(in)
	if err := h.t.Apply(in, out); err != nil {
		return copycat_transform_transformer.RecordBatch{}, err
	}
	return out.wit(), nil
}

// NewBatch builds an input batch from records (for tests of a transform
// natively), encoded as the host would send them.
func NewBatch(records ...Record) (*Batch, error) {
	var bb batch.Builder
	b := &Batch{}
	index := map[string]uint32{}
	for i, r := range records {
		if err := bb.Append(r.Key, r.Value, r.Headers); err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		t, ok := index[r.Topic]
		if !ok {
			t = uint32(len(b.topics))
			b.topics = append(b.topics, r.Topic)
			index[r.Topic] = t
		}
		ts := int64(-1)
		if !r.Timestamp.IsZero() {
			ts = r.Timestamp.UnixMilli()
		}
		b.topicIdx = append(b.topicIdx, t)
		b.partitions = append(b.partitions, r.Partition)
		b.timestamps = append(b.timestamps, ts)
		b.offsets = append(b.offsets, r.Offset)
	}
	b.nodes = append(b.nodes, bb.Schemas.Nodes()...)
	schemas, err := copycat.ReadSchemas(b.nodes)
	if err != nil {
		return nil, err
	}
	b.view = batch.View{Data: bb.Data, KeyLengths: bb.KeyLengths, ValueLengths: bb.ValueLengths,
		HeaderCounts: bb.HeaderCounts, HeaderKeyLengths: bb.HeaderKeyLengths, HeaderValueLengths: bb.HeaderValueLengths,
		Schemas: schemas, KeySchemas: bb.KeySchemas, ValueSchemas: bb.ValueSchemas, HeaderSchemas: bb.HeaderSchemas}
	return b, b.view.Init()
}

// NewOutput returns an empty output for in (for tests; the SDK makes the
// one Apply fills).
func NewOutput(in *Batch) *Output {
	o := &Output{}
	o.reset(in)
	return o
}

// Records returns the records of an output with their origins (for
// tests): the output read back as the host would.
func (o *Output) Records() ([]Record, []int, error) {
	schemas, err := copycat.ReadSchemas(o.b.Schemas.Nodes())
	if err != nil {
		return nil, nil, err
	}
	v := batch.View{Data: o.b.Data, KeyLengths: o.b.KeyLengths, ValueLengths: o.b.ValueLengths,
		HeaderCounts: o.b.HeaderCounts, HeaderKeyLengths: o.b.HeaderKeyLengths, HeaderValueLengths: o.b.HeaderValueLengths,
		Schemas: schemas, KeySchemas: o.b.KeySchemas, ValueSchemas: o.b.ValueSchemas, HeaderSchemas: o.b.HeaderSchemas}
	if err := v.Init(); err != nil {
		return nil, nil, err
	}
	b := Batch{view: v, topics: o.topics, topicIdx: o.topicIdx, partitions: o.partitions, timestamps: o.timestamps, offsets: o.offsets}
	out := make([]Record, o.Len())
	origins := make([]int, o.Len())
	for i := range out {
		if out[i], err = b.Record(i); err != nil {
			return nil, nil, err
		}
		origins[i] = int(o.origins[i])
	}
	return out, origins, nil
}

// SchemaNodes returns the output's schema table (for tests).
func (o *Output) SchemaNodes() []copycat.SchemaNode { return o.b.Schemas.Nodes() }

func (o *Output) reset(in *Batch) {
	o.in = in
	o.b.Reset()
	o.b.Schemas.Seed(in.nodes, in.view.Schemas)
	o.topics = o.topics[:0]
	if o.topicIndex == nil {
		o.topicIndex = map[string]uint32{}
	}
	clear(o.topicIndex)
	o.topicIdx = o.topicIdx[:0]
	o.partitions = o.partitions[:0]
	o.timestamps = o.timestamps[:0]
	o.offsets = o.offsets[:0]
	o.origins = o.origins[:0]
}

func (o *Output) wit() copycat_transform_transformer.RecordBatch {
	o.nodes = glue.NodesToWIT(o.b.Schemas.Nodes(), o.nodes)
	return copycat_transform_transformer.RecordBatch{
		Data:               o.b.Data,
		KeyLengths:         o.b.KeyLengths,
		ValueLengths:       o.b.ValueLengths,
		Topics:             o.topics,
		TopicIndices:       o.topicIdx,
		Partitions:         o.partitions,
		Timestamps:         o.timestamps,
		Offsets:            o.offsets,
		HeaderCounts:       o.b.HeaderCounts,
		HeaderKeyLengths:   o.b.HeaderKeyLengths,
		HeaderValueLengths: o.b.HeaderValueLengths,
		Schemas:            o.nodes,
		KeySchemas:         o.b.KeySchemas,
		ValueSchemas:       o.b.ValueSchemas,
		HeaderSchemas:      o.b.HeaderSchemas,
		Origins:            o.origins,
	}
}

// fromWIT reads the host's batch in place; topic names and schemas are
// copied.
func fromWIT(w *copycat_transform_transformer.RecordBatch) (*Batch, error) {
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
	b.nodes = glue.NodesFromWIT(w.Schemas)
	schemas, err := copycat.ReadSchemas(b.nodes)
	if err != nil {
		return nil, err
	}
	b.view = batch.View{Data: w.Data, KeyLengths: w.KeyLengths, ValueLengths: w.ValueLengths,
		HeaderCounts: w.HeaderCounts, HeaderKeyLengths: w.HeaderKeyLengths, HeaderValueLengths: w.HeaderValueLengths,
		Schemas: schemas, KeySchemas: w.KeySchemas, ValueSchemas: w.ValueSchemas, HeaderSchemas: w.HeaderSchemas}
	return b, b.view.Init()
}
