// Package export_copycat_connector_connector implements the exported WIT
// interface copycat:connector/connector@0.3.0, which the generated code in
// exports/wit_exports_{source,sink} calls. Hand-written (generate.sh keeps
// it): it forwards to the [copycat.Connector] that source.Export or
// sink.Export registered.
package export_copycat_connector_connector

import (
	"fmt"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

var (
	// Impl is the registered connector.
	Impl copycat.Connector
	// Kind is the world of the component: source or sink.
	Kind copycat_connector_types.ConnectorKind
)

func impl() copycat.Connector {
	if Impl == nil {
		panic("copycat: no connector registered; call source.Export or sink.Export from an init function of package main")
	}
	return Impl
}

// Describe must not fail: a panic here traps (it is a bug in Describe).
func Describe() copycat_connector_types.PluginInfo {
	return glue.PluginInfo(impl().Describe(), Kind)
}

// Validate reports a panic as a problem on the config as a whole.
func Validate(cfg glue.WITConfig) (problems []copycat_connector_types.ConfigProblem) {
	c := impl()
	config := glue.Config(cfg)
	glue.Release()
	defer func() {
		if r := recover(); r != nil {
			problems = []copycat_connector_types.ConfigProblem{{Key: "", Message: fmt.Sprintf("panic in validate: %v", r)}}
		}
	}()
	return glue.Problems(c.Validate(config))
}

func TaskConfigs(cfg glue.WITConfig, maxTasks uint32) witTypes.Result[[]glue.WITConfig, glue.WITError] {
	c := impl()
	config := glue.Config(cfg)
	glue.Release()
	var out []copycat.Config
	err := glue.Guard("task-configs", func() (err error) {
		out, err = c.TaskConfigs(config, int(maxTasks))
		return err
	})
	return glue.Result(glue.Configs(out), err)
}
