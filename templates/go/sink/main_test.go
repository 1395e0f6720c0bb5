package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
)

func TestPutFlush(t *testing.T) {
	dir := t.TempDir()
	task, err := Start(copycat.Config{"directory": dir})
	if err != nil {
		t.Fatal(err)
	}
	err = task.Put([]sink.Record{
		{Topic: "t", Partition: 0, Offset: 0, Value: []byte("a")},
		{Topic: "t", Partition: 0, Offset: 1}, // no value: an empty line
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Flush(nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "t-0.txt"))
	if err != nil || string(got) != "a\n\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestMissingDirectory(t *testing.T) {
	if p := (Connector{}).Validate(copycat.Config{}); len(p) != 1 || p[0].Key != "directory" {
		t.Fatalf("%v", p)
	}
	if _, err := Start(copycat.Config{}); err == nil {
		t.Fatal("started without a directory")
	}
}
