// Package batch builds and reads the columnar batches of
// wit/connector@0.3.0/batch.wit (and the transform world's record-batch,
// which has the same layout): one data buffer holding every key, value
// and header back to back, and integer columns per record and per header.
// Package source and transform build with [Builder]; sink and transform
// read with [View].
package batch

import (
	"fmt"
	"math"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
)

// Builder holds the columns shared by every batch shape. Its slices are
// reused from one batch to the next ([Builder.Reset]).
type Builder struct {
	Data               []byte
	KeyLengths         []int32
	ValueLengths       []int32
	HeaderCounts       []uint32 // empty, or one per record
	HeaderKeyLengths   []uint32
	HeaderValueLengths []int32
	Schemas            copycat.SchemaTable
	KeySchemas         []int32 // empty, or one per record
	ValueSchemas       []int32 // empty, or one per record
	HeaderSchemas      []int32 // empty, or one per header
}

// Reset empties the batch, keeping its memory.
func (b *Builder) Reset() {
	b.Data = b.Data[:0]
	b.KeyLengths = b.KeyLengths[:0]
	b.ValueLengths = b.ValueLengths[:0]
	b.HeaderCounts = b.HeaderCounts[:0]
	b.HeaderKeyLengths = b.HeaderKeyLengths[:0]
	b.HeaderValueLengths = b.HeaderValueLengths[:0]
	b.Schemas.Reset()
	b.KeySchemas = b.KeySchemas[:0]
	b.ValueSchemas = b.ValueSchemas[:0]
	b.HeaderSchemas = b.HeaderSchemas[:0]
}

// Len is the number of records.
func (b *Builder) Len() int { return len(b.ValueLengths) }

// Sparse reports whether an optional column is in use, so that a record
// of raw bytes without headers must pad it.
func (b *Builder) Sparse() bool {
	return len(b.HeaderCounts)|len(b.KeySchemas)|len(b.ValueSchemas) != 0
}

// AppendRaw adds a record of raw bytes without headers: the fast path,
// two copies and two column entries, no allocation once the slices have
// grown. A nil key is no key, a nil value a tombstone.
func (b *Builder) AppendRaw(key, value []byte) {
	if key == nil {
		b.KeyLengths = append(b.KeyLengths, -1)
	} else {
		b.KeyLengths = append(b.KeyLengths, int32(len(key)))
		b.Data = append(b.Data, key...)
	}
	if value == nil {
		b.ValueLengths = append(b.ValueLengths, -1)
	} else {
		b.ValueLengths = append(b.ValueLengths, int32(len(value)))
		b.Data = append(b.Data, value...)
	}
	if b.Sparse() {
		pad(&b.HeaderCounts, 0, b.Len())
		pad(&b.KeySchemas, -1, b.Len())
		pad(&b.ValueSchemas, -1, b.Len())
	}
}

// pad fills a non-empty optional column with def up to n entries.
func pad[T any](col *[]T, def T, n int) {
	for len(*col) != 0 && len(*col) < n {
		*col = append(*col, def)
	}
}

// set stores v as entry i (the record being added) of an optional column:
// materialized (padded with def) only once an entry differs from def.
func set[T comparable](col *[]T, def, v T, i int) {
	if len(*col) == 0 && v == def {
		return
	}
	for len(*col) < i {
		*col = append(*col, def)
	}
	*col = append(*col, v)
}

type mark struct {
	data, keys, values, hcounts, hkeys, hvalues, schemas, kschemas, vschemas, hschemas int
}

func (b *Builder) mark() mark {
	return mark{len(b.Data), len(b.KeyLengths), len(b.ValueLengths), len(b.HeaderCounts),
		len(b.HeaderKeyLengths), len(b.HeaderValueLengths), b.Schemas.Len(), len(b.KeySchemas),
		len(b.ValueSchemas), len(b.HeaderSchemas)}
}

