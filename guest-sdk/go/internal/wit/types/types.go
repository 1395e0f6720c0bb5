// Package wit_types holds the WIT value types that the generated bindings
// use: option, result, tuples and unit. It implements the API of
// go.bytecodealliance.org/pkg/wit/types that `wit-bindgen go` 0.63.0 output
// needs (see ../README.md).
package wit_types

// Tags of Option values, as the generated code switches on them.
const (
	OptionNone = 0
	OptionSome = 1
)

// Option is a WIT option<T>.
type Option[T any] struct {
	tag   uint8
	value T
}

// Some returns an option holding value.
func Some[T any](value T) Option[T] { return Option[T]{tag: OptionSome, value: value} }

// None returns an empty option.
func None[T any]() Option[T] { return Option[T]{} }

// Tag is OptionNone or OptionSome.
func (o Option[T]) Tag() uint8 { return o.tag }

// IsSome reports whether o holds a value.
func (o Option[T]) IsSome() bool { return o.tag == OptionSome }

// IsNone reports whether o is empty.
func (o Option[T]) IsNone() bool { return o.tag == OptionNone }

// Some returns the value; it panics on an empty option.
func (o Option[T]) Some() T {
	if o.tag != OptionSome {
		panic("wit_types: Some() of an empty option")
	}
	return o.value
}

// SomeOr returns the value, or def for an empty option.
func (o Option[T]) SomeOr(def T) T {
	if o.tag != OptionSome {
		return def
	}
	return o.value
}

// Tags of Result values.
const (
	ResultOk  = 0
	ResultErr = 1
)

// Result is a WIT result<T, E>.
type Result[T any, E any] struct {
	tag uint8
	ok  T
	err E
}

// Ok returns a successful result.
func Ok[T any, E any](value T) Result[T, E] { return Result[T, E]{tag: ResultOk, ok: value} }

// Err returns a failed result.
func Err[T any, E any](value E) Result[T, E] { return Result[T, E]{tag: ResultErr, err: value} }

// Tag is ResultOk or ResultErr.
func (r Result[T, E]) Tag() uint8 { return r.tag }

// IsOk reports whether r succeeded.
func (r Result[T, E]) IsOk() bool { return r.tag == ResultOk }

// IsErr reports whether r failed.
func (r Result[T, E]) IsErr() bool { return r.tag == ResultErr }

// Ok returns the value of a successful result; it panics otherwise.
func (r Result[T, E]) Ok() T {
	if r.tag != ResultOk {
		panic("wit_types: Ok() of an error result")
	}
	return r.ok
}

// Err returns the error of a failed result; it panics otherwise.
func (r Result[T, E]) Err() E {
	if r.tag != ResultErr {
		panic("wit_types: Err() of a successful result")
	}
	return r.err
}

// Unit is the payload of `result<_, E>`.
type Unit struct{}

// Tuple2 is a WIT tuple<T0, T1> (a config entry is a tuple<string, string>).
type Tuple2[T0 any, T1 any] struct {
	F0 T0
	F1 T1
}
