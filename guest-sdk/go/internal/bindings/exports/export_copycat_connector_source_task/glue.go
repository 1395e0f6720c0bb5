// Package export_copycat_connector_source_task implements the exported WIT
// interface copycat:connector/source-task@0.3.0, which the generated code in
// exports/wit_exports_source calls. Hand-written (generate.sh keeps it): it
// forwards to the [Handler] that package source registers. Arguments still
// point into the memory of internal/wit/runtime's arena: the handler copies
// them, then calls glue.Release.
package export_copycat_connector_source_task

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

// Handler is the source task side of package source.
type Handler interface {
	Start(cfg copycat.Config) error
	// Poll returns a batch whose slices stay untouched until the next Poll
	// (the host reads them after Poll returns).
	Poll(maxRecords int) (copycat_connector_batch.SourceBatch, error)
	Commit(offsets []copycat_connector_types.SourcePosition) error
	Stop()
}

// Task is the registered handler.
var Task Handler

func Start(cfg glue.WITConfig) glue.UnitResult {
	config := glue.Config(cfg)
	glue.Release()
	return glue.Unit(glue.Guard("start", func() error { return Task.Start(config) }))
}

func Poll(maxRecords uint32) witTypes.Result[copycat_connector_batch.SourceBatch, glue.WITError] {
	var batch copycat_connector_batch.SourceBatch
	err := glue.Guard("poll", func() (err error) {
		batch, err = Task.Poll(int(maxRecords))
		return err
	})
	return glue.Result(batch, err)
}

func Commit(offsets []copycat_connector_types.SourcePosition) glue.UnitResult {
	return glue.Unit(glue.Guard("commit", func() error { return Task.Commit(offsets) }))
}

func Stop() {
	_ = glue.Guard("stop", func() error { Task.Stop(); return nil })
}
