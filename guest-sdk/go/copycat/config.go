package copycat

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Config is a connector's or task's configuration: the key/value pairs the
// operator wrote, host keys (name, tasks.max, grants.*) included. Keys are
// unique and carry no order. Read it with an index expression, or with a
// [Reader] to parse values with per-key errors.
type Config map[string]string

// With returns a copy of c with key set to value: the usual way to derive
// task configs.
func (c Config) With(key, value string) Config {
	out := maps.Clone(c)
	if out == nil {
		out = Config{}
	}
	out[key] = value
	return out
}

// Keys returns the keys in sorted order.
func (c Config) Keys() []string {
	return slices.Sorted(maps.Keys(c))
}

// Check is a constraint on an integer config value: it returns "" when v is
// acceptable, else what is wrong ("must be at least 1").
type Check func(v int64) string

// AtLeast requires a value >= min.
func AtLeast(min int64) Check {
	return func(v int64) string {
		if v < min {
			return fmt.Sprintf("must be at least %d", min)
		}
		return ""
	}
}

// Between requires min <= value <= max.
func Between(min, max int64) Check {
	return func(v int64) string {
		if v < min || v > max {
			return fmt.Sprintf("must be between %d and %d", min, max)
		}
		return ""
	}
}

// Reader parses a [Config] and collects one problem per bad key, so a
// single parse function serves Validate (all problems), TaskConfigs and
// task start (the first problem as a config error):
//
//	r := copycat.NewReader(cfg)
//	topic := r.Required("topic")
//	streams := r.Int("streams", 1, copycat.AtLeast(1))
//	if err := r.Err(); err != nil {
//		return nil, err // connector-error::config naming the key
//	}
//
// A bad value yields the type's zero value (or the default), so parsing
// can go on to find the next problem. Values are trimmed of surrounding
// whitespace; a blank value counts as absent.
type Reader struct {
	cfg      Config
	problems []Problem
}

// NewReader returns a Reader over cfg.
func NewReader(cfg Config) *Reader { return &Reader{cfg: cfg} }

// Problems returns every problem found so far, one per key at fault, in the
// order the keys were read.
func (r *Reader) Problems() []Problem { return slices.Clone(r.problems) }

// Err returns the first problem as a configuration error
// (`connector-error::config`), or nil.
func (r *Reader) Err() error {
	if len(r.problems) == 0 {
		return nil
	}
	p := r.problems[0]
	return &Error{Kind: KindConfig, Key: p.Key, Err: fmt.Errorf("%s", p.Message)}
}

// Problem records a problem of your own on key (a cross-key check, say).
func (r *Reader) Problem(key, format string, args ...any) {
	if slices.ContainsFunc(r.problems, func(p Problem) bool { return p.Key == key }) {
		return // one problem per key
	}
	r.problems = append(r.problems, Problem{Key: key, Message: fmt.Sprintf(format, args...)})
}

func (r *Reader) value(key string) (string, bool) {
	v, ok := r.cfg[key]
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

// Required returns the value of key, or records "config 'key' is required
// but is not set" (or "... is empty").
func (r *Reader) Required(key string) string {
	v, ok := r.value(key)
	if !ok {
		if _, present := r.cfg[key]; present {
			r.Problem(key, "config '%s' is required but is empty", key)
		} else {
			r.Problem(key, "config '%s' is required but is not set", key)
		}
	}
	return v
}

// String returns the value of key, or def when it is absent or blank.
func (r *Reader) String(key, def string) string {
	if v, ok := r.value(key); ok {
		return v
	}
	return def
}

// Int returns key as a 32-bit integer (the WIT `int` type), def when absent,
// checked against checks.
func (r *Reader) Int(key string, def int, checks ...Check) int {
	return int(r.integer(key, int64(def), 32, "an integer", checks))
}

// Long returns key as a 64-bit integer (the WIT `long` type), def when
// absent, checked against checks.
func (r *Reader) Long(key string, def int64, checks ...Check) int64 {
	return r.integer(key, def, 64, "a long integer", checks)
}

func (r *Reader) integer(key string, def int64, bits int, what string, checks []Check) int64 {
	v, ok := r.value(key)
	n := def
	if ok {
		parsed, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			r.Problem(key, "config '%s' must be %s, got '%s'", key, what, v)
			return def
		}
		n = parsed
	}
	for _, check := range checks {
		if msg := check(n); msg != "" {
			r.Problem(key, "config '%s' %s, got %d", key, msg, n)
			return def
		}
	}
	return n
}

// Double returns key as a finite 64-bit float, def when absent.
func (r *Reader) Double(key string, def float64) float64 {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		r.Problem(key, "config '%s' must be a number, got '%s'", key, v)
		return def
	}
	return f
}

// Bool returns key as a boolean ("true" or "false", any case), def when
// absent.
func (r *Reader) Bool(key string, def bool) bool {
	v, ok := r.value(key)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	r.Problem(key, "config '%s' must be true or false, got '%s'", key, v)
	return def
}

// List returns key split on commas, items trimmed, empty items dropped; nil
// when absent.
func (r *Reader) List(key string) []string {
	v, ok := r.value(key)
	if !ok {
		return nil
	}
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
