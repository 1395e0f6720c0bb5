package dynamic

import (
	"testing"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/exports/export_copycat_dynamic_instance"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

type watcher struct {
	n, seen int
	stopped bool
}

func (w *watcher) Start(cfg copycat.Config) (bool, error) {
	if cfg["file"] == "" {
		return false, nil
	}
	if cfg["file"] == "missing" {
		return false, copycat.Configf("config 'streams.file': cannot read missing")
	}
	w.n = 1
	return true, nil
}
func (w *watcher) TaskConfigs(max int) ([]copycat.Config, error) {
	out := make([]copycat.Config, min(w.n, max))
	for i := range out {
		out[i] = copycat.Config{"i": string(rune('0' + i))}
	}
	return out, nil
}
func (w *watcher) Monitor() error {
	if w.seen == 1 {
		return copycat.Retriablef("cannot read the file")
	}
	w.seen++
	w.n++
	RequestTaskReconfiguration()
	return nil
}
func (w *watcher) Stop() { w.stopped = true }

func TestInstance(t *testing.T) {
	w := &watcher{}
	Export(w)
	start := export_copycat_dynamic_instance.Start
	if r := start(nil); !r.IsOk() || r.Ok() {
		t.Fatalf("nothing to watch: %+v", r)
	}
	if r := start(glue.WITConfig{{F0: "file", F1: "missing"}}); !r.IsErr() || r.Err().Tag() != copycat_connector_types.ConnectorError_Config {
		t.Fatalf("bad file: %+v", r)
	}
	if r := start(glue.WITConfig{{F0: "file", F1: "f"}}); !r.IsOk() || !r.Ok() {
		t.Fatalf("watch: %+v", r)
	}
	if r := export_copycat_dynamic_instance.TaskConfigs(4); !r.IsOk() || len(r.Ok()) != 1 {
		t.Fatalf("task-configs: %+v", r)
	}
	TestContext.Reconfigurations = 0
	if r := export_copycat_dynamic_instance.Monitor(); !r.IsOk() || TestContext.Reconfigurations != 1 {
		t.Fatalf("monitor: %+v, %d", r, TestContext.Reconfigurations)
	}
	if r := export_copycat_dynamic_instance.TaskConfigs(4); !r.IsOk() || len(r.Ok()) != 2 || r.Ok()[1][0].F1 != "1" {
		t.Fatalf("task-configs after a change: %+v", r)
	}
	if r := export_copycat_dynamic_instance.Monitor(); !r.IsErr() || r.Err().Retriable() != "cannot read the file" {
		t.Fatalf("monitor error: %+v", r)
	}
	RaiseError("gave up")
	if len(TestContext.Errors) != 1 || TestContext.Errors[0] != "gave up" {
		t.Fatal(TestContext.Errors)
	}
	export_copycat_dynamic_instance.Stop()
	if !w.stopped {
		t.Fatal("not stopped")
	}
}
