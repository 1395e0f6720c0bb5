package copycat

import (
	"bytes"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

// le builds expected bytes: ints as little-endian of the given width.
func le(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch x := p.(type) {
		case byte:
			b = append(b, x)
		case int16:
			b = append(b, byte(x), byte(x>>8))
		case int32:
			for i := range 4 {
				b = append(b, byte(x>>(8*i)))
			}
		case uint32:
			for i := range 4 {
				b = append(b, byte(x>>(8*i)))
			}
		case int64:
			for i := range 8 {
				b = append(b, byte(x>>(8*i)))
			}
		case string:
			b = append(b, x...)
		case []byte:
			b = append(b, x...)
		default:
			panic(p)
		}
	}
	return b
}

// The value encoding of wit/connector@0.3.0/batch.wit, byte for byte.
func TestEncodeIsByteExact(t *testing.T) {
	point := StructSchema("p", Field{"x", Int32Schema}, Field{"tag", OptionalString})
	cases := []struct {
		name   string
		schema *Schema
		value  any
		want   []byte
	}{
		{"int8", Int8Schema, int8(-2), le(byte(0xfe))},
		{"int16", Int16Schema, int16(-2), le(int16(-2))},
		{"int32", Int32Schema, int32(0x01020304), le(byte(4), byte(3), byte(2), byte(1))},
		{"int64", Int64Schema, int64(-1), le(int64(-1))},
		{"int as int16", Int16Schema, 300, le(int16(300))},
		{"float32", Float32Schema, float32(1.5), le(uint32(math.Float32bits(1.5)))},
		{"float64", Float64Schema, 2.0, le(int64(math.Float64bits(2)))},
		{"boolean", BooleanSchema, true, le(byte(1))},
		{"string", StringSchema, "héllo", le(uint32(6), "héllo")},
		{"bytes", BytesSchema, []byte{0, 1}, le(uint32(2), byte(0), byte(1))},
		{"optional present", OptionalInt32, int32(7), le(byte(1), int32(7))},
		{"optional null", OptionalInt32, nil, le(byte(0))},
		{"optional via pointer", OptionalString, ptr("a"), le(byte(1), uint32(1), "a")},
		{"array", ArraySchema(Int16Schema), []any{int16(1), int16(2)}, le(uint32(2), int16(1), int16(2))},
		{"array of a Go slice", ArraySchema(StringSchema), []string{"a"}, le(uint32(1), uint32(1), "a")},
		{"map", MapSchema(StringSchema, Int8Schema), []MapEntry{{"b", int8(1)}, {"a", int8(2)}},
			le(uint32(2), uint32(1), "b", byte(1), uint32(1), "a", byte(2))},
		{"Go map, keys sorted", MapSchema(StringSchema, Int8Schema), map[string]int8{"b": 1, "a": 2},
			le(uint32(2), uint32(1), "a", byte(2), uint32(1), "b", byte(1))},
		{"struct", point, (&Struct{Schema: point, Values: []any{int32(3), nil}}), le(int32(3), byte(0))},
		{"Decimal 1.00", DecimalSchema(2), Decimal{Unscaled: big.NewInt(100), Scale: 2}, le(uint32(1), byte(100))},
		{"Decimal -129", DecimalSchema(0), Decimal{Unscaled: big.NewInt(-129)}, le(uint32(2), byte(0xff), byte(0x7f))},
		{"Decimal 128", DecimalSchema(0), Decimal{Unscaled: big.NewInt(128)}, le(uint32(2), byte(0), byte(0x80))},
		{"Timestamp", TimestampSchema, time.UnixMilli(1_700_000_000_123), le(int64(1_700_000_000_123))},
		{"Date", DateSchema, time.Date(1970, 1, 3, 5, 0, 0, 0, time.UTC), le(int32(2))},
		{"Time", TimeSchema, time.Date(2020, 1, 3, 0, 0, 1, 5e6, time.UTC), le(int32(1005))},
	}
	for _, c := range cases {
		got, err := Encode(c.schema, c.value, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: % x, want % x", c.name, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestEncodeRefusesWhatDoesNotFit(t *testing.T) {
	for _, c := range []struct {
		schema *Schema
		value  any
		want   string
	}{
		{Int32Schema, nil, "null for a required int32 schema"},
		{Int32Schema, "x", "a string for a int32 schema"},
		{Int8Schema, 300, "300 does not fit a int8 schema"},
		{Int64Schema, int32(1), "a int32 for a int64 schema"},
		{StructSchema("a", Field{"x", Int8Schema}), &Struct{Schema: StructSchema("b"), Values: nil}, "a struct of schema struct b"},
		{Int32Schema, uint32(1), "a uint32 for a int32 schema"},
	} {
		_, err := Encode(c.schema, c.value, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v under %s: %v, want %q", c.value, c.schema, err, c.want)
		}
	}
}

func TestSchemalessIsByteExact(t *testing.T) {
	got, err := EncodeSchemaless(map[string]any{"b": []any{int32(1), nil}, "a": "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := le(byte(11), uint32(2),
		byte(8), uint32(1), "a", byte(8), uint32(1), "x",
		byte(8), uint32(1), "b", byte(10), uint32(2), byte(3), int32(1), byte(0))
	if !bytes.Equal(got, want) {
		t.Fatalf("% x, want % x", got, want)
	}
	v, err := DecodeSchemaless(got)
	if err != nil {
		t.Fatal(err)
	}
	wantValue := []MapEntry{{"a", "x"}, {"b", []any{int32(1), nil}}}
	if !reflect.DeepEqual(v, wantValue) {
		t.Fatalf("decoded %#v", v)
	}
	if _, err := EncodeSchemaless(&Struct{}, nil); err == nil {
		t.Fatal("a struct needs a schema")
	}
	all := []any{int8(1), int16(2), int32(3), int64(4), float32(5), float64(6), true, "s", []byte("b"), nil}
	enc, err := EncodeSchemaless(all, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeSchemaless(enc)
	if err != nil || !reflect.DeepEqual(back, all) {
		t.Fatalf("%#v, %v", back, err)
	}
}

func TestDecodeRoundTripsAndRefusesDamage(t *testing.T) {
	inner := StructSchema("in", Field{"v", OptionalFloat64})
	s := StructSchema("outer",
		Field{"a", ArraySchema(inner)},
		Field{"m", MapSchema(StringSchema, OptionalBytes)},
		Field{"d", DecimalSchema(3)},
		Field{"b", BooleanSchema},
	)
	value := &Struct{Schema: s, Values: []any{
		[]any{&Struct{Schema: inner, Values: []any{1.25}}, &Struct{Schema: inner, Values: []any{nil}}},
		[]MapEntry{{"k", []byte("v")}, {"n", nil}},
		Decimal{Unscaled: big.NewInt(-5), Scale: 3},
		false,
	}}
	enc, err := Encode(s, value, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(s, enc)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Encode(s, back, nil)
	if err != nil || !bytes.Equal(again, enc) {
		t.Fatalf("round trip: % x vs % x (%v)", again, enc, err)
	}
	if d := back.(*Struct).Get("d").(Decimal); d.Unscaled.Int64() != -5 || d.Scale != 3 {
		t.Fatalf("decimal %v", d)
	}
	for i := range len(enc) {
		if _, err := Decode(s, enc[:i]); err == nil {
			t.Fatalf("a value cut to %d of %d bytes decoded", i, len(enc))
		}
	}
	if _, err := Decode(s, append(enc, 0)); err == nil || !strings.Contains(err.Error(), "1 bytes left") {
		t.Fatalf("trailing byte: %v", err)
	}
	if _, err := Decode(BooleanSchema, []byte{2}); err == nil {
		t.Fatal("boolean byte 2 decoded")
	}
	if _, err := Decode(ArraySchema(Int8Schema), le(uint32(1<<30))); err == nil {
		t.Fatal("a count beyond the bytes decoded")
	}
}

func TestSchemaTableSharesAndRebuilds(t *testing.T) {
	countSchema := SchemaOf[count]()
	var table SchemaTable
	a, err := table.Add(countSchema)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := table.Add(StringSchema)
	c, _ := table.Add(SchemaOf[count]()) // the cached schema: the same node
	d, _ := table.Add(StructSchema("copycat.examples.Count",
		Field{"stream", StringSchema}, Field{"seq", Int64Schema}, Field{"even", BooleanSchema},
		Field{"note", OptionalString})) // an equal schema built apart: shared by content
	nodes := table.Nodes()
	// Every node after its children; the string node is shared.
	if a != 4 || b != 0 || c != a || d != a || len(nodes) != 5 {
		t.Fatalf("roots %d %d %d %d, %d nodes: %+v", a, b, c, d, len(nodes), nodes)
	}
	root := nodes[a]
	if root.Type != SchemaStruct || *root.Name != "copycat.examples.Count" || root.Optional ||
		!reflect.DeepEqual(root.Children, []uint32{0, 1, 2, 3}) ||
		!reflect.DeepEqual(root.FieldNames, []string{"stream", "seq", "even", "note"}) ||
		nodes[3].Type != SchemaString || !nodes[3].Optional {
		t.Fatalf("nodes %+v", nodes)
	}
	schemas, err := ReadSchemas(nodes)
	if err != nil || !schemas[a].Equal(countSchema) {
		t.Fatalf("rebuilt %v: %v", schemas[a], err)
	}
	if _, err := ReadSchemas([]SchemaNode{{Type: SchemaArray, Children: []uint32{0}}}); err == nil {
		t.Fatal("a node referring to itself")
	}
	withDefault := &Schema{Type: SchemaInt32, Default: int32(5)}
	i, err := table.Add(withDefault)
	if err != nil || !bytes.Equal(table.Nodes()[i].Default, le(int32(5))) {
		t.Fatalf("default %+v %v", table.Nodes()[i], err)
	}
	table.Truncate(5)
	if table.Len() != 5 {
		t.Fatal(table.Len())
	}
	if j, _ := table.Add(withDefault); j != 5 {
		t.Fatalf("re-added at %d", j)
	}
}

type count struct {
	Stream string  `connect:"stream"`
	Seq    int64   `connect:"seq"`
	Even   bool    `connect:"even"`
	Note   *string `connect:"note"`
	hidden int
}

func (count) SchemaName() string { return "copycat.examples.Count" }

type everything struct {
	I8   int8
	I16  int16
	I32  int32
	I64  int64
	I    int
	F32  float32
	F64  float64
	B    bool
	S    string `connect:"s"`
	Raw  []byte
	At   time.Time
	List []string
	Map  map[string]int32
	Opt  *int64
	Sub  count
	Skip string `connect:"-"`
}

func TestSchemaOfGoTypes(t *testing.T) {
	s := SchemaOf[everything]()
	if s != SchemaOf[everything]() {
		t.Fatal("not cached")
	}
	var names, types []string
	for _, f := range s.Fields {
		names = append(names, f.Name)
		types = append(types, f.Schema.String())
	}
	if strings.Join(names, ",") != "I8,I16,I32,I64,I,F32,F64,B,s,Raw,At,List,Map,Opt,Sub" {
		t.Fatal(names)
	}
	want := "int8,int16,int32,int64,int64,float32,float64,boolean,string,bytes," +
		"int64 org.apache.kafka.connect.data.Timestamp,array,map,optional int64,struct copycat.examples.Count"
	if strings.Join(types, ",") != want {
		t.Fatal(types)
	}
	if _, err := SchemaFor(reflect.TypeFor[struct{ U uint }]()); err == nil || !strings.Contains(err.Error(), "uint") {
		t.Fatalf("uint: %v", err)
	}
	if _, err := SchemaFor(reflect.TypeFor[map[int]string]()); err == nil {
		t.Fatal("a map with int keys")
	}

	// A Go struct encodes as the generic Struct does, and decodes back.
	note := "n4"
	v := everything{I8: -1, I16: 2, I32: 3, I64: 4, I: 5, F32: 1.5, F64: 2.5, B: true, S: "s", Raw: []byte{9},
		At: time.UnixMilli(1234).UTC(), List: []string{"x", "y"}, Map: map[string]int32{"k": 1}, Opt: ptr(int64(8)),
		Sub: count{Stream: "stream-0", Seq: 4, Even: true, Note: &note}, Skip: "not sent"}
	enc, err := Encode(s, &v, nil)
	if err != nil {
		t.Fatal(err)
	}
	generic, err := Decode(s, enc)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Encode(s, generic, nil)
	if err != nil || !bytes.Equal(enc, again) {
		t.Fatalf("generic re-encoding differs: %v", err)
	}
	var back everything
	if err := (Payload{kind: payloadTyped, schema: s, bytes: enc, encoded: true}).Decode(&back); err != nil {
		t.Fatal(err)
	}
	v.Skip = ""
	if !reflect.DeepEqual(back, v) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", back, v)
	}

	// The Count struct's bytes, as batch.wit lays them out.
	sub, _ := Encode(SchemaOf[count](), count{Stream: "stream-0", Seq: 4, Even: true, Note: &note}, nil)
	if want := le(uint32(8), "stream-0", int64(4), byte(1), byte(1), uint32(2), "n4"); !bytes.Equal(sub, want) {
		t.Fatalf("% x, want % x", sub, want)
	}
	odd, _ := Encode(SchemaOf[count](), count{Stream: "stream-0", Seq: 5}, nil)
	if want := le(uint32(8), "stream-0", int64(5), byte(0), byte(0)); !bytes.Equal(odd, want) {
		t.Fatalf("% x, want % x", odd, want)
	}
}

func TestPayloadAppendTo(t *testing.T) {
	var table SchemaTable
	data, n, s, err := Raw([]byte("ab")).AppendTo(&table, nil)
	if err != nil || string(data) != "ab" || n != 2 || s != -1 {
		t.Fatal(data, n, s, err)
	}
	data, n, s, _ = Null().AppendTo(&table, data)
	if n != -1 || s != -1 || len(data) != 2 {
		t.Fatal(n, s)
	}
	data, n, s, _ = Schemaless("x").AppendTo(&table, data)
	if n != 6 || s != -2 || !bytes.Equal(data[2:], le(byte(8), uint32(1), "x")) {
		t.Fatal(n, s, data)
	}
	data, n, s, _ = Typed(OptionalString, nil).AppendTo(&table, data)
	if n != -1 || s != 0 || len(data) != 8 {
		t.Fatal(n, s)
	}
	if _, _, _, err := Typed(StringSchema, nil).AppendTo(&table, data); err == nil {
		t.Fatal("null for a required schema")
	}
	if out, _, _, err := Typed(Int8Schema, "x").AppendTo(&table, data); err == nil || len(out) != 8 {
		t.Fatalf("a failed encoding must leave data as it was: %d, %v", len(out), err)
	}
	_, n, s, _ = Of(&count{Stream: "s"}).AppendTo(&table, data)
	if n != 4+1+8+1+1 || s < 0 || table.Nodes()[s].Type != SchemaStruct {
		t.Fatal(n, s)
	}
}
