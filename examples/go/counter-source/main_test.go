package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/dynamic"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
	"github.com/copycat-connect/copycat/guest-sdk/go/source"
)

func TestValidate(t *testing.T) {
	if p := (Counter{}).Validate(copycat.Config{"topic": "t"}); len(p) != 0 {
		t.Fatalf("good config: %v", p)
	}
	p := (Counter{}).Validate(copycat.Config{"streams": "0", "count": "-1", "value.size": "x", "typed": "maybe"})
	var keys []string
	for _, problem := range p {
		keys = append(keys, problem.Key)
	}
	if want := []string{"streams", "count", "value.size", "typed", "topic"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("problems on %v, want %v: %v", keys, want, p)
	}
}

func TestTaskConfigs(t *testing.T) {
	cfgs, err := (Counter{}).TaskConfigs(copycat.Config{"topic": "t", "streams": "5"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfgs {
		got = append(got, c[assignedKey])
	}
	if want := []string{"0,2,4", "1,3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("assigned %v, want %v", got, want)
	}
	if cfgs, _ := (Counter{}).TaskConfigs(copycat.Config{"topic": "t", "streams": "2"}, 8); len(cfgs) != 2 {
		t.Fatalf("%d configs for 2 streams", len(cfgs))
	}
}

func TestStartBadConfig(t *testing.T) {
	_, err := Start(copycat.Config{"topic": "t", "count": "many"})
	var e *copycat.Error
	if !errors.As(err, &e) || e.Kind != copycat.KindConfig || e.Key != "count" {
		t.Fatalf("got %v", err)
	}
	source.TestOffsets = map[string]string{`{"stream":"stream-0"}`: `{"position":1}`}
	defer func() { source.TestOffsets = map[string]string{} }()
	_, err = Start(copycat.Config{"topic": "t"})
	if kind, msg := copycat.Classify(err); err == nil || kind != copycat.KindFatal || !strings.Contains(msg, "stream-0") {
		t.Fatalf("an offset without seq: %v", err)
	}
}

// records reads a polled batch back as a sink would.
func records(t *testing.T, b *source.Batch) []sink.Record {
	t.Helper()
	out, err := source.ReadBack(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPollResumesRoundRobin(t *testing.T) {
	source.TestOffsets = map[string]string{`{"stream":"stream-1"}`: `{"seq":4}`}
	defer func() { source.TestOffsets = map[string]string{} }()
	task, err := Start(copycat.Config{"topic": "t", "streams": "2", "count": "6", "value.size": "4"})
	if err != nil {
		t.Fatal(err)
	}
	var keys, values []string
	for {
		b := source.NewBatch(3)
		if err := task.Poll(b); err != nil {
			t.Fatal(err)
		}
		if b.Len() > 3 {
			t.Fatalf("batch of %d", b.Len())
		}
		if b.Len() == 0 {
			if len(source.Positions(b)) != 0 {
				t.Fatal("an empty batch advances nothing")
			}
			break
		}
		for _, r := range records(t, b) {
			keys = append(keys, string(r.Key.Bytes()))
			values = append(values, string(r.Value.Bytes()))
		}
		if p := source.Positions(b); len(keys) == 3 && !reflect.DeepEqual(p, map[string]string{
			`{"stream":"stream-0"}`: `{"seq":1}`, `{"stream":"stream-1"}`: `{"seq":5}`}) {
			t.Fatalf("positions of the first batch %v", p)
		}
	}
	want := []string{"stream-0:0", "stream-1:5", "stream-0:1", "stream-0:2", "stream-0:3", "stream-0:4", "stream-0:5"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if values[0] != "0..." || values[1] != "5..." {
		t.Fatalf("values %q", values)
	}
}

func TestTypedRecords(t *testing.T) {
	task, err := Start(copycat.Config{"topic": "t", "typed": "true"})
	if err != nil {
		t.Fatal(err)
	}
	b := source.NewBatch(2)
	if err := task.Poll(b); err != nil {
		t.Fatal(err)
	}
	recs := records(t, b)
	if k, _ := recs[1].Key.Value(); recs[1].Key.Schema() != copycat.StringSchema && (recs[1].Key.Schema().Type != copycat.SchemaString || k != "stream-0:1") {
		t.Fatalf("key %v", k)
	}
	s := recs[0].Value.Schema()
	if s == nil || s.Name != "copycat.examples.Count" || s.Optional || len(s.Fields) != 4 || !s.Fields[3].Schema.Optional {
		t.Fatalf("schema %+v", s)
	}
	var even, odd Count
	if err := recs[0].Value.Decode(&even); err != nil {
		t.Fatal(err)
	}
	if err := recs[1].Value.Decode(&odd); err != nil {
		t.Fatal(err)
	}
	if even.Stream != "stream-0" || even.Seq != 0 || !even.Even || even.Note == nil || *even.Note != "n0" ||
		odd.Seq != 1 || odd.Even || odd.Note != nil {
		t.Fatalf("values %+v %+v", even, odd)
	}
}

func TestInstanceWatchesStreamsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "streams")
	if err := os.WriteFile(file, []byte(" 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := &Instance{}
	watch, err := in.Start(copycat.Config{"topic": "t", "streams.file": file})
	if err != nil || !watch {
		t.Fatalf("start: %v %v", watch, err)
	}
	if cfgs, _ := in.TaskConfigs(4); len(cfgs) != 2 || cfgs[0]["streams"] != "2" {
		t.Fatalf("configs %v", cfgs)
	}
	dynamic.TestContext.Reconfigurations = 0
	if err := in.Monitor(); err != nil || dynamic.TestContext.Reconfigurations != 0 {
		t.Fatalf("unchanged: %v, %d", err, dynamic.TestContext.Reconfigurations)
	}
	os.WriteFile(file, []byte("3"), 0o644)
	if err := in.Monitor(); err != nil || dynamic.TestContext.Reconfigurations != 1 {
		t.Fatalf("changed: %v, %d", err, dynamic.TestContext.Reconfigurations)
	}
	cfgs, _ := in.TaskConfigs(4)
	if len(cfgs) != 3 || cfgs[2]["streams"] != "3" || cfgs[2][assignedKey] != "2" {
		t.Fatalf("configs %v", cfgs)
	}
	os.Remove(file)
	if err := in.Monitor(); err == nil {
		t.Fatal("a missing file")
	} else if kind, msg := copycat.Classify(err); kind != copycat.KindRetriable || !strings.Contains(msg, file) {
		t.Fatalf("missing file: %v", err)
	}
	_, err = (&Instance{}).Start(copycat.Config{"topic": "t", "streams.file": file})
	if kind, msg := copycat.Classify(err); err == nil || kind != copycat.KindConfig || !strings.Contains(msg, "streams.file") || !strings.Contains(msg, file) {
		t.Fatalf("unreadable at start: %v", err)
	}
	if watch, err := (&Instance{}).Start(copycat.Config{"topic": "t"}); err != nil || watch {
		t.Fatalf("nothing to watch: %v %v", watch, err)
	}
}

// The in-place increment of a stream's key and value digits agrees with
// formatting the number, across digit-count changes.
func TestStepMatchesFormatting(t *testing.T) {
	for _, size := range []int{0, 2, 6} {
		s := &stream{name: "stream-3", next: 7}
		s.render(size)
		for s.next < 1200 {
			want := &stream{name: "stream-3", next: s.next}
			want.render(size)
			if string(s.key) != string(want.key) || string(s.value) != string(want.value) {
				t.Fatalf("value.size %d at %d: %q %q, want %q %q", size, s.next, s.key, s.value, want.key, want.value)
			}
			s.step(size)
		}
	}
}
