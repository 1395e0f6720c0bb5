// counter-source: counts upwards on `streams` source partitions
// ({"stream":"stream-0"} ... {"stream":"stream-<n-1>"}), `count` records
// each (0: forever), as raw bytes or typed records (`typed`). Stream j's
// records carry the source offset {"seq":<seq>} and the key
// "stream-<j>:<seq>"; a restarted task resumes every stream after its last
// committed offset. With `streams.file` the connector is dynamic: its
// instance watches the file and asks for new task configs when the number
// in it changes. Behaviour: examples/SPEC.md in the Copycat repository.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/dynamic"
	"github.com/copycat-connect/copycat/guest-sdk/go/source"
)

func init() {
	source.Export(Counter{}, Start)
	dynamic.Export(&Instance{})
}

// main is required by Go but never called: the host calls the exports.
func main() {}

// assignedKey is the task-config key listing the streams of one task.
const assignedKey = "counter.streams.assigned"

// Count is a typed record's value (typed=true): a struct of schema
// copycat.examples.Count, derived from the Go type by the SDK.
type Count struct {
	Stream string  `connect:"stream"`
	Seq    int64   `connect:"seq"`
	Even   bool    `connect:"even"`
	Note   *string `connect:"note"` // a pointer: an optional field
}

// SchemaName names Count's schema.
func (Count) SchemaName() string { return "copycat.examples.Count" }

// Counter is the connector.
type Counter struct{}

func (Counter) Describe() copycat.PluginInfo {
	return copycat.PluginInfo{
		Name:        "counter-source",
		Version:     "0.1.0",
		Description: "Counts upwards on N streams into a Kafka topic",
		Config: []copycat.ConfigKey{
			{Name: "topic", Type: copycat.TypeString, Required: true, Doc: "Kafka topic"},
			{Name: "streams", Type: copycat.TypeInt, Default: "1",
				Doc: `Streams = source partitions {"stream":"stream-0"} ... stream-<n-1>`},
			{Name: "count", Type: copycat.TypeLong, Default: "100", Doc: "Records per stream; 0 = unbounded"},
			{Name: "typed", Type: copycat.TypeBoolean, Default: "false",
				Doc: "Typed records (a struct value with a schema) instead of raw bytes"},
			{Name: "value.size", Type: copycat.TypeInt, Default: "0",
				Doc: "Raw bytes only: pad each value with '.' up to this many bytes"},
			{Name: "streams.file", Type: copycat.TypeString, EmptyDefault: true, Importance: copycat.Low,
				Doc: "A file (granted with grants.fs.read) holding the number of streams; when set, the connector watches it"},
		},
	}
}

// settings are the connector's keys, parsed.
type settings struct {
	topic     string
	streams   int
	count     int64
	typed     bool
	valueSize int
}

// parse reads the keys, recording one problem per bad key in r, in the
// order validate reports them.
func parse(r *copycat.Reader) settings {
	var s settings
	s.streams = r.Int("streams", 1, copycat.AtLeast(1))
	s.count = r.Long("count", 100, copycat.AtLeast(0))
	s.valueSize = r.Int("value.size", 0, copycat.AtLeast(0))
	s.typed = r.Bool("typed", false)
	s.topic = r.Required("topic")
	return s
}

func (Counter) Validate(cfg copycat.Config) []copycat.Problem {
	r := copycat.NewReader(cfg)
	parse(r)
	return r.Problems()
}

func (Counter) TaskConfigs(cfg copycat.Config, maxTasks int) ([]copycat.Config, error) {
	r := copycat.NewReader(cfg)
	s := parse(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return split(cfg, s.streams, maxTasks), nil
}

// split spreads streams over k = min(streams, maxTasks) task configs:
// config i gets the streams j with j % k == i.
func split(cfg copycat.Config, streams, maxTasks int) []copycat.Config {
	k := max(min(streams, maxTasks), 1)
	configs := make([]copycat.Config, k)
	for i := range k {
		var assigned []string
		for j := i; j < streams; j += k {
			assigned = append(assigned, strconv.Itoa(j))
		}
		configs[i] = cfg.With(assignedKey, strings.Join(assigned, ","))
	}
	return configs
}

// Instance is the running connector instance (dynamic): it watches
// streams.file, if set.
type Instance struct {
	cfg     copycat.Config
	file    string
	streams int
}

// streamsIn reads the number of streams in file.
func streamsIn(file string) (int, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return 0, fmt.Errorf("cannot read %s: %w", file, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(text)))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s holds %q, not a number of streams >= 1", file, strings.TrimSpace(string(text)))
	}
	return n, nil
}

func (in *Instance) Start(cfg copycat.Config) (bool, error) {
	r := copycat.NewReader(cfg)
	s := parse(r)
	if err := r.Err(); err != nil {
		return false, err
	}
	in.cfg, in.streams = cfg, s.streams
	in.file = r.String("streams.file", "")
	if in.file == "" {
		return false, nil // nothing to watch
	}
	n, err := streamsIn(in.file)
	if err != nil {
		return false, copycat.Configf("config 'streams.file': %v", err)
	}
	in.streams = n
	return true, nil
}

