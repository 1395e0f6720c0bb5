// Package export_copycat_connector_sink_task implements the exported WIT
// interface copycat:connector/sink-task@0.3.0, which the generated code in
// exports/wit_exports_sink calls. Hand-written (generate.sh keeps it): it
// forwards to the [Handler] that package sink registers. Arguments still point into the memory of
// internal/wit/runtime's arena: the handler copies them, then calls
// glue.Release.
package export_copycat_connector_sink_task

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

type (
	TopicPartition       = copycat_connector_types.TopicPartition
	TopicPartitionOffset = copycat_connector_types.TopicPartitionOffset
	SinkBatch            = copycat_connector_batch.SinkBatch
)

// Handler is the sink task side of package sink.
type Handler interface {
	Start(cfg copycat.Config) error
	Open(partitions []TopicPartition) ([]TopicPartitionOffset, error)
	// Put reads the batch in place and calls glue.Release when done.
	Put(batch *SinkBatch) error
	Flush(offsets []TopicPartitionOffset) error
	Close(partitions []TopicPartition) error
	Stop()
}

// Task is the registered handler.
var Task Handler

func Start(cfg glue.WITConfig) glue.UnitResult {
	config := glue.Config(cfg)
	glue.Release()
	return glue.Unit(glue.Guard("start", func() error { return Task.Start(config) }))
}

func Open(partitions []TopicPartition) witTypes.Result[[]TopicPartitionOffset, glue.WITError] {
	var out []TopicPartitionOffset
	err := glue.Guard("open", func() (err error) {
		out, err = Task.Open(partitions)
		return err
	})
	return glue.Result(out, err)
}

func Put(batch SinkBatch) glue.UnitResult {
	return glue.Unit(glue.Guard("put", func() error { return Task.Put(&batch) }))
}

func Flush(offsets []TopicPartitionOffset) glue.UnitResult {
	return glue.Unit(glue.Guard("flush", func() error { return Task.Flush(offsets) }))
}

func Close(partitions []TopicPartition) glue.UnitResult {
	return glue.Unit(glue.Guard("close", func() error { return Task.Close(partitions) }))
}

func Stop() {
	_ = glue.Guard("stop", func() error { Task.Stop(); return nil })
}
