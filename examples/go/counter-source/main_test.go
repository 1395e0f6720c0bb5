package main

import (
	"errors"
	"reflect"
	"testing"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/source"
)

func TestValidate(t *testing.T) {
	if p := (Counter{}).Validate(copycat.Config{"topic": "t"}); len(p) != 0 {
		t.Fatalf("good config: %v", p)
	}
	p := (Counter{}).Validate(copycat.Config{"streams": "0", "count": "-1"})
	var keys []string
	for _, problem := range p {
		keys = append(keys, problem.Key)
	}
	if want := []string{"topic", "streams", "count"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("problems on %v, want %v: %v", keys, want, p)
	}
	if p := (Counter{}).Validate(copycat.Config{"topic": "t", "streams": "x"}); len(p) != 1 || p[0].Key != "streams" {
		t.Fatalf("streams=x: %v", p)
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
}

func TestPollResumes(t *testing.T) {
	source.TestOffsets = map[string]string{"stream-1": "4"}
	defer func() { source.TestOffsets = map[string]string{} }()
	task, err := Start(copycat.Config{"topic": "t", "streams": "2", "count": "6"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for {
		batch, err := task.Poll(3)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) > 3 {
			t.Fatalf("batch of %d", len(batch))
		}
		if len(batch) == 0 {
			break
		}
		for _, r := range batch {
			if string(r.Key) != r.SourcePartition+":"+r.SourceOffset || string(r.Value) != r.SourceOffset {
				t.Fatalf("bad record %+v", r)
			}
			keys = append(keys, string(r.Key))
		}
	}
	want := []string{"stream-0:0", "stream-1:5", "stream-0:1", "stream-0:2", "stream-0:3", "stream-0:4", "stream-0:5"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
}
