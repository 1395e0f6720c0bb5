package source

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_connector"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_connector_source_task"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
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

// task emits what its poll function says.
type task struct {
	poll      func(b *Batch) error
	committed map[string]string
}

func (t *task) Poll(b *Batch) error                    { return t.poll(b) }
func (t *task) Commit(offsets map[string]string) error { t.committed = offsets; return nil }

func TestHandler(t *testing.T) {
	tk := &task{poll: func(b *Batch) error {
		b.Append([]byte("k"), []byte("v"))
		b.Advance(JSON("s", 0), JSON("seq", 1))
		return nil
	}}
	Export(conn{}, func(copycat.Config) (Task, error) { return tk, nil })
	info := export_copycat_connector_connector.Describe()
	if info.Kind != copycat_connector_types.ConnectorKind_Source || len(info.ConfigDef) != 2 ||
		info.ConfigDef[0].Importance != copycat_connector_types.Importance_High || info.ConfigDef[0].DefaultValue.IsSome() ||
		info.ConfigDef[1].Type != copycat_connector_types.ConfigType_Int || info.ConfigDef[1].DefaultValue.Some() != "1" {
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
	if !r.IsOk() {
		t.Fatalf("poll: %+v", r)
	}
	b := r.Ok()
	if string(b.Data) != "kv" || !reflect.DeepEqual(b.KeyLengths, []int32{1}) || !reflect.DeepEqual(b.ValueLengths, []int32{1}) ||
		len(b.TopicIndices)+len(b.Partitions)+len(b.Timestamps)+len(b.HeaderCounts)+len(b.KeySchemas)+len(b.ValueSchemas)+len(b.Schemas) != 0 ||
		len(b.Positions) != 1 || b.Positions[0].Partition != `{"s":0}` || b.Positions[0].Offset != `{"seq":1}` {
		t.Fatalf("batch %+v", b)
	}
	tk.poll = func(b *Batch) error {
		for !b.Full() {
			b.Append(nil, nil)
		}
		b.Append(nil, nil)
		return nil
	}
	if r := export_copycat_connector_source_task.Poll(3); !r.IsErr() || r.Err().Fatal() != "poll returned 4 records, more than the 3 asked for" {
		t.Fatalf("too many records: %+v", r)
	}
	tk.poll = func(*Batch) error { panic("boom") }
	if r := export_copycat_connector_source_task.Poll(1); !r.IsErr() || !strings.Contains(r.Err().Fatal(), "panic in poll: boom") {
		t.Fatalf("a panic is a fatal error: %+v", r)
	}
	tk.poll = func(*Batch) error { return copycat.Retriablef("later") }
	if r := export_copycat_connector_source_task.Poll(1); !r.IsErr() || r.Err().Retriable() != "later" {
		t.Fatalf("retriable: %+v", r)
	}
	c := export_copycat_connector_source_task.Commit([]copycat_connector_types.SourcePosition{{Partition: "p", Offset: "2"}})
	if !c.IsOk() || tk.committed["p"] != "2" {
		t.Fatalf("commit: %+v %v", c, tk.committed)
	}
	export_copycat_connector_source_task.Stop()
}

type point struct {
	X int32   `connect:"x"`
	Y *string `connect:"y"`
}

// Columns of a mixed batch: the optional columns are empty until a record
// needs them, then hold one entry per record (per header).
func TestBatchColumns(t *testing.T) {
	b := NewBatch(10)
	b.Append([]byte("k0"), []byte("v0"))
	err := b.Add(&Record{
		Topic:     "other",
		Partition: KafkaPartition(3),
		Key:       copycat.Typed(copycat.StringSchema, "k1"),
		Value:     copycat.Of(point{X: 7}),
		Headers:   []copycat.Header{{Key: "h", Value: copycat.Raw([]byte("x"))}, {Key: "n"}, {Key: "t", Value: copycat.Schemaless(int8(1))}},
		Timestamp: time.UnixMilli(5),
	})
	if err != nil {
		t.Fatal(err)
	}
	b.Append(nil, []byte{})
	w := b.wit()
	want := bytes.Join([][]byte{[]byte("k0v0"),
		{2, 0, 0, 0, 'k', '1'}, // string "k1"
		{7, 0, 0, 0, 0},        // point{x: 7, y: null}
		[]byte("hx"), []byte("n"), []byte("t"), {1, 1}}, nil)
	if !bytes.Equal(w.Data, want) {
		t.Fatalf("data % x\nwant % x", w.Data, want)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	check("key lengths", w.KeyLengths, []int32{2, 6, -1})
	check("value lengths", w.ValueLengths, []int32{2, 5, 0})
	check("topics", w.Topics, []string{"other"})
	check("topic indices", w.TopicIndices, []int32{-1, 0, -1})
	check("partitions", w.Partitions, []int32{-1, 3, -1})
	check("timestamps", w.Timestamps, []int64{-1, 5, -1})
	check("header counts", w.HeaderCounts, []uint32{0, 3, 0})
	check("header key lengths", w.HeaderKeyLengths, []uint32{1, 1, 1})
	check("header value lengths", w.HeaderValueLengths, []int32{1, -1, 2})
	check("header schemas", w.HeaderSchemas, []int32{-1, -1, -2})
	check("key schemas", w.KeySchemas, []int32{-1, 0, -1})
	check("value schemas", w.ValueSchemas, []int32{-1, 3, -1})
	// Nodes: string, int32, optional string, struct (the key's string node
	// is not shared with y's: one is optional).
	var types []string
	for _, n := range w.Schemas {
		types = append(types, copycat.SchemaType(n.Type).String())
	}
	check("schema nodes", types, []string{"string", "int32", "string", "struct"})
	if len(w.Schemas) == 4 {
		check("struct children", w.Schemas[3].Children, []uint32{1, 2})
		check("struct field names", w.Schemas[3].FieldNames, []string{"x", "y"})
	}

	// A record that does not fit leaves the batch as it was.
	before := b.Len()
	if err := b.Add(&Record{Value: copycat.Typed(copycat.Int8Schema, "x")}); err == nil || !strings.Contains(err.Error(), "record 3: value") {
		t.Fatalf("bad value: %v", err)
	}
	if err := b.Add(&Record{Headers: []copycat.Header{{Key: "", Value: copycat.Raw(nil)}}}); err == nil {
		t.Fatal("an empty header key")
	}
	if err := b.Add(&Record{Partition: KafkaPartition(-2)}); err == nil {
		t.Fatal("a negative partition")
	}
	if w2 := b.wit(); b.Len() != before || !bytes.Equal(w2.Data, want) || len(w2.Schemas) != 4 || len(w2.HeaderCounts) != 3 {
		t.Fatalf("a refused record changed the batch")
	}

	b.Advance(`{"s":1}`, `{"o":1}`)
	b.Advance(`{"s":2}`, `{"o":1}`)
	b.Advance(`{"s":1}`, `{"o":2}`)
	check("positions", b.wit().Positions, []copycat_connector_types.SourcePosition{{Partition: `{"s":1}`, Offset: `{"o":2}`}, {Partition: `{"s":2}`, Offset: `{"o":1}`}})

	// Reset keeps nothing.
	b.reset(2)
	b.Append([]byte("a"), nil)
	w = b.wit()
	if string(w.Data) != "a" || len(w.Schemas)+len(w.ValueSchemas)+len(w.TopicIndices)+len(w.Positions) != 0 || b.Max() != 2 {
		t.Fatalf("after reset: %+v", w)
	}
}

// The fast path allocates nothing once the batch's memory has grown.
func TestAppendDoesNotAllocate(t *testing.T) {
	h := &handler{task: &task{poll: fill}}
	h.Poll(1000) // grow
	if n := testing.AllocsPerRun(20, func() { h.Poll(1000) }); n > 0 {
		t.Fatalf("%.0f allocations per poll of 1,000 records", n)
	}
}

var key, value = []byte("stream-0:123456"), bytes.Repeat([]byte("."), 100)

func fill(b *Batch) error {
	for !b.Full() {
		b.Append(key, value)
	}
	b.Advance(`{"stream":"stream-0"}`, `{"seq":1}`)
	return nil
}

// BenchmarkPoll: the SDK's side of a poll of 1,000 raw 100-byte records
// (natively; the component adds the canonical ABI's copies).
func BenchmarkPoll(b *testing.B) {
	h := &handler{task: &task{poll: fill}}
	for b.Loop() {
		h.Poll(1000)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/record")
}

func TestJSONAndReadOffsets(t *testing.T) {
	if got := JSON("stream", "stream-0", "n", 3, "ok", true, "q", `a"b`); got != `{"stream":"stream-0","n":3,"ok":true,"q":"a\"b"}` {
		t.Fatal(got)
	}
	TestOffsets = map[string]string{`{"a":1,"b":2}`: `{"seq":4}`, `{"c":1}`: `{"seq":5}`}
	defer func() { TestOffsets = map[string]string{} }()
	// Asked in another key order: found through the canonical form.
	got := ReadOffsets(`{"b":2,"a":1}`, `{"c":1}`, `{"d":1}`)
	if len(got) != 2 || got[`{"b":2,"a":1}`] != `{"seq":4}` || got[`{"c":1}`] != `{"seq":5}` {
		t.Fatal(got)
	}
}

func TestEmptyDefault(t *testing.T) {
	keys := glue.ConfigKeys([]copycat.ConfigKey{{Name: "a"}, {Name: "b", EmptyDefault: true}, {Name: "c", Default: "x"}})
	if keys[0].DefaultValue.IsSome() || keys[1].DefaultValue.Some() != "" || keys[2].DefaultValue.Some() != "x" {
		t.Fatalf("%+v", keys)
	}
}
