// {{name}}: a sink connector. It appends each record's value and a newline
// to <directory>/<topic>-<partition>.txt: Put buffers, Flush appends and
// syncs, so the host commits the consumer offsets only for data on disk
// (at-least-once). The operator grants the directory with grants.fs.write.
//
// Build: ./build.sh (-> {{name}}.wasm); unit tests: ./build.sh test.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
)

func init() { sink.Export(Connector{}, Start) }

// main is required by Go but never called: the host calls the exports.
func main() {}

// Connector is the connector.
type Connector struct{}

func (Connector) Describe() copycat.PluginInfo {
	return copycat.PluginInfo{
		Name:        "{{name}}",
		Version:     "0.1.0",
		Description: "Appends record values to <directory>/<topic>-<partition>.txt",
		Config: []copycat.ConfigKey{
			{Name: "directory", Type: copycat.TypeString, Required: true,
				Doc: "Output directory; grant it with grants.fs.write"},
		},
	}
}

func (Connector) Validate(cfg copycat.Config) []copycat.Problem {
	r := copycat.NewReader(cfg)
	r.Required("directory")
	return r.Problems()
}

// TaskConfigs gives every task the same config: the consumer group spreads
// the topic partitions over the tasks.
func (Connector) TaskConfigs(cfg copycat.Config, maxTasks int) ([]copycat.Config, error) {
	configs := make([]copycat.Config, max(maxTasks, 1))
	for i := range configs {
		configs[i] = cfg
	}
	return configs, nil
}

// Task is a started {{name}} task.
type Task struct {
	dir     string
	buffers map[sink.TopicPartition][]byte // values not yet written
}

func Start(cfg copycat.Config) (sink.Task, error) {
	r := copycat.NewReader(cfg)
	dir := r.Required("directory")
	if err := r.Err(); err != nil {
		return nil, err // connector-error::config naming the key
	}
	return &Task{dir: dir, buffers: map[sink.TopicPartition][]byte{}}, nil
}

func (t *Task) Put(records []sink.Record) error {
	for _, rec := range records {
		tp := rec.TopicPartition()
		t.buffers[tp] = append(append(t.buffers[tp], rec.Value...), '\n')
	}
	return nil
}

// Flush appends and syncs each buffer; only then does the host commit the
// consumer offsets.
func (t *Task) Flush(map[sink.TopicPartition]int64) error {
	for tp, buf := range t.buffers {
		path := filepath.Join(t.dir, fmt.Sprintf("%s-%d.txt", tp.Topic, tp.Partition))
		if err := appendSync(path, buf); err != nil {
			if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
				return copycat.Configf("%v; grant %s with grants.fs.write", err, t.dir)
			}
			return copycat.Retriable(err) // the host calls Flush again
		}
		delete(t.buffers, tp)
	}
	return nil
}

func appendSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
