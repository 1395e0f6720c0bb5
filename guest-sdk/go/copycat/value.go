package copycat

import (
	"fmt"
	"math"
	"math/big"
)

// Values. A typed key, value or header is a Go value of one of these types
// (what [Payload.Value] returns and what [Typed] and [Schemaless] take):
//
//	null                  nil
//	int8 ... int64        int8, int16, int32, int64
//	float32, float64      float32, float64
//	boolean, string       bool, string
//	bytes                 []byte ([Decimal] for a Decimal schema)
//	array                 []any
//	map                   []MapEntry (in order)
//	struct                *Struct
//
// Logical types decode as their underlying values (Date and Time int32,
// Timestamp int64) and a Decimal as a [Decimal]. Encoding under a schema
// also takes Go's own forms: int for any integer schema (range checked),
// time.Time for Timestamp, Date and Time, map[string]T (keys sorted),
// slices of any element type, and Go structs (see [SchemaOf]).

// Struct is a struct value: its schema and one value per field, in order.
type Struct struct {
	Schema *Schema
	Values []any
}

// NewStruct returns a struct of schema with every field null.
func NewStruct(schema *Schema) *Struct {
	return &Struct{Schema: schema, Values: make([]any, len(schema.Fields))}
}

// Get returns the value of the field called name (nil if there is none).
func (s *Struct) Get(name string) any {
	if _, i := s.Schema.Field(name); i >= 0 && i < len(s.Values) {
		return s.Values[i]
	}
	return nil
}

// Put sets the field called name; it returns s, for chaining, and panics
// on a field the schema does not have (a bug in the caller).
func (s *Struct) Put(name string, v any) *Struct {
	_, i := s.Schema.Field(name)
	if i < 0 {
		panic(fmt.Sprintf("copycat: struct %s has no field %q", s.Schema, name))
	}
	s.Values[i] = v
	return s
}

// MapEntry is one entry of a map value.
type MapEntry struct {
	Key, Value any
}

// Decimal is a value of Kafka Connect's Decimal logical type: Unscaled ×
// 10^-Scale. Its bytes are the unscaled value's big-endian two's
// complement (Java's BigInteger.toByteArray).
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// UnscaledBytes returns the unscaled value as the shortest big-endian
// two's complement bytes (what the wire and Kafka Connect carry).
func (d Decimal) UnscaledBytes() []byte {
	x := d.Unscaled
	if x == nil {
		x = new(big.Int)
	}
	mag := x
	if x.Sign() < 0 {
		mag = new(big.Int).Neg(x)
		mag.Sub(mag, big.NewInt(1)) // -x-1
	}
	n := mag.BitLen()/8 + 1
	out := make([]byte, n)
	if x.Sign() >= 0 {
		x.FillBytes(out)
		return out
	}
	y := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	y.Add(y, x)
	y.FillBytes(out)
	return out
}

// decimalFromBytes reads big-endian two's complement bytes.
func decimalFromBytes(b []byte, scale int32) Decimal {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return Decimal{Unscaled: x, Scale: scale}
}

func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "0"
	}
	return new(big.Float).SetInt(d.Unscaled).Text('g', -1) + "e-" + fmt.Sprint(d.Scale)
}

type payloadKind uint8

const (
	payloadNull payloadKind = iota
	payloadRaw
	payloadTyped
	payloadSchemaless
)

// Payload is a record's key, value or header value: null, raw bytes
// (handed to Kafka as they are), a value with a [Schema] (turned into
// bytes by the connector's converters), or a schemaless value (Kafka
// Connect's null schema). The zero Payload is null.
//
// Sources build one with [Raw], [Typed], [Schemaless] or [Of]. Sinks and
// transforms read one: [Payload.Bytes] for raw bytes, [Payload.Value] or
// [Payload.Decode] for a typed value. A payload read from a batch borrows
// the batch's memory: copy what you keep after the call returns.
type Payload struct {
	kind    payloadKind
	schema  *Schema
	value   any    // to encode (Typed, Schemaless)
	bytes   []byte // raw bytes, or the encoding of a decoded payload
	encoded bool   // bytes hold a typed or schemaless encoding
}

// Null returns a null payload (a tombstone value, no key).
func Null() Payload { return Payload{} }

// Raw returns raw bytes; nil is null, []byte{} is empty.
func Raw(b []byte) Payload {
	if b == nil {
		return Payload{}
	}
	return Payload{kind: payloadRaw, bytes: b}
}

// Typed returns v under schema (v of the Go types listed under [Struct]).
// Encoding checks that v fits the schema, when the record is added to a
// batch.
func Typed(schema *Schema, v any) Payload {
	return Payload{kind: payloadTyped, schema: schema, value: v}
}

// Schemaless returns v without a schema (Kafka Connect's null schema):
// null, integers, floats, booleans, strings, bytes, arrays and maps.
func Schemaless(v any) Payload {
	return Payload{kind: payloadSchemaless, value: v}
}

