package transform

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_transform_transformer"
	tt "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_transform_transformer"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

// splitter drops records whose value is "drop", doubles "twice", fails on
// "bad" and upper-cases the first letter of other string values.
type splitter struct{ configured copycat.Config }

func (*splitter) Describe() Info {
	return Info{Name: "splitter", Version: "1", Description: "d", Config: []copycat.ConfigKey{{Name: "x", Type: copycat.TypeList}}}
}
func (*splitter) Validate(cfg copycat.Config) []copycat.Problem {
	if cfg["x"] == "" {
		return []copycat.Problem{{Key: "x", Message: "empty"}}
	}
	return nil
}
func (s *splitter) Configure(cfg copycat.Config) error {
	if cfg["x"] == "bad" {
		return copycat.Configf("config 'x' is bad")
	}
	s.configured = cfg
	return nil
}
func (*splitter) Apply(in *Batch, out *Output) error {
	for i := range in.Len() {
		r, err := in.Record(i)
		if err != nil {
			return err
		}
		v, _ := r.Value.Value()
		switch v {
		case "drop":
		case "twice":
			if err := out.Keep(i); err != nil {
				return err
			}
			r.Value = copycat.Typed(r.Value.Schema(), "again")
			if err := out.Append(i, r); err != nil {
				return err
			}
		case "bad":
			return RecordFailed(i, errors.New("cannot"))
		default:
			if err := out.Keep(i); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestOutputKeepsRecordsAndSchemas(t *testing.T) {
	in, err := NewBatch(
		Record{Topic: "t", Partition: 1, Offset: 10, Timestamp: time.UnixMilli(3), Key: copycat.Raw([]byte("k")),
			Value: copycat.Typed(copycat.OptionalString, "twice"), Headers: []copycat.Header{{Key: "h", Value: copycat.Schemaless(true)}}},
		Record{Topic: "u", Partition: -1, Offset: -1, Value: copycat.Typed(copycat.OptionalString, "drop")},
		Record{Topic: "t", Partition: 0, Offset: 12, Value: copycat.Typed(copycat.OptionalBytes, []byte("raw"))},
	)
	if err != nil {
		t.Fatal(err)
	}
	out := NewOutput(in)
	if err := (&splitter{}).Apply(in, out); err != nil {
		t.Fatal(err)
	}
	recs, origins, err := out.Records()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(origins, []int{0, 0, 2}) {
		t.Fatalf("origins %v", origins)
	}
	values := make([]any, len(recs))
	for i, r := range recs {
		values[i], _ = r.Value.Value()
	}
	if !reflect.DeepEqual(values, []any{"twice", "again", []byte("raw")}) {
		t.Fatalf("values %#v", values)
	}
	r := recs[1]
	if r.Topic != "t" || r.Partition != 1 || r.Offset != 10 || !r.Timestamp.Equal(time.UnixMilli(3)) ||
		string(r.Key.Bytes()) != "k" || len(r.Headers) != 1 || r.Headers[0].Key != "h" {
		t.Fatalf("record 1 %+v", r)
	}
	// The input's schema table comes back as it was (the same nodes).
	if !reflect.DeepEqual(out.SchemaNodes(), in.nodes) {
		t.Fatalf("schemas %+v, in %+v", out.SchemaNodes(), in.nodes)
	}
	if err := out.Append(0, r); err == nil || !strings.Contains(err.Error(), "never decrease") {
		t.Fatalf("decreasing origin: %v", err)
	}
	if err := out.Append(3, r); err == nil {
		t.Fatal("an origin beyond the input")
	}
}

func TestHandlerAndErrors(t *testing.T) {
	s := &splitter{}
	Export(s)
	info := export_copycat_transform_transformer.Describe()
	if info.Name != "splitter" || len(info.ConfigDef) != 1 || info.ConfigDef[0].Name != "x" {
		t.Fatalf("describe %+v", info)
	}
	if p := export_copycat_transform_transformer.Validate(nil); len(p) != 1 || p[0].Key != "x" {
		t.Fatalf("validate %+v", p)
	}
	cfg := func(v string) glue.WITConfig { return glue.WITConfig{{F0: "x", F1: v}} }
	if r := export_copycat_transform_transformer.Configure(cfg("bad")); !r.IsErr() || r.Err().Tag() != tt.TransformError_Config ||
		r.Err().Config() != "config 'x' is bad" {
		t.Fatalf("configure: %+v", r)
	}
	if r := export_copycat_transform_transformer.Configure(cfg("a")); !r.IsOk() || s.configured["x"] != "a" {
		t.Fatalf("configure: %+v", r)
	}
	// A batch as the host sends it: one optional string "bad", one "ok".
	optString := glue.WITNode{Type: uint8(copycat.SchemaString), Optional: true, Name: witTypes.None[string](),
		Version: witTypes.None[int32](), Doc: witTypes.None[string](), Default: witTypes.None[[]uint8]()}
	batch := tt.RecordBatch{
		Data:         []byte{1, 3, 0, 0, 0, 'b', 'a', 'd', 1, 2, 0, 0, 0, 'o', 'k'},
		KeyLengths:   []int32{-1, -1},
		ValueLengths: []int32{8, 7},
		Topics:       []string{"t"},
		TopicIndices: []uint32{0, 0},
		Partitions:   []int32{0, 0},
		Timestamps:   []int64{-1, -1},
		Offsets:      []int64{-1, -1},
		Schemas:      []glue.WITNode{optString},
		ValueSchemas: []int32{0, 0},
	}
	r := export_copycat_transform_transformer.Apply(batch)
	if !r.IsErr() || r.Err().Tag() != tt.TransformError_Record || r.Err().Record().F0 != 0 || r.Err().Record().F1 != "cannot" {
		t.Fatalf("record error: %+v", r)
	}
	batch.Data = batch.Data[8:]
	batch.ValueLengths, batch.KeyLengths = batch.ValueLengths[1:], batch.KeyLengths[1:]
	batch.TopicIndices, batch.Partitions, batch.Timestamps, batch.Offsets = batch.TopicIndices[1:], batch.Partitions[1:], batch.Timestamps[1:], batch.Offsets[1:]
	batch.ValueSchemas = batch.ValueSchemas[1:]
	r = export_copycat_transform_transformer.Apply(batch)
	if !r.IsOk() {
		t.Fatalf("apply: %+v", r)
	}
	o := r.Ok()
	if string(o.Data) != string(batch.Data) || !reflect.DeepEqual(o.ValueSchemas, []int32{0}) || len(o.Schemas) != 1 ||
		!o.Schemas[0].Optional || !reflect.DeepEqual(o.Origins, []uint32{0}) || !reflect.DeepEqual(o.Offsets, []int64{-1}) {
		t.Fatalf("output %+v", o)
	}
	batch.ValueLengths = []int32{9}
	if r := export_copycat_transform_transformer.Apply(batch); !r.IsErr() || r.Err().Tag() != tt.TransformError_Fatal ||
		!strings.Contains(r.Err().Fatal(), "malformed batch") {
		t.Fatalf("malformed: %+v", r)
	}
}
