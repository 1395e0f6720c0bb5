package sink

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_sink_task"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

type recorder struct {
	put    []Record
	opened []TopicPartition
}

// Put copies what it keeps: the batch's memory is the host's.
func (r *recorder) Put(b *Batch) error {
	for i := range b.Len() {
		rec, err := b.Record(i)
		if err != nil {
			return err
		}
		rec.Topic = strings.Clone(rec.Topic)
		rec.Key = copycat.Raw(bytes.Clone(rec.Key.Bytes()))
		rec.Value = copycat.Raw(bytes.Clone(rec.Value.Bytes()))
		r.put = append(r.put, rec)
	}
	return nil
}
func (r *recorder) Flush(map[TopicPartition]int64) error { return copycat.Retriablef("disk busy") }
func (r *recorder) Open(tps []TopicPartition) (map[TopicPartition]int64, error) {
	r.opened = tps
	return map[TopicPartition]int64{tps[0]: 42}, nil
}

func TestHandler(t *testing.T) {
	rec := &recorder{}
	Export(nil, func(cfg copycat.Config) (Task, error) {
		if cfg["directory"] != "/d" {
			return nil, copycat.Configf("config 'directory' is required but is not set")
		}
		return rec, nil
	})
	glue := export_copycat_connector_sink_task.Put
	// Before start.
	if r := glue(copycat_connector_batch.SinkBatch{}); !r.IsErr() || r.Err().Fatal() != "task not started" {
		t.Fatalf("put before start: %+v", r)
	}
	r := export_copycat_connector_sink_task.Start([]witTypes.Tuple2[string, string]{{F0: "topics", F1: "t"}})
	if !r.IsErr() || r.Err().Tag() != copycat_connector_types.ConnectorError_Config {
		t.Fatalf("start without directory: %+v", r)
	}
	if r := export_copycat_connector_sink_task.Start([]witTypes.Tuple2[string, string]{{F0: "directory", F1: "/d"}}); !r.IsOk() {
		t.Fatalf("start: %+v", r)
	}
	// Two records as the host packs them: "v" with a header without a
	// value; an empty key and a tombstone.
	batch := copycat_connector_batch.SinkBatch{
		Data:               []byte("vh"),
		KeyLengths:         []int32{-1, 0},
		ValueLengths:       []int32{1, -1},
		Topics:             []string{"t"},
		TopicIndices:       []uint32{0, 0},
		Partitions:         []int32{1, 1},
		Offsets:            []int64{7, 8},
		Timestamps:         []int64{1000, -1},
		HeaderCounts:       []uint32{1, 0},
		HeaderKeyLengths:   []uint32{1},
		HeaderValueLengths: []int32{-1},
	}
	if r := glue(batch); !r.IsOk() {
		t.Fatalf("put: %+v", r)
	}
	got := rec.put
	if len(got) != 2 || !got[0].Key.IsNull() || string(got[0].Value.Bytes()) != "v" || got[0].Offset != 7 ||
		len(got[0].Headers) != 1 || got[0].Headers[0].Key != "h" || !got[0].Headers[0].Value.IsNull() ||
		!got[0].Timestamp.Equal(time.UnixMilli(1000)) {
		t.Fatalf("record 0: %+v", got[0])
	}
	if got[1].Key.IsNull() || len(got[1].Key.Bytes()) != 0 || !got[1].Value.IsNull() || !got[1].Timestamp.IsZero() {
		t.Fatalf("record 1 (empty key, no value): %+v", got[1])
	}
	if got[0].TopicPartition() != (TopicPartition{"t", 1}) {
		t.Fatal(got[0].TopicPartition())
	}
	// A batch whose lengths do not add up fails the put, naming it.
	bad := batch
	bad.Data = []byte("v")
	if r := glue(bad); !r.IsErr() || !strings.Contains(r.Err().Fatal(), "malformed batch") {
		t.Fatalf("malformed: %+v", r)
	}
	o := export_copycat_connector_sink_task.Open([]copycat_connector_types.TopicPartition{{Topic: "t", Partition: 1}})
	if !o.IsOk() || len(o.Ok()) != 1 || o.Ok()[0].Offset != 42 {
		t.Fatalf("open: %+v", o)
	}
	f := export_copycat_connector_sink_task.Flush(nil)
	if !f.IsErr() || f.Err().Tag() != copycat_connector_types.ConnectorError_Retriable || f.Err().Retriable() != "disk busy" {
		t.Fatalf("flush: %+v", f)
	}
	if c := export_copycat_connector_sink_task.Close(nil); !c.IsOk() {
		t.Fatalf("close: %+v", c)
	}
	export_copycat_connector_sink_task.Stop()
	if r := glue(batch); !r.IsErr() {
		t.Fatal("put after stop")
	}
}

type order struct {
	ID    int64             `connect:"id"`
	Items []string          `connect:"items"`
	Tags  map[string]string `connect:"tags"`
}

// Typed records read back as the connector's converters gave them: a
// struct with its schema, decodable into a Go struct.
func TestTypedRecords(t *testing.T) {
	b, err := NewBatch(
		Record{Topic: "a", Partition: 0, Offset: 1, Value: copycat.Of(order{ID: 5, Items: []string{"x"}, Tags: map[string]string{"k": "v"}}),
			Key: copycat.Schemaless("k1"), Headers: []copycat.Header{{Key: "h", Value: copycat.Typed(copycat.Int32Schema, int32(9))}}},
		Record{Topic: "b", Partition: 2, Offset: 9, Value: copycat.Typed(copycat.OptionalString, nil)},
	)
	if err != nil {
		t.Fatal(err)
	}
	r0, err := b.Record(0)
	if err != nil {
		t.Fatal(err)
	}
	if s := r0.Value.Schema(); s == nil || s.Type != copycat.SchemaStruct || len(s.Fields) != 3 {
		t.Fatalf("schema %v", s)
	}
	v, err := r0.Value.Value()
	st, ok := v.(*copycat.Struct)
	if err != nil || !ok || st.Get("id") != int64(5) || !reflect.DeepEqual(st.Get("items"), []any{"x"}) ||
		!reflect.DeepEqual(st.Get("tags"), []copycat.MapEntry{{Key: "k", Value: "v"}}) {
		t.Fatalf("value %#v, %v", v, err)
	}
	var o order
	if err := r0.Value.Decode(&o); err != nil || o.ID != 5 || o.Items[0] != "x" || o.Tags["k"] != "v" {
		t.Fatalf("decoded %+v, %v", o, err)
	}
	if k, _ := r0.Key.Value(); !r0.Key.IsSchemaless() || k != "k1" {
		t.Fatalf("key %v", k)
	}
	if h, _ := r0.Headers[0].Value.Value(); h != int32(9) {
		t.Fatalf("header %v", h)
	}
	r1, _ := b.Record(1)
	if r1.Topic != "b" || r1.Offset != 9 || !r1.Value.IsNull() || r1.Value.Schema() != nil && !r1.Value.Schema().Optional {
		t.Fatalf("record 1 %+v", r1)
	}
}
