package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
)

func record(topic string, partition int32, offset int64, value string) sink.Record {
	r := sink.Record{Topic: topic, Partition: partition, Offset: offset}
	if value != "-" {
		r.Value = []byte(value)
	}
	return r
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
	if err := task.Put([]sink.Record{record("t", 0, 0, "a"), record("t", 1, 7, "x"), record("t", 0, 1, "-")}); err != nil {
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
	if err := task.Put([]sink.Record{record("t", 0, 2, "lost")}); err != nil {
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
