// counter-source: a source connector that counts upwards on N streams
// (examples/SPEC.md). Stream j is the source partition "stream-<j>"; its
// records carry the sequence number seq (from 0) as source offset, the key
// "stream-<j>:<seq>" and the value "<seq>". A restarted task resumes every
// stream after its last committed offset.
package main

import (
	"strconv"
	"strings"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/source"
)

func init() { source.Export(Counter{}, Start) }

// main is required by Go but never called: the host calls the exports.
func main() {}

// assignedKey is the task-config key listing the streams of one task.
const assignedKey = "counter.streams.assigned"

// Counter is the connector.
type Counter struct{}

func (Counter) Describe() copycat.PluginInfo {
	return copycat.PluginInfo{
		Name:        "counter-source",
		Version:     "0.1.0",
		Description: "Counts upwards on N streams into a Kafka topic",
		Config: []copycat.ConfigKey{
			{Name: "topic", Type: copycat.TypeString, Required: true, Doc: "Kafka topic"},
			{Name: "streams", Type: copycat.TypeInt, Default: "1", Importance: copycat.High,
				Doc: "Streams = source partitions stream-0 ... stream-<n-1>"},
			{Name: "count", Type: copycat.TypeLong, Default: "100", Importance: copycat.High,
				Doc: "Records per stream; 0 = unbounded"},
		},
	}
}

// settings are the connector's keys, parsed.
type settings struct {
	topic   string
	streams int
	count   int64
}

// parse reads the keys, recording one problem per bad key in r.
func parse(r *copycat.Reader) settings {
	return settings{
		topic:   r.Required("topic"),
		streams: r.Int("streams", 1, copycat.AtLeast(1)),
		count:   r.Long("count", 100, copycat.AtLeast(0)),
	}
}

func (Counter) Validate(cfg copycat.Config) []copycat.Problem {
	r := copycat.NewReader(cfg)
	parse(r)
	return r.Problems()
}

// TaskConfigs spreads the streams over k = min(streams, maxTasks) tasks:
// task i gets the streams j with j % k == i.
func (Counter) TaskConfigs(cfg copycat.Config, maxTasks int) ([]copycat.Config, error) {
	r := copycat.NewReader(cfg)
	s := parse(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	k := max(min(s.streams, maxTasks), 1)
	configs := make([]copycat.Config, k)
	for i := range k {
		var assigned []string
		for j := i; j < s.streams; j += k {
			assigned = append(assigned, strconv.Itoa(j))
		}
		configs[i] = cfg.With(assignedKey, strings.Join(assigned, ","))
	}
	return configs, nil
}

// stream is one stream of a task.
type stream struct {
	partition string // "stream-<j>"
	next      int64  // the next sequence number
}

// Task is a started counter-source task.
type Task struct {
	count   int64 // records per stream; 0 = unbounded
	streams []*stream
	cursor  int // index of the stream that emits next
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

	t := &Task{count: s.count}
	partitions := make([]string, len(indices))
	for i, j := range indices {
		partitions[i] = "stream-" + strconv.Itoa(j)
	}
	committed := source.ReadOffsets(partitions...)
	for _, p := range partitions {
		st := &stream{partition: p}
		if off, ok := committed[p]; ok {
			n, err := strconv.ParseInt(off, 10, 64)
			if err != nil {
				return nil, copycat.Fatalf("committed offset of %s is not a number: %q", p, off)
			}
			st.next = n + 1
		}
		t.streams = append(t.streams, st)
	}
	copycat.Infof("counter-source task starting: %d stream(s), count %d", len(t.streams), t.count)
	return t, nil
}

func (t *Task) done(s *stream) bool { return t.count > 0 && s.next >= t.count }

// Poll returns up to maxRecords records, round-robin over the streams that
// have not reached count; an empty batch once all are done.
func (t *Task) Poll(maxRecords int) ([]source.Record, error) {
	var records []source.Record
	for len(records) < maxRecords {
		s := t.nextStream()
		if s == nil {
			break // every stream is done
		}
		seq := strconv.FormatInt(s.next, 10)
		records = append(records, source.Record{
			SourcePartition: s.partition,
			SourceOffset:    seq,
			Key:             []byte(s.partition + ":" + seq),
			Value:           []byte(seq),
		})
		s.next++
	}
	return records, nil
}

// nextStream returns the next stream in round-robin order that is not
// done, advancing the cursor past it, or nil.
func (t *Task) nextStream() *stream {
	for range t.streams {
		s := t.streams[t.cursor]
		t.cursor = (t.cursor + 1) % len(t.streams)
		if !t.done(s) {
			return s
		}
	}
	return nil
}