func (in *Instance) TaskConfigs(maxTasks int) ([]copycat.Config, error) {
	return split(in.cfg.With("streams", strconv.Itoa(in.streams)), in.streams, maxTasks), nil
}

func (in *Instance) Monitor() error {
	if in.file == "" {
		return nil
	}
	n, err := streamsIn(in.file)
	if err != nil {
		return copycat.Retriable(err)
	}
	if n != in.streams {
		in.streams = n
		dynamic.RequestTaskReconfiguration()
	}
	return nil
}

func (in *Instance) Stop() {}

// stream is one stream of a task.
type stream struct {
	index     int
	name      string // "stream-<j>"
	partition string // {"stream":"stream-<j>"}
	next      int64  // the next sequence number
	advanced  bool   // has records in the batch being filled
	// The raw record of next, kept from one record to the next: its key
	// "stream-<j>:<next>" and its value "<next>" padded with '.' to
	// value.size. Moving on increments the decimal digits of both in
	// place, so a record costs no formatting.
	key, value []byte
	digits     int // of next
}

// render writes the raw record of s.next into s.key and s.value.
func (s *stream) render(valueSize int) {
	s.key = strconv.AppendInt(append(append(s.key[:0], s.name...), ':'), s.next, 10)
	s.value = strconv.AppendInt(s.value[:0], s.next, 10)
	s.digits = len(s.value)
	for len(s.value) < valueSize {
		s.value = append(s.value, '.')
	}
}

// step moves s to its next sequence number.
func (s *stream) step(valueSize int) {
	s.next++
	key := s.key[len(s.key)-s.digits:]
	for i := s.digits - 1; i >= 0; i-- {
		if key[i] != '9' {
			key[i]++
			s.value[i]++
			return
		}
		key[i], s.value[i] = '0', '0'
	}
	s.render(valueSize) // one digit more
}

// Task is a started counter-source task.
type Task struct {
	streams   []*stream
	count     int64 // records per stream; 0 = unbounded
	typed     bool
	valueSize int
	cursor    int   // the stream the next record comes from
	value     Count // the value of a typed record being added
}

// Start parses the config and resumes each assigned stream after its
// committed offset.
func Start(cfg copycat.Config) (source.Task, error) {
	r := copycat.NewReader(cfg)
	s := parse(r)
	var indices []int
	if _, ok := cfg[assignedKey]; ok {
		for _, item := range r.List(assignedKey) {
			j, err := strconv.Atoi(item)
			if err != nil || j < 0 {
				r.Problem(assignedKey, "config '%s' must list stream indices, got '%s'", assignedKey, cfg[assignedKey])
				break
			}
			indices = append(indices, j)
		}
	} else {
		for j := range s.streams {
			indices = append(indices, j)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}

	t := &Task{count: s.count, typed: s.typed, valueSize: s.valueSize}
	partitions := make([]string, len(indices))
	for i, j := range indices {
		name := "stream-" + strconv.Itoa(j)
		partitions[i] = source.JSON("stream", name)
		t.streams = append(t.streams, &stream{index: j, name: name, partition: partitions[i]})
	}
	committed := source.ReadOffsets(partitions...)
	for _, st := range t.streams {
		off, ok := committed[st.partition]
		if !ok {
			continue
		}
		var o struct{ Seq *int64 }
		if err := json.Unmarshal([]byte(off), &o); err != nil || o.Seq == nil || *o.Seq < 0 {
			return nil, copycat.Fatalf("%s: committed offset %s has no integer 'seq'", st.name, off)
		}
		st.next = *o.Seq + 1
	}
	for _, st := range t.streams {
		st.render(t.valueSize)
	}
	copycat.Infof("counter-source task starting: %d stream(s), count %d, typed %t", len(t.streams), t.count, t.typed)
	return t, nil
}

// Poll fills the batch round-robin over the streams that have not reached
// count; it stays empty once all are done.
func (t *Task) Poll(batch *source.Batch) error {
	for idle := 0; !batch.Full() && idle < len(t.streams); {
		s := t.streams[t.cursor]
		t.cursor = (t.cursor + 1) % len(t.streams)
		if t.count > 0 && s.next >= t.count {
			idle++
			continue
		}
		idle = 0
		s.advanced = true
		if !t.typed {
			batch.Append(s.key, s.value) // copied into the batch
			s.step(t.valueSize)
			continue
		}
		seq := s.next
		// Add encodes the value at once: one Count serves every record.
		count := &t.value
		*count = Count{Stream: s.name, Seq: seq, Even: seq%2 == 0}
		if count.Even {
			note := "n" + strconv.FormatInt(seq, 10)
			count.Note = &note
		}
		err := batch.Add(&source.Record{
			Key:   copycat.Typed(copycat.StringSchema, string(s.key)),
			Value: copycat.Of(count),
		})
		if err != nil {
			return err
		}
		s.step(t.valueSize)
	}
	for _, s := range t.streams {
		if s.advanced {
			s.advanced = false
			batch.Advance(s.partition, `{"seq":`+strconv.FormatInt(s.next-1, 10)+`}`)
		}
	}
	return nil
}
