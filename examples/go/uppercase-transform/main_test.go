package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/transform"
)

func TestValidateAndConfigure(t *testing.T) {
	u := &Uppercase{}
	if p := u.Validate(copycat.Config{"fields": "a,,b,,c"}); len(p) != 2 || p[0].Key != "fields" || p[1].Key != "fields" {
		t.Fatalf("problems %v", p)
	}
	if p := u.Validate(copycat.Config{"fields": "a, b"}); len(p) != 0 {
		t.Fatalf("problems %v", p)
	}
	if p := u.Validate(copycat.Config{}); len(p) != 0 {
		t.Fatalf("problems %v", p)
	}
	err := u.Configure(copycat.Config{"fields": "a,,b"})
	if kind, _ := copycat.Classify(err); err == nil || kind != copycat.KindConfig {
		t.Fatalf("configure: %v", err)
	}
}

type person struct {
	Name  string  `connect:"name"`
	City  *string `connect:"city"`
	Age   int32   `connect:"age"`
	Email string  `connect:"email"`
}

func apply(t *testing.T, u *Uppercase, records ...transform.Record) []transform.Record {
	t.Helper()
	in, err := transform.NewBatch(records...)
	if err != nil {
		t.Fatal(err)
	}
	out := transform.NewOutput(in)
	if err := u.Apply(in, out); err != nil {
		t.Fatal(err)
	}
	recs, origins, err := out.Records()
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range origins {
		if o != i {
			t.Fatalf("origins %v", origins)
		}
	}
	return recs
}

func value(t *testing.T, p copycat.Payload) any {
	t.Helper()
	v, err := p.Value()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestApply(t *testing.T) {
	city := "paris"
	at := time.UnixMilli(42)
	rec := func(v copycat.Payload) transform.Record {
		return transform.Record{Topic: "t", Partition: 2, Offset: 7, Timestamp: at, Key: copycat.Raw([]byte("key")),
			Value: v, Headers: []copycat.Header{{Key: "h", Value: copycat.Raw([]byte("x"))}}}
	}
	strMap := copycat.MapSchema(copycat.StringSchema, copycat.OptionalString)
	in := []transform.Record{
		rec(copycat.Typed(copycat.OptionalString, "héllo")),
		rec(copycat.Typed(copycat.OptionalBytes, []byte{'a', 'z', 0xff, 'Q'})),
		rec(copycat.Of(person{Name: "ann", City: &city, Age: 3, Email: "a@b"})),
		rec(copycat.Typed(strMap, []copycat.MapEntry{{Key: "name", Value: "bob"}, {Key: "email", Value: nil}})),
		rec(copycat.Typed(copycat.Int32Schema, int32(5))),
		rec(copycat.Typed(copycat.OptionalString, nil)),
		rec(copycat.Schemaless("free")),
	}
	u := &Uppercase{}
	if err := u.Configure(copycat.Config{}); err != nil {
		t.Fatal(err)
	}
	out := apply(t, u, in...)
	if len(out) != len(in) {
		t.Fatalf("%d records out of %d", len(out), len(in))
	}
	for i, r := range out {
		if r.Topic != "t" || r.Partition != 2 || r.Offset != 7 || !r.Timestamp.Equal(at) || string(r.Key.Bytes()) != "key" ||
			len(r.Headers) != 1 || string(r.Headers[0].Value.Bytes()) != "x" {
			t.Fatalf("record %d lost its metadata: %+v", i, r)
		}
		if !r.Value.Schema().Equal(in[i].Value.Schema()) {
			t.Fatalf("record %d: schema %v, was %v", i, r.Value.Schema(), in[i].Value.Schema())
		}
	}
	if v := value(t, out[0].Value); v != "HÉLLO" {
		t.Fatalf("string %q", v)
	}
	if v := value(t, out[1].Value); !reflect.DeepEqual(v, []byte{'A', 'Z', 0xff, 'Q'}) {
		t.Fatalf("bytes %q", v)
	}
	var p person
	if err := out[2].Value.Decode(&p); err != nil || p.Name != "ANN" || *p.City != "PARIS" || p.Age != 3 || p.Email != "A@B" {
		t.Fatalf("struct %+v %v", p, err)
	}
	if v := value(t, out[3].Value); !reflect.DeepEqual(v, []copycat.MapEntry{{Key: "name", Value: "BOB"}, {Key: "email", Value: nil}}) {
		t.Fatalf("map %v", v)
	}
	if v := value(t, out[4].Value); v != int32(5) {
		t.Fatalf("int %v", v)
	}
	if !out[5].Value.IsNull() {
		t.Fatal("null")
	}
	if v := value(t, out[6].Value); v != "FREE" || !out[6].Value.IsSchemaless() {
		t.Fatalf("schemaless %v", v)
	}

	// Only the named fields.
	if err := u.Configure(copycat.Config{"fields": "name, city"}); err != nil {
		t.Fatal(err)
	}
	out = apply(t, u, in[2], in[3])
	if err := out[0].Value.Decode(&p); err != nil || p.Name != "ANN" || *p.City != "PARIS" || p.Email != "a@b" {
		t.Fatalf("struct %+v %v", p, err)
	}
	if v := value(t, out[1].Value); !reflect.DeepEqual(v, []copycat.MapEntry{{Key: "name", Value: "BOB"}, {Key: "email", Value: nil}}) {
		t.Fatalf("map %v", v)
	}
}
