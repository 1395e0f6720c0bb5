// Package export_copycat_transform_transformer implements the exported WIT
// interface copycat:transform/transformer@0.1.0, which the generated code
// in exports/wit_exports_transform calls. Hand-written (generate.sh keeps
// it): it forwards to the [Handler] that package transform registers.
package export_copycat_transform_transformer

import (
	"errors"
	"fmt"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	tt "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_transform_transformer"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

type (
	RecordBatch    = tt.RecordBatch
	TransformInfo  = tt.TransformInfo
	TransformError = tt.TransformError
)

// Handler is the transform side of package transform.
type Handler interface {
	Describe() TransformInfo
	Validate(cfg copycat.Config) []copycat.Problem
	Configure(cfg copycat.Config) error
	// Apply reads in in place (glue.Release follows it) and returns a
	// batch whose slices stay untouched until the next Apply.
	Apply(in *RecordBatch) (RecordBatch, error)
}

// Impl is the registered handler.
var Impl Handler

// RecordError is an error about one input record (transform-error::record).
type RecordError interface {
	error
	RecordIndex() int
}

func impl() Handler {
	if Impl == nil {
		panic("copycat: no transform registered; call transform.Export from an init function of package main")
	}
	return Impl
}

func toWIT(err error) TransformError {
	var re RecordError
	if errors.As(err, &re) {
		return tt.MakeTransformErrorRecord(witTypes.Tuple2[uint32, string]{F0: uint32(re.RecordIndex()), F1: err.Error()})
	}
	kind, msg := copycat.Classify(err)
	if kind == copycat.KindConfig {
		return tt.MakeTransformErrorConfig(msg)
	}
	return tt.MakeTransformErrorFatal(msg)
}

func Describe() TransformInfo { return impl().Describe() }

func Validate(cfg glue.WITConfig) (problems []copycat_connector_types.ConfigProblem) {
	t := impl()
	config := glue.Config(cfg)
	glue.Release()
	defer func() {
		if r := recover(); r != nil {
			problems = []copycat_connector_types.ConfigProblem{{Key: "", Message: fmt.Sprintf("panic in validate: %v", r)}}
		}
	}()
	return glue.Problems(t.Validate(config))
}

func Configure(cfg glue.WITConfig) witTypes.Result[witTypes.Unit, TransformError] {
	config := glue.Config(cfg)
	glue.Release()
	if err := glue.Guard("configure", func() error { return impl().Configure(config) }); err != nil {
		return witTypes.Err[witTypes.Unit](toWIT(err))
	}
	return witTypes.Ok[witTypes.Unit, TransformError](witTypes.Unit{})
}

func Apply(in RecordBatch) witTypes.Result[RecordBatch, TransformError] {
	var out RecordBatch
	err := glue.Guard("apply", func() (err error) {
		defer glue.Release()
		out, err = impl().Apply(&in)
		return err
	})
	if err != nil {
		return witTypes.Err[RecordBatch](toWIT(err))
	}
	return witTypes.Ok[RecordBatch, TransformError](out)
}
