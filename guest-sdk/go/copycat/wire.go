package copycat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The value encoding of wit/connector@0.3.0/batch.wit, little-endian:
// optional schema: a byte, 0 null or 1 then the value; int8, boolean: 1
// byte; int16/32/64: 2/4/8 bytes; float32/64: IEEE 754; string, bytes: u32
// length then the bytes; Decimal: its unscaled bytes, as bytes; array: u32
// count then the elements; map: u32 count then key, value, ...; struct:
// its fields in order. Schemaless: a tag byte before each value.

// MaxDepth is the deepest nesting of schemas and values across the
// boundary (the host refuses deeper ones).
const MaxDepth = 100

// Schemaless tags.
const (
	tagNull byte = iota
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagFloat32
	tagFloat64
	tagBoolean
	tagString
	tagBytes
	tagArray
	tagMap
)

// Encode appends the encoding of v under schema to out. A null for a
// required schema, or a value that does not fit, is an error; out is then
// left with a partial encoding (truncate it to its old length).
func Encode(schema *Schema, v any, out []byte) ([]byte, error) {
	return encodeAt(schema, v, out, 0)
}

func mismatch(s *Schema, v any) error {
	return fmt.Errorf("a %T for a %s schema", v, s)
}

func encodeLen(n int, out []byte) ([]byte, error) {
	if uint64(n) > math.MaxUint32 {
		return out, errors.New("more than 2^32-1 bytes or items")
	}
	return binary.LittleEndian.AppendUint32(out, uint32(n)), nil
}

func encodeAt(s *Schema, v any, out []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return out, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	if s == nil {
		return out, errors.New("nil schema")
	}
	if isNil(v) {
		if !s.Optional {
			return out, fmt.Errorf("null for a required %s schema", s)
		}
		return append(out, 0), nil
	}
	if s.Optional {
		out = append(out, 1)
	}
	switch s.Type {
	case SchemaInt8, SchemaInt16, SchemaInt32, SchemaInt64:
		n, err := integer(s, v)
		if err != nil {
			return out, err
		}
		switch s.Type {
		case SchemaInt8:
			return append(out, byte(n)), nil
		case SchemaInt16:
			return binary.LittleEndian.AppendUint16(out, uint16(n)), nil
		case SchemaInt32:
			return binary.LittleEndian.AppendUint32(out, uint32(n)), nil
		default:
			return binary.LittleEndian.AppendUint64(out, uint64(n)), nil
		}
	case SchemaFloat32:
		if f, ok := v.(float32); ok {
			return binary.LittleEndian.AppendUint32(out, math.Float32bits(f)), nil
		}
	case SchemaFloat64:
		if f, ok := v.(float64); ok {
			return binary.LittleEndian.AppendUint64(out, math.Float64bits(f)), nil
		}
	case SchemaBoolean:
		if b, ok := v.(bool); ok {
			if b {
				return append(out, 1), nil
			}
			return append(out, 0), nil
		}
	case SchemaString:
		if str, ok := v.(string); ok {
			out, err := encodeLen(len(str), out)
			return append(out, str...), err
		}
	case SchemaBytes:
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		case Decimal:
			b = x.UnscaledBytes()
		case *big.Int:
			b = Decimal{Unscaled: x}.UnscaledBytes()
		default:
			return out, mismatch(s, v)
		}
		out, err := encodeLen(len(b), out)
		return append(out, b...), err
	case SchemaArray:
		switch items := v.(type) {
		case []any:
			out, err := encodeLen(len(items), out)
			for i := 0; err == nil && i < len(items); i++ {
				out, err = encodeAt(s.Value, items[i], out, depth+1)
			}
			return out, err
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			out, err := encodeLen(rv.Len(), out)
			for i := 0; err == nil && i < rv.Len(); i++ {
				out, err = encodeAt(s.Value, rv.Index(i).Interface(), out, depth+1)
			}
			return out, err
		}
	case SchemaMap:
		switch entries := v.(type) {
		case []MapEntry:
			out, err := encodeLen(len(entries), out)
			for i := 0; err == nil && i < len(entries); i++ {
				if out, err = encodeAt(s.Key, entries[i].Key, out, depth+1); err == nil {
					out, err = encodeAt(s.Value, entries[i].Value, out, depth+1)
				}
			}
			return out, err
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Map {
			keys := rv.MapKeys()
			if rv.Type().Key().Kind() == reflect.String {
				slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			}
			out, err := encodeLen(len(keys), out)
			for i := 0; err == nil && i < len(keys); i++ {
				if out, err = encodeAt(s.Key, keys[i].Interface(), out, depth+1); err == nil {
					out, err = encodeAt(s.Value, rv.MapIndex(keys[i]).Interface(), out, depth+1)
				}
			}
			return out, err
		}
	case SchemaStruct:
		if st, ok := v.(*Struct); ok {
			if st.Schema != s && !st.Schema.Equal(s) {
				return out, fmt.Errorf("a struct of schema %s for schema %s", st.Schema, s)
			}
			if len(st.Values) != len(s.Fields) {
				return out, fmt.Errorf("a struct with %d values for a schema of %d fields", len(st.Values), len(s.Fields))
			}
			var err error
			for i, f := range s.Fields {
				if out, err = encodeAt(f.Schema, st.Values[i], out, depth+1); err != nil {
					return out, fmt.Errorf("field %s: %w", f.Name, err)
				}
			}
			return out, nil
		}
		return encodeGoStruct(s, v, out, depth)
	}
	// Go's own forms: a pointer, a named type of a basic kind.
	if !isCanonical(v) {
		return encodeReflect(s, reflect.ValueOf(v), out, depth, true)
	}
	return out, mismatch(s, v)
}

