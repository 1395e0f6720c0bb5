package copycat

import (
	"errors"
	"reflect"
	"testing"
)

func TestReader(t *testing.T) {
	cfg := Config{"a": " 5 ", "b": "x", "c": "-1", "d": "", "l": " p, q ,,r", "t": "TRUE", "f": "1.5"}
	r := NewReader(cfg)
	if got := r.Int("a", 0, AtLeast(1)); got != 5 {
		t.Errorf("a = %d", got)
	}
	if got := r.Int("b", 7); got != 7 {
		t.Errorf("bad b = %d, want the default", got)
	}
	r.Long("c", 0, AtLeast(0))
	r.Required("d")
	r.Required("missing")
	if got := r.Int("absent", 3); got != 3 {
		t.Errorf("absent = %d", got)
	}
	if got := r.List("l"); !reflect.DeepEqual(got, []string{"p", "q", "r"}) {
		t.Errorf("l = %q", got)
	}
	if !r.Bool("t", false) || r.Double("f", 0) != 1.5 {
		t.Error("bool/double")
	}
	r.Int("b", 0) // a second problem on b is not recorded
	want := []Problem{
		{"b", "config 'b' must be an integer, got 'x'"},
		{"c", "config 'c' must be at least 0, got -1"},
		{"d", "config 'd' is required but is empty"},
		{"missing", "config 'missing' is required but is not set"},
	}
	if got := r.Problems(); !reflect.DeepEqual(got, want) {
		t.Fatalf("problems\n got %v\nwant %v", got, want)
	}
	var e *Error
	if err := r.Err(); !errors.As(err, &e) || e.Kind != KindConfig || e.Key != "b" {
		t.Fatalf("Err() = %#v", err)
	}
}

func TestIntRange(t *testing.T) {
	r := NewReader(Config{"i": "3000000000", "l": "3000000000"})
	r.Int("i", 0)
	if r.Long("l", 0) != 3000000000 {
		t.Error("long")
	}
	if p := r.Problems(); len(p) != 1 || p[0].Key != "i" {
		t.Fatalf("%v", p)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind Kind
	}{
		{errors.New("x"), KindFatal},
		{Configf("x"), KindConfig},
		{Retriable(errors.New("x")), KindRetriable},
		{Retriablef("wrapped: %w", Configf("inner")), KindRetriable},
	} {
		if k, msg := Classify(c.err); k != c.kind || msg != c.err.Error() {
			t.Errorf("%v: %v %q", c.err, k, msg)
		}
	}
}

func TestWith(t *testing.T) {
	a := Config{"k": "v"}
	b := a.With("x", "y")
	if len(a) != 1 || b["x"] != "y" || b["k"] != "v" {
		t.Fatal(a, b)
	}
}
