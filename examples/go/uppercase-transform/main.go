// uppercase-transform: upper-cases string values, or the named string
// fields of a struct or map value (`fields`; every string field when
// empty). Raw bytes (which reach a transform as an optional bytes value)
// have their ASCII letters upper-cased and stay bytes; anything else passes
// unchanged. Every record comes out once, in order, with its topic,
// partition, timestamp, key and headers as they were, and its value's
// schema unchanged. Behaviour: examples/SPEC.md in the Copycat repository.
package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/transform"
)

func init() { transform.Export(&Uppercase{}) }

// main is required by Go but never called: the host calls the exports.
func main() {}

// Uppercase is the transform.
type Uppercase struct {
	fields []string // empty: every string field
}

func (*Uppercase) Describe() transform.Info {
	return transform.Info{
		Name:        "uppercase-transform",
		Version:     "0.1.0",
		Description: "Upper-cases string values, or the named string fields of a struct or map value",
		Config: []copycat.ConfigKey{
			{Name: "fields", Type: copycat.TypeList, EmptyDefault: true,
				Doc: "Struct fields or map keys to upper-case; empty: every string field"},
		},
	}
}

// parseFields splits `fields` on commas, trimmed; empty counts the empty
// names (as in "a,,b").
func parseFields(cfg copycat.Config) (fields []string, empty int) {
	raw := strings.TrimSpace(cfg["fields"])
	if raw == "" {
		return nil, 0 // every string field
	}
	for name := range strings.SplitSeq(raw, ",") {
		if name = strings.TrimSpace(name); name == "" {
			empty++
			continue
		}
		fields = append(fields, name)
	}
	return fields, empty
}

// Validate reports a problem on `fields` for each empty name in it.
func (*Uppercase) Validate(cfg copycat.Config) []copycat.Problem {
	_, empty := parseFields(cfg)
	var problems []copycat.Problem
	for range empty {
		problems = append(problems, copycat.Problem{Key: "fields",
			Message: fmt.Sprintf("config 'fields' has an empty field name: '%s'", cfg["fields"])})
	}
	return problems
}

func (u *Uppercase) Configure(cfg copycat.Config) error {
	fields, empty := parseFields(cfg)
	if empty > 0 {
		return copycat.Configf("config 'fields' has an empty field name: '%s'", cfg["fields"])
	}
	u.fields = fields
	return nil
}

// named reports whether the field or map key called name is upper-cased.
func (u *Uppercase) named(name string) bool {
	return len(u.fields) == 0 || slices.Contains(u.fields, name)
}

// Apply upper-cases each record's value; records whose value does not
// change pass on as they are.
func (u *Uppercase) Apply(in *transform.Batch, out *transform.Output) error {
	for i := range in.Len() {
		rec, err := in.Record(i)
		if err != nil {
			return err
		}
		value, changed, err := u.upper(rec.Value)
		if err != nil {
			return transform.RecordFailed(i, err)
		}
		if !changed {
			if err := out.Keep(i); err != nil {
				return err
			}
			continue
		}
		rec.Value = value
		if err := out.Append(i, rec); err != nil {
			return err
		}
	}
	return nil
}

// upper returns the upper-cased value, and whether it is one.
func (u *Uppercase) upper(p copycat.Payload) (copycat.Payload, bool, error) {
	if p.IsNull() {
		return p, false, nil
	}
	v, err := p.Value()
	if err != nil {
		return p, false, err
	}
	var out any
	switch x := v.(type) {
	case string:
		out = strings.ToUpper(x)
	case []byte:
		out = asciiUpper(x)
	case *copycat.Struct:
		st := &copycat.Struct{Schema: x.Schema, Values: slices.Clone(x.Values)}
		for k, f := range x.Schema.Fields {
			if s, ok := st.Values[k].(string); ok && u.named(f.Name) {
				st.Values[k] = strings.ToUpper(s)
			}
		}
		out = st
	case []copycat.MapEntry:
		entries := slices.Clone(x)
		for k, e := range entries {
			key, keyOK := e.Key.(string)
			if s, ok := e.Value.(string); ok && keyOK && u.named(key) {
				entries[k].Value = strings.ToUpper(s)
			}
		}
		out = entries
	default:
		return p, false, nil // anything else passes unchanged
	}
	if p.IsRaw() {
		return copycat.Raw(out.([]byte)), true, nil
	}
	if p.IsSchemaless() {
		return copycat.Schemaless(out), true, nil
	}
	return copycat.Typed(p.Schema(), out), true, nil
}

// asciiUpper returns a copy of b with ASCII a-z upper-cased (other bytes,
// UTF-8 or not, as they are).
func asciiUpper(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
