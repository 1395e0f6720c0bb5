package sink

import (
	"testing"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_sink_task"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

type recorder struct {
	put    []Record
	opened []TopicPartition
}

func (r *recorder) Put(records []Record) error           { r.put = append(r.put, records...); return nil }
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
	if r := glue(nil); !r.IsErr() || r.Err().Fatal() != "task not started" {
		t.Fatalf("put before start: %+v", r)
	}
	r := export_copycat_connector_sink_task.Start([]witTypes.Tuple2[string, string]{{F0: "topics", F1: "t"}})
	if !r.IsErr() || r.Err().Tag() != copycat_connector_types.ConnectorError_Config {
		t.Fatalf("start without directory: %+v", r)
	}
	if r := export_copycat_connector_sink_task.Start([]witTypes.Tuple2[string, string]{{F0: "directory", F1: "/d"}}); !r.IsOk() {
		t.Fatalf("start: %+v", r)
	}
	records := []copycat_connector_types.SinkRecord{
		{Topic: "t", Partition: 1, Offset: 7, Key: witTypes.None[[]byte](), Value: witTypes.Some([]byte("v")),
			Headers: []copycat_connector_types.Header{{Key: "h", Value: witTypes.None[[]byte]()}}, Timestamp: witTypes.Some(int64(1000))},
		{Topic: "t", Partition: 1, Offset: 8, Key: witTypes.Some[[]byte](nil), Value: witTypes.None[[]byte](), Timestamp: witTypes.None[int64]()},
	}
	if r := glue(records); !r.IsOk() {
		t.Fatalf("put: %+v", r)
	}
	got := rec.put
	if len(got) != 2 || got[0].Key != nil || string(got[0].Value) != "v" || got[0].Offset != 7 ||
		len(got[0].Headers) != 1 || got[0].Headers[0].Value != nil || !got[0].Timestamp.Equal(time.UnixMilli(1000)) {
		t.Fatalf("record 0: %+v", got[0])
	}
	if got[1].Key == nil || len(got[1].Key) != 0 || got[1].Value != nil || !got[1].Timestamp.IsZero() {
		t.Fatalf("record 1 (empty key, no value): %+v", got[1])
	}
	if got[0].TopicPartition() != (TopicPartition{"t", 1}) {
		t.Fatal(got[0].TopicPartition())
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
	if r := glue(nil); !r.IsErr() {
		t.Fatal("put after stop")
	}
}
