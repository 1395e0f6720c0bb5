package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"math/big"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
)

func record(topic string, partition int32, offset int64, value string) sink.Record {
	r := sink.Record{Topic: topic, Partition: partition, Offset: offset}
	if value != "-" {
		r.Value = copycat.Raw([]byte(value))
	}
	return r
}

// put hands records to the task as the host would: packed in a batch.
func put(t *testing.T, task sink.Task, records ...sink.Record) error {
	t.Helper()
	b, err := sink.NewBatch(records...)
	if err != nil {
		t.Fatal(err)
	}
	return task.Put(b)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidateAndStart(t *testing.T) {
	if p := (FileSink{}).Validate(copycat.Config{}); len(p) != 1 || p[0].Key != "directory" {
		t.Fatalf("problems %v", p)
	}
	if p := (FileSink{}).Validate(copycat.Config{"directory": "/x"}); len(p) != 0 {
		t.Fatalf("problems %v", p)
	}
	_, err := Start(copycat.Config{"topics": "t"})
	var e *copycat.Error
	if !errors.As(err, &e) || e.Kind != copycat.KindConfig || e.Key != "directory" {
		t.Fatalf("start without directory: %v", err)
	}
}

func TestPutFlushOpen(t *testing.T) {
	dir := t.TempDir()
	task, err := Start(copycat.Config{"directory": dir})
	if err != nil {
		t.Fatal(err)
	}
	tp := sink.TopicPartition{Topic: "t", Partition: 0}
	opener := task.(sink.Opener)
	if resume, err := opener.Open([]sink.TopicPartition{tp}); err != nil || len(resume) != 0 {
		t.Fatalf("open on empty dir: %v %v", resume, err)
	}
	if err := put(t, task, record("t", 0, 0, "a"), record("t", 1, 7, "x"), record("t", 0, 1, "-")); err != nil {
		t.Fatal(err)
	}
	if err := task.Flush(nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "t-0.offset")); got != "2 3" {
		t.Fatalf("state %q", got)
	}
	if got := read(t, filepath.Join(dir, "t-1.offset")); got != "8 2" {
		t.Fatalf("state %q", got)
	}
	// Written but not flushed: dropped by the next open.
	if err := put(t, task, record("t", 0, 2, "lost")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "t-0.txt")); got != "a\n\nlost\n" {
		t.Fatalf("file %q", got)
	}
	task.(sink.Stopper).Stop()

	task, err = Start(copycat.Config{"directory": dir})
	if err != nil {
		t.Fatal(err)
	}
	resume, err := task.(sink.Opener).Open([]sink.TopicPartition{tp, {Topic: "u", Partition: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resume) != 1 || resume[tp] != 2 {
		t.Fatalf("resume %v", resume)
	}
	if got := read(t, filepath.Join(dir, "t-0.txt")); got != "a\n\n" {
		t.Fatalf("file after open %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "t-0.offset.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary state file left: %v", err)
	}
}

func TestBadState(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t-0.offset"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := Start(copycat.Config{"directory": dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = task.(sink.Opener).Open([]sink.TopicPartition{{Topic: "t", Partition: 0}})
	if kind, _ := copycat.Classify(err); err == nil || kind != copycat.KindFatal {
		t.Fatalf("got %v", err)
	}
}

// A record whose value starts with "errant:" is reported, not written, and
// its offset advances; a refused report fails Put naming the record.
func TestErrantRecords(t *testing.T) {
	t.Cleanup(func() { sink.TestErrant.Reported, sink.TestErrant.Err = nil, nil })
	dir := t.TempDir()
	task, err := Start(copycat.Config{"directory": dir})
	if err != nil {
		t.Fatal(err)
	}
	sink.TestErrant.Reported = nil
	if err := put(t, task, record("t", 0, 1, "v1"), record("t", 0, 2, "errant:too odd"),
		record("t", 0, 3, "v3"), record("u", 0, 9, "errant:")); err != nil {
		t.Fatal(err)
	}
	want := []sink.ErrantReport{{Index: 1, Reason: "too odd"}, {Index: 3, Reason: ""}}
	if got := sink.TestErrant.Reported; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("reported %+v, want %+v", got, want)
	}
	if err := task.Flush(nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "t-0.txt")); got != "v1\nv3\n" {
		t.Fatalf("file %q", got)
	}
	if got := read(t, filepath.Join(dir, "t-0.offset")); got != "4 6" {
		t.Fatalf("state %q: the reported record's offset advances", got)
	}
	// A partition with only errant records still records its offset.
	if got := read(t, filepath.Join(dir, "u-0.offset")); got != "10 0" {
		t.Fatalf("state %q", got)
	}

	for _, refusal := range []error{sink.ErrUnavailable, sink.ErrToleranceExceeded, &sink.NoSuchRecordError{Message: "record 0"}} {
		sink.TestErrant.Err = refusal
		err = put(t, task, record("t", 0, 4, "v4"), record("t", 0, 5, "errant:bad"))
		kind, msg := copycat.Classify(err)
		if err == nil || kind != copycat.KindFatal || !errors.Is(err, refusal) ||
			!strings.Contains(msg, "topic t partition 0 offset 5") || !strings.Contains(msg, refusal.Error()) {
			t.Fatalf("put with %v: %v", refusal, err)
		}
	}
	if got := read(t, filepath.Join(dir, "t-0.txt")); got != "v1\nv3\n" {
		t.Fatalf("a failed put wrote: %q", got)
	}
}