// Of returns a Go struct value (or a pointer to one) under the schema
// [SchemaOf] derives from its type (once per type, cached). It panics on a
// type SchemaOf refuses, a bug in the caller; use [SchemaFor] to handle
// the error.
func Of(v any) Payload {
	s, err := schemaForValue(v)
	if err != nil {
		panic("copycat.Of: " + err.Error())
	}
	return Payload{kind: payloadTyped, schema: s, value: v}
}

// IsNull reports whether the payload is null (no key, a tombstone, a
// header without a value), whatever its schema.
func (p Payload) IsNull() bool {
	switch p.kind {
	case payloadNull:
		return true
	case payloadRaw:
		return false
	default:
		return !p.encoded && isNil(p.value) || p.encoded && p.bytes == nil
	}
}

// IsRaw reports whether the payload is raw bytes.
func (p Payload) IsRaw() bool { return p.kind == payloadRaw }

// IsSchemaless reports whether the payload is a value without a schema.
func (p Payload) IsSchemaless() bool { return p.kind == payloadSchemaless }

// Schema returns the payload's schema; nil for null, raw bytes and
// schemaless values.
func (p Payload) Schema() *Schema { return p.schema }

// Bytes returns raw bytes, or the encoded bytes of a typed value read
// from a batch; nil for null.
func (p Payload) Bytes() []byte { return p.bytes }

// Value returns the value: raw bytes as []byte, a typed or schemaless
// value as listed under [Struct] (decoded from a batch, or as given).
func (p Payload) Value() (any, error) {
	switch p.kind {
	case payloadNull:
		return nil, nil
	case payloadRaw:
		return p.bytes, nil
	}
	if !p.encoded {
		return p.value, nil
	}
	if p.bytes == nil {
		return nil, nil
	}
	if p.kind == payloadSchemaless {
		return DecodeSchemaless(p.bytes)
	}
	return Decode(p.schema, p.bytes)
}

// Decode stores the value into dst, a pointer to a Go value of a type
// [SchemaOf] accepts (a struct, usually), matching struct fields by name;
// or a pointer to an any, which receives [Payload.Value]'s result.
func (p Payload) Decode(dst any) error {
	v, err := p.Value()
	if err != nil {
		return err
	}
	return assign(dst, v)
}

// ReadPayload is a payload read from a batch (used by the SDK's sink and
// transform packages): schema index idx of schemas (-1 raw bytes, -2
// schemaless, n >= 0 the schema of node n) and its bytes, nil for null.
// The payload borrows b.
func ReadPayload(schemas []*Schema, idx int32, b []byte) (Payload, error) {
	switch {
	case idx == -1:
		return Raw(b), nil
	case idx == -2:
		return Payload{kind: payloadSchemaless, bytes: b, encoded: true}, nil
	case idx >= 0 && int(idx) < len(schemas):
		return Payload{kind: payloadTyped, schema: schemas[idx], bytes: b, encoded: true}, nil
	}
	return Payload{}, fmt.Errorf("schema index %d out of range (%d schemas)", idx, len(schemas))
}

// AppendTo appends the payload's bytes, in the batch encoding, to data
// and adds its schema to table (used by the SDK's batch builders). It
// returns the new data, the length column's entry (-1 for null) and the
// schema column's (-1 raw bytes, -2 schemaless, n >= 0 the schema's root
// node). On an error data is returned as it was.
func (p Payload) AppendTo(table *SchemaTable, data []byte) ([]byte, int32, int32, error) {
	switch p.kind {
	case payloadNull:
		return data, -1, -1, nil
	case payloadRaw:
		if uint64(len(p.bytes)) > math.MaxInt32 {
			return data, 0, 0, fmt.Errorf("%d bytes: more than a batch holds", len(p.bytes))
		}
		return append(data, p.bytes...), int32(len(p.bytes)), -1, nil
	}
	schema := int32(-2)
	if p.kind == payloadTyped {
		var err error
		if schema, err = table.Add(p.schema); err != nil {
			return data, 0, 0, err
		}
	}
	start := len(data)
	switch {
	case p.encoded && p.bytes == nil, !p.encoded && isNil(p.value):
		if p.kind == payloadTyped && !p.schema.Optional && p.schema.Default == nil {
			return data, 0, 0, fmt.Errorf("null for a required %s schema", p.schema)
		}
		return data, -1, schema, nil
	case p.encoded:
		data = append(data, p.bytes...)
	case p.kind == payloadTyped:
		out, err := Encode(p.schema, p.value, data)
		if err != nil {
			return out[:start], 0, 0, err
		}
		data = out
	default:
		out, err := EncodeSchemaless(p.value, data)
		if err != nil {
			return out[:start], 0, 0, err
		}
		data = out
	}
	n := len(data) - start
	if uint64(n) > math.MaxInt32 {
		return data[:start], 0, 0, fmt.Errorf("%d bytes: more than a batch holds", n)
	}
	return data, int32(n), schema, nil
}
