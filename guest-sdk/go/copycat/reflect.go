package copycat

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SchemaNamer is implemented by Go struct types that name their struct
// schema (Kafka Connect's schema name, e.g. "copycat.examples.Count");
// without it a derived struct schema has no name.
type SchemaNamer interface {
	SchemaName() string
}

var (
	namerType = reflect.TypeFor[SchemaNamer]()
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()

	schemaCache sync.Map // reflect.Type -> *Schema
	planCache   sync.Map // planKey -> []int
)

// SchemaOf returns the schema of Go type T, derived once and cached (see
// [SchemaFor]). It panics on a type SchemaFor refuses.
func SchemaOf[T any]() *Schema {
	s, err := SchemaFor(reflect.TypeFor[T]())
	if err != nil {
		panic("copycat.SchemaOf: " + err.Error())
	}
	return s
}

// SchemaFor derives a Kafka Connect schema from a Go type, once per type
// (the result is cached and shared: do not modify it):
//
//	int8, int16, int32, int64   int8 ... int64 (int: int64)
//	float32, float64            float32, float64
//	bool, string, []byte        boolean, string, bytes
//	time.Time                   Timestamp (int64 milliseconds)
//	[]T, [N]T                   array of T
//	map[string]T                map of string to T
//	*T                          T, optional
//	struct                      struct of its exported fields, in order
//
// A field's name is its `connect:"name"` tag, else the Go field name;
// `connect:"-"` leaves it out. A struct type implementing [SchemaNamer]
// names its schema. Every other type (unsigned integers, interfaces,
// channels...) is an error naming it.
func SchemaFor(t reflect.Type) (*Schema, error) {
	if last := lastSchema.Load(); last != nil && last.t == t {
		return last.s, nil // a batch of records of one type: no map lookup
	}
	if s, ok := schemaCache.Load(t); ok {
		lastSchema.Store(&typeSchema{t, s.(*Schema)})
		return s.(*Schema), nil
	}
	s, err := deriveSchema(t, 0)
	if err != nil {
		return nil, err
	}
	actual, _ := schemaCache.LoadOrStore(t, s)
	lastSchema.Store(&typeSchema{t, actual.(*Schema)})
	return actual.(*Schema), nil
}

type typeSchema struct {
	t reflect.Type
	s *Schema
}

// lastSchema is the last type SchemaFor answered for.
var lastSchema atomic.Pointer[typeSchema]

func schemaForValue(v any) (*Schema, error) {
	if v == nil {
		return nil, fmt.Errorf("no schema for nil")
	}
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Elem() != timeType {
		t = t.Elem() // a pointer to a struct: the struct's schema
	}
	return SchemaFor(t)
}

func deriveSchema(t reflect.Type, depth int) (*Schema, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("type %s nested deeper than %d", t, MaxDepth)
	}
	if t == timeType {
		return TimestampSchema, nil
	}
	if t == bytesType {
		return BytesSchema, nil
	}
	switch t.Kind() {
	case reflect.Int8:
		return Int8Schema, nil
	case reflect.Int16:
		return Int16Schema, nil
	case reflect.Int32:
		return Int32Schema, nil
	case reflect.Int64, reflect.Int:
		return Int64Schema, nil
	case reflect.Float32:
		return Float32Schema, nil
	case reflect.Float64:
		return Float64Schema, nil
	case reflect.Bool:
		return BooleanSchema, nil
	case reflect.String:
		return StringSchema, nil
	case reflect.Pointer:
		s, err := deriveSchema(t.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		return s.AsOptional(), nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return BytesSchema, nil
		}
		e, err := deriveSchema(t.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		return ArraySchema(e), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("type %s: only maps with string keys have a schema", t)
		}
		v, err := deriveSchema(t.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		return MapSchema(StringSchema, v), nil
	case reflect.Struct:
		s := &Schema{Type: SchemaStruct}
		if t.Implements(namerType) {
			s.Name = reflect.Zero(t).Interface().(SchemaNamer).SchemaName()
		} else if reflect.PointerTo(t).Implements(namerType) {
			s.Name = reflect.New(t).Interface().(SchemaNamer).SchemaName()
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := fieldName(f)
			if !ok {
				continue
			}
			fs, err := deriveSchema(f.Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %s.%s: %w", t.Name(), f.Name, err)
			}
			s.Fields = append(s.Fields, Field{Name: name, Schema: fs})
		}
		return s, nil
	}
	return nil, fmt.Errorf("type %s has no Kafka Connect schema", t)
}

