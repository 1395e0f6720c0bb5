package copycat

import (
	"errors"
	"fmt"
)

// Kind says how the host reacts to an [Error]; it maps one to one onto the
// variants of the WIT `connector-error`.
type Kind int

const (
	// KindFatal: an unrecoverable problem; the task fails with the message.
	// Any error that is not an [*Error] is reported as fatal.
	KindFatal Kind = iota
	// KindRetriable: a transient problem (destination unreachable, lock
	// held); the host calls again later with the same input.
	KindRetriable
	// KindConfig: the configuration is wrong (missing key, bad value); the
	// task stays failed until the operator changes it.
	KindConfig
)

func (k Kind) String() string {
	switch k {
	case KindRetriable:
		return "retriable"
	case KindConfig:
		return "config"
	default:
		return "fatal"
	}
}

// Error is an error with a [Kind]. Return one (or wrap one: the SDK looks
// for it with [errors.As]) from any connector or task method to choose the
// WIT `connector-error` variant; every other error becomes `fatal` with the
// error's text.
type Error struct {
	Kind Kind
	// Key is the config key at fault (KindConfig only; may be empty).
	Key string
	// Err is the underlying error; its text is the message.
	Err error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Configf returns a configuration error (`connector-error::config`). Like
// [fmt.Errorf], %w wraps an error.
func Configf(format string, args ...any) error {
	return &Error{Kind: KindConfig, Err: fmt.Errorf(format, args...)}
}

// Retriablef returns a transient error (`connector-error::retriable`).
func Retriablef(format string, args ...any) error {
	return &Error{Kind: KindRetriable, Err: fmt.Errorf(format, args...)}
}

// Fatalf returns an unrecoverable error (`connector-error::fatal`); the same
// as returning any plain error.
func Fatalf(format string, args ...any) error {
	return &Error{Kind: KindFatal, Err: fmt.Errorf(format, args...)}
}

// Retriable marks err as transient: the host retries the call. It returns
// nil for nil.
func Retriable(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: KindRetriable, Err: err}
}

// Classify returns the kind and message the host receives for err: the
// kind of the first [*Error] in err's chain, else [KindFatal].
func Classify(err error) (Kind, string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, err.Error()
	}
	return KindFatal, err.Error()
}