// isCanonical reports whether v is of one of the Go types listed under
// [Struct] (or time.Time), which encodeAt handles itself.
func isCanonical(v any) bool {
	switch v.(type) {
	case int8, int16, int32, int64, int, float32, float64, bool, string, []byte,
		[]any, []MapEntry, *Struct, Decimal, *big.Int, time.Time:
		return true
	}
	return false
}

// integer reads an integer value for an integer schema: the schema's own
// Go type, int (range checked), or time.Time for a logical type.
func integer(s *Schema, v any) (int64, error) {
	var n int64
	switch x := v.(type) {
	case int8:
		if s.Type == SchemaInt8 {
			return int64(x), nil
		}
	case int16:
		if s.Type == SchemaInt16 {
			return int64(x), nil
		}
	case int32:
		if s.Type == SchemaInt32 {
			return int64(x), nil
		}
	case int64:
		if s.Type == SchemaInt64 {
			return x, nil
		}
	case int:
		n = int64(x)
		bits := [...]int{8, 16, 32, 64}[s.Type-SchemaInt8]
		if bits < 64 && (n < -(1<<(bits-1)) || n >= 1<<(bits-1)) {
			return 0, fmt.Errorf("%d does not fit a %s schema", n, s)
		}
		return n, nil
	case time.Time:
		switch {
		case s.Name == TimestampName && s.Type == SchemaInt64:
			return x.UnixMilli(), nil
		case s.Name == DateName && s.Type == SchemaInt32:
			return int64(math.Floor(float64(x.Unix()) / 86400)), nil
		case s.Name == TimeName && s.Type == SchemaInt32:
			ms := x.UnixMilli() % 86_400_000
			if ms < 0 {
				ms += 86_400_000
			}
			return ms, nil
		}
	}
	return 0, mismatch(s, v)
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// EncodeSchemaless appends the schemaless encoding of v (a tag byte before
// every value) to out: nil, integers, floats, booleans, strings, []byte,
// slices and maps (map[string]T with keys sorted, or []MapEntry).
func EncodeSchemaless(v any, out []byte) ([]byte, error) {
	return encodeDynamic(v, out, 0)
}

func encodeDynamic(v any, out []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return out, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	var err error
	switch x := v.(type) {
	case nil:
		return append(out, tagNull), nil
	case int8:
		return append(out, tagInt8, byte(x)), nil
	case int16:
		return binary.LittleEndian.AppendUint16(append(out, tagInt16), uint16(x)), nil
	case int32:
		return binary.LittleEndian.AppendUint32(append(out, tagInt32), uint32(x)), nil
	case int64:
		return binary.LittleEndian.AppendUint64(append(out, tagInt64), uint64(x)), nil
	case int:
		return binary.LittleEndian.AppendUint64(append(out, tagInt64), uint64(x)), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(out, tagFloat32), math.Float32bits(x)), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(out, tagFloat64), math.Float64bits(x)), nil
	case bool:
		if x {
			return append(out, tagBoolean, 1), nil
		}
		return append(out, tagBoolean, 0), nil
	case string:
		out, err = encodeLen(len(x), append(out, tagString))
		return append(out, x...), err
	case []byte:
		out, err = encodeLen(len(x), append(out, tagBytes))
		return append(out, x...), err
	case []any:
		out, err = encodeLen(len(x), append(out, tagArray))
		for i := 0; err == nil && i < len(x); i++ {
			out, err = encodeDynamic(x[i], out, depth+1)
		}
		return out, err
	case []MapEntry:
		out, err = encodeLen(len(x), append(out, tagMap))
		for i := 0; err == nil && i < len(x); i++ {
			if out, err = encodeDynamic(x[i].Key, out, depth+1); err == nil {
				out, err = encodeDynamic(x[i].Value, out, depth+1)
			}
		}
		return out, err
	case *Struct, Decimal:
		return out, fmt.Errorf("a %T needs a schema", v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return append(out, tagNull), nil
		}
		return encodeDynamic(rv.Elem().Interface(), out, depth)
	case reflect.Slice, reflect.Array:
		out, err = encodeLen(rv.Len(), append(out, tagArray))
		for i := 0; err == nil && i < rv.Len(); i++ {
			out, err = encodeDynamic(rv.Index(i).Interface(), out, depth+1)
		}
		return out, err
	case reflect.Map:
		if rv.IsNil() {
			return append(out, tagNull), nil
		}
		keys := rv.MapKeys()
		if rv.Type().Key().Kind() == reflect.String {
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		}
		out, err = encodeLen(len(keys), append(out, tagMap))
		for i := 0; err == nil && i < len(keys); i++ {
			if out, err = encodeDynamic(keys[i].Interface(), out, depth+1); err == nil {
				out, err = encodeDynamic(rv.MapIndex(keys[i]).Interface(), out, depth+1)
			}
		}
		return out, err
	}
	return out, fmt.Errorf("a %T cannot be a schemaless value", v)
}

