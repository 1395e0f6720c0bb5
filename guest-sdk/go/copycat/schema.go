package copycat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SchemaType is the type of a [Schema]: Kafka Connect's Schema.Type, in
// the order of the WIT `schema-type` enum (wit/connector@0.3.0/batch.wit).
type SchemaType uint8

const (
	SchemaInt8 SchemaType = iota
	SchemaInt16
	SchemaInt32
	SchemaInt64
	SchemaFloat32
	SchemaFloat64
	SchemaBoolean
	SchemaString
	SchemaBytes
	SchemaArray
	SchemaMap
	SchemaStruct
)

var schemaTypeNames = [...]string{"int8", "int16", "int32", "int64", "float32", "float64",
	"boolean", "string", "bytes", "array", "map", "struct"}

func (t SchemaType) String() string {
	if int(t) < len(schemaTypeNames) {
		return schemaTypeNames[t]
	}
	return "schema-type(" + strconv.Itoa(int(t)) + ")"
}

// The names of Kafka Connect's logical types (named schemas).
const (
	DecimalName   = "org.apache.kafka.connect.data.Decimal"   // bytes, parameter "scale"
	DateName      = "org.apache.kafka.connect.data.Date"      // int32 days since 1970-01-01
	TimeName      = "org.apache.kafka.connect.data.Time"      // int32 milliseconds of the day
	TimestampName = "org.apache.kafka.connect.data.Timestamp" // int64 milliseconds since the epoch
	DecimalScale  = "scale"
)

// Schema is a Kafka Connect schema: a type, whether null is allowed, an
// optional name, version, doc, parameters and default, and for containers
// the schemas of their parts. Build one with the constructors below
// ([Int64Schema], [StructSchema], ...) or derive one from a Go struct type
// with [SchemaOf]. Treat a Schema as immutable once records use it: the
// SDK caches what it derives from it by pointer.
type Schema struct {
	Type     SchemaType
	Optional bool
	Name     string // "" for none
	Version  *int32 // nil for none
	Doc      string // "" for none
	// Parameters in the order they were set.
	Parameters [][2]string
	// Default is the default value (see [Struct] for the Go types of
	// values); nil for none.
	Default any
	// Fields of a struct, in order.
	Fields []Field
	// Key is a map's key schema.
	Key *Schema
	// Value is a map's value schema or an array's element schema.
	Value *Schema
}

// Field is one field of a struct schema.
type Field struct {
	Name   string
	Schema *Schema
}

// The primitive schemas, as Kafka Connect's Schema.INT8_SCHEMA and so on.
// Shared: do not modify them.
var (
	Int8Schema      = &Schema{Type: SchemaInt8}
	Int16Schema     = &Schema{Type: SchemaInt16}
	Int32Schema     = &Schema{Type: SchemaInt32}
	Int64Schema     = &Schema{Type: SchemaInt64}
	Float32Schema   = &Schema{Type: SchemaFloat32}
	Float64Schema   = &Schema{Type: SchemaFloat64}
	BooleanSchema   = &Schema{Type: SchemaBoolean}
	StringSchema    = &Schema{Type: SchemaString}
	BytesSchema     = &Schema{Type: SchemaBytes}
	OptionalInt8    = &Schema{Type: SchemaInt8, Optional: true}
	OptionalInt16   = &Schema{Type: SchemaInt16, Optional: true}
	OptionalInt32   = &Schema{Type: SchemaInt32, Optional: true}
	OptionalInt64   = &Schema{Type: SchemaInt64, Optional: true}
	OptionalFloat32 = &Schema{Type: SchemaFloat32, Optional: true}
	OptionalFloat64 = &Schema{Type: SchemaFloat64, Optional: true}
	OptionalBoolean = &Schema{Type: SchemaBoolean, Optional: true}
	OptionalString  = &Schema{Type: SchemaString, Optional: true}
	OptionalBytes   = &Schema{Type: SchemaBytes, Optional: true}

	// TimestampSchema is Kafka Connect's Timestamp: int64 milliseconds
	// since the epoch (a time.Time in a Go struct).
	TimestampSchema = &Schema{Type: SchemaInt64, Name: TimestampName, Version: version1()}
	// DateSchema is Kafka Connect's Date: int32 days since 1970-01-01.
	DateSchema = &Schema{Type: SchemaInt32, Name: DateName, Version: version1()}
	// TimeSchema is Kafka Connect's Time: int32 milliseconds of the day.
	TimeSchema = &Schema{Type: SchemaInt32, Name: TimeName, Version: version1()}
)

func version1() *int32 { v := int32(1); return &v }

// DecimalSchema is Kafka Connect's Decimal of scale: bytes holding the
// unscaled value (see [Decimal]).
func DecimalSchema(scale int32) *Schema {
	return &Schema{Type: SchemaBytes, Name: DecimalName, Version: version1(),
		Parameters: [][2]string{{DecimalScale, strconv.Itoa(int(scale))}}}
}

// ArraySchema is an array of elem.
func ArraySchema(elem *Schema) *Schema { return &Schema{Type: SchemaArray, Value: elem} }

// MapSchema is a map from key to value.
func MapSchema(key, value *Schema) *Schema { return &Schema{Type: SchemaMap, Key: key, Value: value} }

// StructSchema is a struct named name ("" for none) with fields.
func StructSchema(name string, fields ...Field) *Schema {
	return &Schema{Type: SchemaStruct, Name: name, Fields: fields}
}

// AsOptional returns a copy of s that allows null.
func (s *Schema) AsOptional() *Schema {
	c := *s
	c.Optional = true
	return &c
}

// Field returns the struct field called name and its index, or -1.
func (s *Schema) Field(name string) (*Field, int) {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i], i
		}
	}
	return nil, -1
}

// Param returns the value of parameter name.
func (s *Schema) Param(name string) (string, bool) {
	for _, p := range s.Parameters {
		if p[0] == name {
			return p[1], true
		}
	}
	return "", false
}

// String describes s briefly ("struct copycat.examples.Count", "optional
// string").
func (s *Schema) String() string {
	var b strings.Builder
	if s.Optional {
		b.WriteString("optional ")
	}
	b.WriteString(s.Type.String())
	if s.Name != "" {
		b.WriteString(" " + s.Name)
	}
	return b.String()
}

// Equal reports whether a and b are the same schema (every attribute, and
// their parts, compared).
func (a *Schema) Equal(b *Schema) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	if a.Type != b.Type || a.Optional != b.Optional || a.Name != b.Name || a.Doc != b.Doc ||
		(a.Version == nil) != (b.Version == nil) || (a.Version != nil && *a.Version != *b.Version) ||
		!slices.Equal(a.Parameters, b.Parameters) || len(a.Fields) != len(b.Fields) ||
		!a.Key.Equal(b.Key) || !a.Value.Equal(b.Value) {
		return false
	}
	if (a.Default == nil) != (b.Default == nil) {
		return false
	}
	if a.Default != nil && fmt.Sprint(a.Default) != fmt.Sprint(b.Default) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !a.Fields[i].Schema.Equal(b.Fields[i].Schema) {
			return false
		}
	}
	return true
}