// fieldName is the schema name of a struct field, false to leave it out.
func fieldName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("connect")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

type planKey struct {
	t reflect.Type
	s *Schema
}

// plan maps each field of schema s to the index of the Go field of t with
// its name (-1: none, encoded as null).
func plan(t reflect.Type, s *Schema) []int {
	k := planKey{t, s}
	if last := lastPlan.Load(); last != nil && last.k == k {
		return last.p
	}
	if p, ok := planCache.Load(k); ok {
		lastPlan.Store(&keyPlan{k, p.([]int)})
		return p.([]int)
	}
	p := make([]int, len(s.Fields))
	for i, f := range s.Fields {
		p[i] = -1
		for j := range t.NumField() {
			if name, ok := fieldName(t.Field(j)); ok && name == f.Name {
				p[i] = j
				break
			}
		}
	}
	planCache.Store(k, p)
	lastPlan.Store(&keyPlan{k, p})
	return p
}

type keyPlan struct {
	k planKey
	p []int
}

// lastPlan is the last plan answered (the outer struct of a record, usually).
var lastPlan atomic.Pointer[keyPlan]

func encodeGoStruct(s *Schema, v any, out []byte, depth int) ([]byte, error) {
	return encodeReflect(s, reflect.ValueOf(v), out, depth, true)
}

// encodeReflect encodes a Go value under s; started says whether the
// optional presence byte is written already.
func encodeReflect(s *Schema, rv reflect.Value, out []byte, depth int, started bool) ([]byte, error) {
	if depth > MaxDepth {
		return out, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			if started {
				return out, fmt.Errorf("null for a %s schema", s)
			}
			if !s.Optional {
				return out, fmt.Errorf("null for a required %s schema", s)
			}
			return append(out, 0), nil
		}
		rv = rv.Elem()
	}
	if !started && s.Optional {
		out = append(out, 1)
	}
	kind := rv.Kind()
	switch {
	case s.Type <= SchemaInt64 && kind >= reflect.Int && kind <= reflect.Int64:
		n := rv.Int()
		switch s.Type {
		case SchemaInt8:
			if n != int64(int8(n)) {
				return out, fmt.Errorf("%d does not fit a %s schema", n, s)
			}
			return append(out, byte(n)), nil
		case SchemaInt16:
			if n != int64(int16(n)) {
				return out, fmt.Errorf("%d does not fit a %s schema", n, s)
			}
			return binary.LittleEndian.AppendUint16(out, uint16(n)), nil
		case SchemaInt32:
			if n != int64(int32(n)) {
				return out, fmt.Errorf("%d does not fit a %s schema", n, s)
			}
			return binary.LittleEndian.AppendUint32(out, uint32(n)), nil
		default:
			return binary.LittleEndian.AppendUint64(out, uint64(n)), nil
		}
	case s.Type == SchemaFloat32 && kind == reflect.Float32:
		return binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(rv.Float()))), nil
	case s.Type == SchemaFloat64 && kind == reflect.Float64:
		return binary.LittleEndian.AppendUint64(out, math.Float64bits(rv.Float())), nil
	case s.Type == SchemaBoolean && kind == reflect.Bool:
		if rv.Bool() {
			return append(out, 1), nil
		}
		return append(out, 0), nil
	case s.Type == SchemaString && kind == reflect.String:
		str := rv.String()
		out, err := encodeLen(len(str), out)
		return append(out, str...), err
	case s.Type == SchemaBytes && kind == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8:
		b := rv.Bytes()
		out, err := encodeLen(len(b), out)
		return append(out, b...), err
	case s.Type == SchemaArray && (kind == reflect.Slice || kind == reflect.Array):
		out, err := encodeLen(rv.Len(), out)
		for i := 0; err == nil && i < rv.Len(); i++ {
			out, err = encodeReflect(s.Value, rv.Index(i), out, depth+1, false)
		}
		return out, err
	case s.Type == SchemaMap && kind == reflect.Map:
		keys := rv.MapKeys()
		if rv.Type().Key().Kind() == reflect.String {
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		}
		out, err := encodeLen(len(keys), out)
		for i := 0; err == nil && i < len(keys); i++ {
			if out, err = encodeReflect(s.Key, keys[i], out, depth+1, false); err == nil {
				out, err = encodeReflect(s.Value, rv.MapIndex(keys[i]), out, depth+1, false)
			}
		}
		return out, err
	case s.Type == SchemaStruct && kind == reflect.Struct && rv.Type() != timeType:
		p := plan(rv.Type(), s)
		var err error
		for i, f := range s.Fields {
			if p[i] < 0 {
				if !f.Schema.Optional {
					return out, fmt.Errorf("field %s: %s has no such field", f.Name, rv.Type())
				}
				out = append(out, 0)
				continue
			}
			if out, err = encodeReflect(f.Schema, rv.Field(p[i]), out, depth+1, false); err != nil {
				return out, fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return out, nil
	}
	// Canonical values (time.Time, Decimal, *Struct, []any...) held in a Go
	// field: the general encoder, past the presence byte.
	if !rv.CanInterface() || !isCanonical(rv.Interface()) {
		return out, fmt.Errorf("a %s for a %s schema", rv.Type(), s)
	}
	body := *s
	body.Optional = false
	return encodeAt(&body, rv.Interface(), out, depth)
}