// reader reads an encoding, bounds checked.
type reader struct {
	b   []byte
	pos int
}

var errShort = errors.New("value encoding ends early")

func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || len(r.b)-r.pos < n {
		return nil, errShort
	}
	out := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return out, nil
}

func (r *reader) u8() (byte, error) {
	b, err := r.take(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *reader) count() (int, error) {
	b, err := r.take(4)
	if err != nil {
		return 0, err
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(r.b)-r.pos)+4096 {
		return 0, fmt.Errorf("a count of %d with %d bytes left", n, len(r.b)-r.pos)
	}
	return int(n), nil
}

func (r *reader) finish(v any, err error) (any, error) {
	if err == nil && r.pos != len(r.b) {
		err = fmt.Errorf("%d bytes left after the value", len(r.b)-r.pos)
	}
	return v, err
}

// Decode decodes the encoding of one value under schema; every byte must
// be used. Values are of the Go types listed under [Struct]; strings are
// copies, byte slices borrow b.
func Decode(schema *Schema, b []byte) (any, error) {
	r := reader{b: b}
	v, err := r.value(schema, 0)
	return r.finish(v, err)
}

// DecodeSchemaless decodes a schemaless encoding (a tag byte before every
// value); every byte must be used.
func DecodeSchemaless(b []byte) (any, error) {
	r := reader{b: b}
	v, err := r.dynamic(0)
	return r.finish(v, err)
}

func (r *reader) value(s *Schema, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	if s.Optional {
		p, err := r.u8()
		if err != nil {
			return nil, err
		}
		switch p {
		case 0:
			return nil, nil
		case 1:
		default:
			return nil, fmt.Errorf("presence byte %d", p)
		}
	}
	return r.body(s.Type, s, depth)
}

func (r *reader) body(t SchemaType, s *Schema, depth int) (any, error) {
	switch t {
	case SchemaInt8:
		b, err := r.u8()
		return int8(b), err
	case SchemaInt16:
		b, err := r.take(2)
		if err != nil {
			return nil, err
		}
		return int16(binary.LittleEndian.Uint16(b)), nil
	case SchemaInt32:
		b, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return int32(binary.LittleEndian.Uint32(b)), nil
	case SchemaInt64:
		b, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return int64(binary.LittleEndian.Uint64(b)), nil
	case SchemaFloat32:
		b, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case SchemaFloat64:
		b, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case SchemaBoolean:
		b, err := r.u8()
		if err != nil {
			return nil, err
		}
		if b > 1 {
			return nil, fmt.Errorf("boolean byte %d", b)
		}
		return b == 1, nil
	case SchemaString, SchemaBytes:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		b, err := r.take(n)
		if err != nil {
			return nil, err
		}
		if t == SchemaString {
			return string(b), nil
		}
		if s != nil && s.Name == DecimalName {
			p, _ := s.Param(DecimalScale)
			scale, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("a Decimal schema with scale %q", p)
			}
			return decimalFromBytes(b, int32(scale)), nil
		}
		return b, nil
	case SchemaArray:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		items := make([]any, 0, min(n, 1024))
		for range n {
			var v any
			if s == nil {
				v, err = r.dynamic(depth + 1)
			} else {
				v, err = r.value(s.Value, depth+1)
			}
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		return items, nil
	case SchemaMap:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		entries := make([]MapEntry, 0, min(n, 1024))
		for range n {
			var k, v any
			if s == nil {
				if k, err = r.dynamic(depth + 1); err == nil {
					v, err = r.dynamic(depth + 1)
				}
			} else if k, err = r.value(s.Key, depth+1); err == nil {
				v, err = r.value(s.Value, depth+1)
			}
			if err != nil {
				return nil, err
			}
			entries = append(entries, MapEntry{Key: k, Value: v})
		}
		return entries, nil
	case SchemaStruct:
		if s == nil {
			return nil, errors.New("a struct needs a schema")
		}
		st := &Struct{Schema: s, Values: make([]any, len(s.Fields))}
		for i, f := range s.Fields {
			v, err := r.value(f.Schema, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			st.Values[i] = v
		}
		return st, nil
	}
	return nil, fmt.Errorf("schema type %d", t)
}

func (r *reader) dynamic(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	tag, err := r.u8()
	if err != nil {
		return nil, err
	}
	if tag == tagNull {
		return nil, nil
	}
	if tag > tagMap {
		return nil, fmt.Errorf("schemaless tag %d", tag)
	}
	return r.body(SchemaType(tag-1), nil, depth)
}