type count struct {
	Stream string  `connect:"stream"`
	Seq    int64   `connect:"seq"`
	Even   bool    `connect:"even"`
	Note   *string `connect:"note"`
}

// Typed values are written as compact JSON (examples/SPEC.md).
func TestTypedValuesAsJSON(t *testing.T) {
	dir := t.TempDir()
	task, err := Start(copycat.Config{"directory": dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sink.TestErrant.Reported = nil })
	sink.TestErrant.Reported = nil
	note := "n4"
	intKeys := copycat.MapSchema(copycat.Int32Schema, copycat.ArraySchema(copycat.OptionalBoolean))
	typed := func(offset int64, p copycat.Payload) sink.Record {
		return sink.Record{Topic: "t", Partition: 0, Offset: offset, Value: p}
	}
	err = put(t, task,
		typed(0, copycat.Of(count{Stream: "stream-0", Seq: 4, Even: true, Note: &note})),
		typed(1, copycat.Of(count{Stream: "stream-0", Seq: 5})),
		typed(2, copycat.Typed(copycat.StringSchema, "q\"u\\o\nté\x01")),
		typed(3, copycat.Typed(copycat.BytesSchema, []byte{0xff, 0, 1})),
		typed(4, copycat.Typed(intKeys, []copycat.MapEntry{{Key: int32(7), Value: []any{true, nil}}})),
		typed(5, copycat.Schemaless(map[string]any{"b": int64(1), "a": []any{"x", 2.5}})),
		typed(6, copycat.Typed(copycat.DecimalSchema(2), copycat.Decimal{Unscaled: big.NewInt(-129), Scale: 2})),
		typed(7, copycat.Typed(copycat.TimestampSchema, int64(1700000000000))),
		typed(8, copycat.Typed(copycat.OptionalString, nil)),
		typed(9, copycat.Typed(copycat.StringSchema, "errant:typed")),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"stream":"stream-0","seq":4,"even":true,"note":"n4"}
{"stream":"stream-0","seq":5,"even":false,"note":null}
"q\"u\\o\nté\u0001"
"/wAB"
{"7":[true,null]}
{"a":["x",2.5],"b":1}
"/38="
1700000000000

`
	if got := read(t, filepath.Join(dir, "t-0.txt")); got != want {
		t.Fatalf("file\n%s\nwant\n%s", got, want)
	}
	if got := sink.TestErrant.Reported; len(got) != 1 || got[0] != (sink.ErrantReport{Index: 9, Reason: "typed"}) {
		t.Fatalf("a typed string starting with errant: is reported: %+v", got)
	}
}
