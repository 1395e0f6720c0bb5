package source

import (
	"strings"
	"testing"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_connector"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_source_task"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

type conn struct{}

func (conn) Describe() copycat.PluginInfo {
	return copycat.PluginInfo{Name: "n", Version: "1", Config: []copycat.ConfigKey{
		{Name: "topic", Required: true},
		{Name: "n", Type: copycat.TypeInt, Default: "1", Importance: copycat.Low},
	}}
}
func (conn) Validate(cfg copycat.Config) []copycat.Problem {
	r := copycat.NewReader(cfg)
	r.Required("topic")
	return r.Problems()
}
func (conn) TaskConfigs(cfg copycat.Config, max int) ([]copycat.Config, error) {
	return []copycat.Config{cfg.With("b", "2"), cfg}, nil
}

type task struct{ committed map[string]string }

func (t *task) Poll(max int) ([]Record, error) {
	if max == 0 {
		panic("boom")
	}
	return []Record{
		{SourcePartition: "p", SourceOffset: "1", Value: []byte("v")},
		{SourcePartition: "p", SourceOffset: "2", Topic: "other", Partition: KafkaPartition(3), Key: []byte{},
			Headers: []copycat.Header{{Key: "h", Value: []byte("x")}}, Timestamp: time.UnixMilli(5)},
	}[:min(max, 2)], nil
}
func (t *task) Commit(offsets map[string]string) error { t.committed = offsets; return nil }

func TestHandler(t *testing.T) {
	tk := &task{}
	Export(conn{}, func(copycat.Config) (Task, error) { return tk, nil })
	info := export_copycat_connector_connector.Describe()
	if info.Kind != copycat_connector_types.ConnectorKind_Source || len(info.ConfigDef) != 2 ||
		info.ConfigDef[0].Importance != copycat_connector_types.Importance_High || info.ConfigDef[0].DefaultValue.IsSome() ||
		info.ConfigDef[1].Type != copycat_connector_types.ConfigType_Int || info.ConfigDef[1].DefaultValue.Some() != "1" ||
		info.ConfigDef[1].Importance != copycat_connector_types.Importance_Low {
		t.Fatalf("describe: %+v", info)
	}
	if p := export_copycat_connector_connector.Validate(nil); len(p) != 1 || p[0].Key != "topic" {
		t.Fatalf("validate: %+v", p)
	}
	tc := export_copycat_connector_connector.TaskConfigs([]witTypes.Tuple2[string, string]{{F0: "c", F1: "3"}, {F0: "a", F1: "1"}}, 2)
	if !tc.IsOk() || len(tc.Ok()) != 2 || len(tc.Ok()[0]) != 3 || tc.Ok()[0][0].F0 != "a" || tc.Ok()[0][1].F0 != "b" {
		t.Fatalf("task-configs (keys sorted): %+v", tc)
	}
	if r := export_copycat_connector_source_task.Poll(5); !r.IsErr() || r.Err().Fatal() != "task not started" {
		t.Fatalf("poll before start: %+v", r)
	}
	if r := export_copycat_connector_source_task.Start(nil); !r.IsOk() {
		t.Fatalf("start: %+v", r)
	}
	r := export_copycat_connector_source_task.Poll(5)
	if !r.IsOk() || len(r.Ok()) != 2 {
		t.Fatalf("poll: %+v", r)
	}
	a, b := r.Ok()[0], r.Ok()[1]
	if a.Topic.IsSome() || a.Partition.IsSome() || a.Key.IsSome() || string(a.Value.Some()) != "v" || a.Timestamp.IsSome() {
		t.Fatalf("record a: %+v", a)
	}
	if b.Topic.Some() != "other" || b.Partition.Some() != 3 || !b.Key.IsSome() || b.Value.IsSome() ||
		b.Timestamp.Some() != 5 || string(b.Headers[0].Value.Some()) != "x" {
		t.Fatalf("record b: %+v", b)
	}
	if r := export_copycat_connector_source_task.Poll(1); !r.IsOk() || len(r.Ok()) != 1 {
		t.Fatalf("poll(1): %+v", r)
	}
	if r := export_copycat_connector_source_task.Poll(0); !r.IsErr() || !strings.Contains(r.Err().Fatal(), "panic in poll: boom") {
		t.Fatalf("a panic is a fatal error: %+v", r)
	}
	c := export_copycat_connector_source_task.Commit([]copycat_connector_types.SourcePosition{{Partition: "p", Offset: "2"}})
	if !c.IsOk() || tk.committed["p"] != "2" {
		t.Fatalf("commit: %+v %v", c, tk.committed)
	}
	export_copycat_connector_source_task.Stop()
}

func TestReadOffsetsNatively(t *testing.T) {
	TestOffsets = map[string]string{"a": "1"}
	defer func() { TestOffsets = map[string]string{} }()
	if got := ReadOffsets("a", "b"); len(got) != 1 || got["a"] != "1" {
		t.Fatal(got)
	}
}