// assign stores a decoded value v into dst, a non-nil pointer.
func assign(dst any, v any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode into a %T: need a non-nil pointer", dst)
	}
	return assignValue(rv.Elem(), v, 0)
}

func assignValue(dst reflect.Value, v any, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	if v == nil {
		dst.SetZero()
		return nil
	}
	t := dst.Type()
	if t.Kind() == reflect.Interface {
		dst.Set(reflect.ValueOf(v))
		return nil
	}
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		if err := assignValue(p.Elem(), v, depth+1); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	}
	if t == timeType {
		switch x := v.(type) {
		case int64:
			dst.Set(reflect.ValueOf(time.UnixMilli(x).UTC()))
			return nil
		}
		return fmt.Errorf("a %T into a time.Time", v)
	}
	switch x := v.(type) {
	case int8, int16, int32, int64:
		n := reflect.ValueOf(x).Int()
		if t.Kind() < reflect.Int || t.Kind() > reflect.Int64 || dst.OverflowInt(n) {
			return fmt.Errorf("a %T (%d) into a %s", v, n, t)
		}
		dst.SetInt(n)
		return nil
	case float32, float64:
		f := reflect.ValueOf(x).Float()
		if t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64 {
			return fmt.Errorf("a %T into a %s", v, t)
		}
		dst.SetFloat(f)
		return nil
	case bool:
		if t.Kind() != reflect.Bool {
			return fmt.Errorf("a bool into a %s", t)
		}
		dst.SetBool(x)
		return nil
	case string:
		if t.Kind() != reflect.String {
			return fmt.Errorf("a string into a %s", t)
		}
		dst.SetString(x)
		return nil
	case []byte:
		if t != bytesType && !(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
			return fmt.Errorf("bytes into a %s", t)
		}
		dst.SetBytes(slices.Clone(x))
		return nil
	case []any:
		if t.Kind() != reflect.Slice {
			return fmt.Errorf("an array into a %s", t)
		}
		s := reflect.MakeSlice(t, len(x), len(x))
		for i, item := range x {
			if err := assignValue(s.Index(i), item, depth+1); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		dst.Set(s)
		return nil
	case []MapEntry:
		if t.Kind() != reflect.Map {
			return fmt.Errorf("a map into a %s", t)
		}
		m := reflect.MakeMapWithSize(t, len(x))
		for _, e := range x {
			k := reflect.New(t.Key()).Elem()
			val := reflect.New(t.Elem()).Elem()
			if err := assignValue(k, e.Key, depth+1); err != nil {
				return err
			}
			if err := assignValue(val, e.Value, depth+1); err != nil {
				return err
			}
			m.SetMapIndex(k, val)
		}
		dst.Set(m)
		return nil
	case *Struct:
		if t.Kind() != reflect.Struct {
			return fmt.Errorf("a struct into a %s", t)
		}
		p := plan(t, x.Schema)
		dst.SetZero()
		for i, f := range x.Schema.Fields {
			if p[i] < 0 {
				continue // a field the Go type does not have
			}
			if err := assignValue(dst.Field(p[i]), x.Values[i], depth+1); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Type().AssignableTo(t) {
		dst.Set(rv)
		return nil
	}
	return fmt.Errorf("a %T into a %s", v, t)
}