func (b *Builder) rollback(m mark) {
	b.Data = b.Data[:m.data]
	b.KeyLengths = b.KeyLengths[:m.keys]
	b.ValueLengths = b.ValueLengths[:m.values]
	b.HeaderCounts = b.HeaderCounts[:m.hcounts]
	b.HeaderKeyLengths = b.HeaderKeyLengths[:m.hkeys]
	b.HeaderValueLengths = b.HeaderValueLengths[:m.hvalues]
	b.Schemas.Truncate(m.schemas)
	b.KeySchemas = b.KeySchemas[:m.kschemas]
	b.ValueSchemas = b.ValueSchemas[:m.vschemas]
	b.HeaderSchemas = b.HeaderSchemas[:m.hschemas]
}

// Append adds a record: its key, value and headers, raw or typed. On an
// error (a value that does not fit its schema, an empty header key) the
// batch is left as it was.
func (b *Builder) Append(key, value copycat.Payload, headers []copycat.Header) error {
	m := b.mark()
	if err := b.append(key, value, headers); err != nil {
		b.rollback(m)
		return err
	}
	return nil
}

func (b *Builder) append(key, value copycat.Payload, headers []copycat.Header) error {
	i := b.Len()
	var err error
	var n, s int32
	if b.Data, n, s, err = key.AppendTo(&b.Schemas, b.Data); err != nil {
		return fmt.Errorf("key: %w", err)
	}
	b.KeyLengths = append(b.KeyLengths, n)
	set(&b.KeySchemas, -1, s, i)
	if b.Data, n, s, err = value.AppendTo(&b.Schemas, b.Data); err != nil {
		return fmt.Errorf("value: %w", err)
	}
	b.ValueLengths = append(b.ValueLengths, n)
	set(&b.ValueSchemas, -1, s, i)
	if len(headers) > math.MaxUint32 {
		return fmt.Errorf("%d headers", len(headers))
	}
	set(&b.HeaderCounts, 0, uint32(len(headers)), i)
	for _, h := range headers {
		if h.Key == "" {
			return fmt.Errorf("a header with an empty key")
		}
		b.HeaderKeyLengths = append(b.HeaderKeyLengths, uint32(len(h.Key)))
		b.Data = append(b.Data, h.Key...)
		hi := len(b.HeaderValueLengths)
		if b.Data, n, s, err = h.Value.AppendTo(&b.Schemas, b.Data); err != nil {
			return fmt.Errorf("header %s: %w", h.Key, err)
		}
		b.HeaderValueLengths = append(b.HeaderValueLengths, n)
		set(&b.HeaderSchemas, -1, s, hi)
	}
	pad(&b.KeySchemas, -1, i+1)
	pad(&b.ValueSchemas, -1, i+1)
	pad(&b.HeaderCounts, 0, i+1)
	pad(&b.HeaderSchemas, -1, len(b.HeaderValueLengths))
	if len(b.Data) > math.MaxUint32 {
		return fmt.Errorf("the batch's data is over 4 GiB")
	}
	return nil
}

// View reads a batch: borrowed, so its payloads point into the batch's
// data (valid during the call that received it).
type View struct {
	Data               []byte
	KeyLengths         []int32
	ValueLengths       []int32
	HeaderCounts       []uint32
	HeaderKeyLengths   []uint32
	HeaderValueLengths []int32
	Schemas            []*copycat.Schema
	KeySchemas         []int32
	ValueSchemas       []int32
	HeaderSchemas      []int32

	starts  []int // per record: where its key starts in Data
	headers []int // per record: its first header
}

