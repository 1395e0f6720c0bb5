// Package export_copycat_dynamic_instance implements the exported WIT
// interface copycat:dynamic/instance@0.1.0, which the generated code in
// exports/wit_exports_dynamic calls. Hand-written (generate.sh keeps it): it
// forwards to the [Handler] that package dynamic registers.
package export_copycat_dynamic_instance

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

// Handler is the running connector instance of package dynamic.
type Handler interface {
	Start(cfg copycat.Config) (bool, error)
	TaskConfigs(maxTasks int) ([]copycat.Config, error)
	Monitor() error
	Stop()
}

// Impl is the registered instance.
var Impl Handler

func impl() Handler {
	if Impl == nil {
		panic("copycat: no dynamic instance registered; call dynamic.Export from an init function of package main")
	}
	return Impl
}

func Start(cfg glue.WITConfig) witTypes.Result[bool, glue.WITError] {
	config := glue.Config(cfg)
	glue.Release()
	var watch bool
	err := glue.Guard("instance start", func() (err error) {
		watch, err = impl().Start(config)
		return err
	})
	return glue.Result(watch, err)
}

func TaskConfigs(maxTasks uint32) witTypes.Result[[]glue.WITConfig, glue.WITError] {
	var out []copycat.Config
	err := glue.Guard("instance task-configs", func() (err error) {
		out, err = impl().TaskConfigs(int(maxTasks))
		return err
	})
	return glue.Result(glue.Configs(out), err)
}

func Monitor() glue.UnitResult {
	return glue.Unit(glue.Guard("instance monitor", func() error { return impl().Monitor() }))
}

func Stop() {
	_ = glue.Guard("instance stop", func() error { impl().Stop(); return nil })
}