// Init checks the columns against each other and indexes the records.
func (v *View) Init() error {
	n := len(v.ValueLengths)
	if len(v.KeyLengths) != n {
		return fmt.Errorf("malformed batch: %d key lengths for %d records", len(v.KeyLengths), n)
	}
	for _, c := range []struct {
		name string
		len  int
	}{{"header-counts", len(v.HeaderCounts)}, {"key-schemas", len(v.KeySchemas)}, {"value-schemas", len(v.ValueSchemas)}} {
		if c.len != 0 && c.len != n {
			return fmt.Errorf("malformed batch: %d %s for %d records", c.len, c.name, n)
		}
	}
	if len(v.HeaderKeyLengths) != len(v.HeaderValueLengths) ||
		(len(v.HeaderSchemas) != 0 && len(v.HeaderSchemas) != len(v.HeaderValueLengths)) {
		return fmt.Errorf("malformed batch: header columns of different lengths")
	}
	v.starts = v.starts[:0]
	v.headers = v.headers[:0]
	pos, h := 0, 0
	size := func(l int32) int { return max(int(l), 0) }
	for i := range n {
		v.starts = append(v.starts, pos)
		v.headers = append(v.headers, h)
		pos += size(v.KeyLengths[i]) + size(v.ValueLengths[i])
		if len(v.HeaderCounts) != 0 {
			for k := 0; k < int(v.HeaderCounts[i]); k++ {
				if h >= len(v.HeaderKeyLengths) {
					return fmt.Errorf("malformed batch: record %d has headers beyond the header columns", i)
				}
				pos += int(v.HeaderKeyLengths[h]) + size(v.HeaderValueLengths[h])
				h++
			}
		}
	}
	if pos != len(v.Data) {
		return fmt.Errorf("malformed batch: the lengths add up to %d bytes of %d", pos, len(v.Data))
	}
	v.headers = append(v.headers, h)
	return nil
}

// Len is the number of records.
func (v *View) Len() int { return len(v.ValueLengths) }

func slice(data []byte, pos int, l int32) ([]byte, int) {
	if l < 0 {
		return nil, pos
	}
	end := pos + int(l)
	return data[pos:end:end], end
}

func column(col []int32, i int) int32 {
	if len(col) == 0 {
		return -1
	}
	return col[i]
}

// Key returns record i's key.
func (v *View) Key(i int) (copycat.Payload, error) {
	b, _ := slice(v.Data, v.starts[i], v.KeyLengths[i])
	return copycat.ReadPayload(v.Schemas, column(v.KeySchemas, i), b)
}

// RawKey returns record i's key bytes as they are (nil for none).
func (v *View) RawKey(i int) []byte {
	b, _ := slice(v.Data, v.starts[i], v.KeyLengths[i])
	return b
}

// RawValue returns record i's value bytes as they are (nil for null).
func (v *View) RawValue(i int) []byte {
	b, _ := slice(v.Data, v.starts[i]+max(int(v.KeyLengths[i]), 0), v.ValueLengths[i])
	return b
}

// Value returns record i's value.
func (v *View) Value(i int) (copycat.Payload, error) {
	return copycat.ReadPayload(v.Schemas, column(v.ValueSchemas, i), v.RawValue(i))
}

// ValueSchema returns the value's schema column entry.
func (v *View) ValueSchema(i int) int32 { return column(v.ValueSchemas, i) }

// Headers returns record i's headers (nil for none).
func (v *View) Headers(i int) ([]copycat.Header, error) {
	first, end := v.headers[i], v.headers[i+1]
	if first == end {
		return nil, nil
	}
	pos := v.starts[i] + max(int(v.KeyLengths[i]), 0) + max(int(v.ValueLengths[i]), 0)
	out := make([]copycat.Header, 0, end-first)
	for h := first; h < end; h++ {
		var k, val []byte
		k, pos = slice(v.Data, pos, int32(v.HeaderKeyLengths[h]))
		val, pos = slice(v.Data, pos, v.HeaderValueLengths[h])
		p, err := copycat.ReadPayload(v.Schemas, column(v.HeaderSchemas, h), val)
		if err != nil {
			return nil, fmt.Errorf("header %d: %w", h, err)
		}
		out = append(out, copycat.Header{Key: string(k), Value: p})
	}
	return out, nil
}
