// file-sink: a sink connector that appends record values to one file per
// topic partition, <directory>/<topic>-<partition>.txt, and keeps its own
// offsets next to them (examples/SPEC.md).
//
// Put appends each value as one line to its partition's file (raw bytes as
// they are, typed values as compact JSON); a value starting with "errant:"
// is reported through the errant record reporter (the dead letter queue)
// instead, its offset still advancing. Flush syncs
// the file, then atomically replaces <topic>-<partition>.offset with
// "<next-offset> <file-length>" (written to .offset.tmp, synced, renamed).
// Open truncates the file back to the flushed length and resumes at the
// flushed offset, so the output is exact even when the consumer group's
// offsets are lost or reset.
//
// The directory is reached with the os package: the operator grants it with
// grants.fs.write, a WASI preopen under the same path.
package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
)

func init() { sink.Export(FileSink{}, Start) }

// main is required by Go but never called: the host calls the exports.
func main() {}

// FileSink is the connector.
type FileSink struct{}

func (FileSink) Describe() copycat.PluginInfo {
	return copycat.PluginInfo{
		Name:        "file-sink",
		Version:     "0.1.0",
		Description: "Appends record values to <directory>/<topic>-<partition>.txt, one line each (typed values as compact JSON)",
		Config: []copycat.ConfigKey{
			{Name: "directory", Type: copycat.TypeString, Required: true,
				Doc: "Output directory; grant it with grants.fs.write"},
		},
	}
}

func (FileSink) Validate(cfg copycat.Config) []copycat.Problem {
	r := copycat.NewReader(cfg)
	r.Required("directory")
	return r.Problems()
}

// TaskConfigs gives every task the same config: the consumer group spreads
// the topic partitions over the tasks.
func (FileSink) TaskConfigs(cfg copycat.Config, maxTasks int) ([]copycat.Config, error) {
	configs := make([]copycat.Config, max(maxTasks, 1))
	for i := range configs {
		configs[i] = cfg
	}
	return configs, nil
}

// partition is the state of one assigned topic partition.
type partition struct {
	name string   // "<topic>-<partition>"
	file *os.File // the .txt file, open for appending; nil until first written
	next int64    // the offset after the last record put
	buf  []byte   // values of the current Put
	// touched: has records in the current Put.
	touched bool
	// dirty: written since the last flush.
	dirty bool
}

// Task is a started file-sink task.
type Task struct {
	dir   string
	parts map[sink.TopicPartition]*partition
}

// Start checks the directory key and that the directory is usable.
func Start(cfg copycat.Config) (sink.Task, error) {
	r := copycat.NewReader(cfg)
	dir := r.Required("directory")
	if err := r.Err(); err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, copycat.Fatalf("directory %s: %v; grant it with grants.fs.write", dir, err)
	}
	return &Task{dir: dir, parts: map[sink.TopicPartition]*partition{}}, nil
}

func (t *Task) path(name, ext string) string { return filepath.Join(t.dir, name+ext) }

func (t *Task) part(tp sink.TopicPartition) *partition {
	p, ok := t.parts[tp]
	if !ok {
		p = &partition{name: fmt.Sprintf("%s-%d", tp.Topic, tp.Partition), next: -1}
		t.parts[tp] = p
	}
	return p
}

// fileError reports an I/O failure as connector-error::fatal (the error
// names the file; examples/SPEC.md), with a hint when the write was denied.
func fileError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return copycat.Fatalf("%w; grant the directory with grants.fs.write", err)
	}
	return copycat.Fatalf("%w", err)
}

// Open resumes each partition that has a state file: the .txt file is cut
// back to the flushed length and the host seeks to the flushed offset.
func (t *Task) Open(partitions []sink.TopicPartition) (map[sink.TopicPartition]int64, error) {
	resume := map[sink.TopicPartition]int64{}
	for _, tp := range partitions {
		t.release(tp) // a fresh start for a re-assigned partition
		p := t.part(tp)
		statePath := t.path(p.name, ".offset")
		state, err := os.ReadFile(statePath)
		if errors.Is(err, fs.ErrNotExist) {
			continue // never flushed: the group's committed offsets apply
		}
		if err != nil {
			return nil, fileError(err)
		}
		next, length, ok := parseState(string(state))
		if !ok {
			return nil, copycat.Fatalf("%s: malformed state %q, want \"<next-offset> <file-length>\"", statePath, state)
		}
		if err := truncate(t.path(p.name, ".txt"), length); err != nil {
			return nil, err
		}
		resume[tp] = next
	}
	return resume, nil
}

// parseState parses "<next-offset> <file-length>".
func parseState(s string) (next, length int64, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(s), " ")
	if !found {
		return 0, 0, false
	}
	next, err1 := strconv.ParseInt(a, 10, 64)
	length, err2 := strconv.ParseInt(b, 10, 64)
	return next, length, err1 == nil && err2 == nil && next >= 0 && length >= 0
}

// truncate cuts path back to length bytes (the lines written after the last
// flush go). A file shorter than its flushed length has lost data.
func truncate(path string, length int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fileError(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fileError(err)
	}
	if info.Size() < length {
		return copycat.Fatalf("%s: %d bytes, shorter than the %d bytes flushed before", path, info.Size(), length)
	}
	if info.Size() > length {
		if err := f.Truncate(length); err != nil {
			return fileError(err)
		}
		if err := f.Sync(); err != nil {
			return fileError(err)
		}
	}
	return nil
}

// errantPrefix marks a record this sink cannot write (examples/SPEC.md):
// it goes to the errant record reporter instead of the file.
const errantPrefix = "errant:"

// Put appends one line per record to its partition's file: one write per
// partition and batch. The line is empty for a null value, the bytes of a
// raw value, and the compact JSON of a typed one. A record whose value
// (raw bytes, or a typed string) starts with "errant:" is not written but
// reported errant (the rest of the value is the reason); its offset still
// advances.
func (t *Task) Put(batch *sink.Batch) error {
	var touched []*partition
	defer func() { // on an error too: a failed Put leaves nothing buffered
		for _, p := range touched {
			p.buf = p.buf[:0]
			p.touched = false
		}
	}()
	for i := range batch.Len() {
		rec, err := batch.Record(i)
		if err != nil {
			return err
		}
		p := t.part(rec.TopicPartition())
		if !p.touched {
			p.touched = true
			touched = append(touched, p)
		}
		if reason, ok := errant(rec.Value); ok {
			if err := sink.ReportErrant(i, reason); err != nil {
				return copycat.Fatalf("the record at topic %s partition %d offset %d could not be reported errant: %w",
					rec.Topic, rec.Partition, rec.Offset, err)
			}
		} else {
			if p.buf, err = appendLine(p.buf, rec.Value); err != nil {
				return copycat.Fatalf("the record at topic %s partition %d offset %d: %w", rec.Topic, rec.Partition, rec.Offset, err)
			}
			p.buf = append(p.buf, '\n')
		}
		p.next = rec.Offset + 1 // a reported record is handled too
	}
	for _, p := range touched {
		if p.file == nil {
			f, err := os.OpenFile(t.path(p.name, ".txt"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				return fileError(err)
			}
			p.file = f
		}
		if len(p.buf) > 0 {
			if _, err := p.file.Write(p.buf); err != nil {
				return fileError(err)
			}
		}
		p.dirty = true
	}
	return nil
}

// errant returns the reason of a value marked "errant:" (raw bytes or a
// typed string).
func errant(v copycat.Payload) (string, bool) {
	if v.IsRaw() {
		reason, ok := bytes.CutPrefix(v.Bytes(), []byte(errantPrefix))
		return string(reason), ok
	}
	if s := v.Schema(); (s != nil && s.Type == copycat.SchemaString) || v.IsSchemaless() {
		if val, err := v.Value(); err == nil {
			if str, isString := val.(string); isString {
				return strings.CutPrefix(str, errantPrefix)
			}
		}
	}
	return "", false
}

// appendLine appends a record value's line (without the newline).
func appendLine(buf []byte, v copycat.Payload) ([]byte, error) {
	if v.IsNull() {
		return buf, nil
	}
	if v.IsRaw() {
		return append(buf, v.Bytes()...), nil
	}
	val, err := v.Value()
	if err != nil {
		return buf, err
	}
	return appendJSON(buf, val), nil
}

// appendJSON appends v (a value as the SDK decodes it) as compact JSON: a
// struct as an object with its fields in schema order, a map as an object
// (a non-string key as its compact JSON text), bytes and Decimals as
// standard base64, logical types as their underlying numbers.
func appendJSON(buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, x)
	case int8:
		return strconv.AppendInt(buf, int64(x), 10)
	case int16:
		return strconv.AppendInt(buf, int64(x), 10)
	case int32:
		return strconv.AppendInt(buf, int64(x), 10)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float32:
		return strconv.AppendFloat(buf, float64(x), 'g', -1, 32)
	case float64:
		return strconv.AppendFloat(buf, x, 'g', -1, 64)
	case string:
		return appendString(buf, x)
	case []byte:
		return appendString(buf, base64.StdEncoding.EncodeToString(x))
	case copycat.Decimal:
		return appendString(buf, base64.StdEncoding.EncodeToString(x.UnscaledBytes()))
	case []any:
		buf = append(buf, '[')
		for i, item := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSON(buf, item)
		}
		return append(buf, ']')
	case []copycat.MapEntry:
		buf = append(buf, '{')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			if k, ok := e.Key.(string); ok {
				buf = appendString(buf, k)
			} else {
				buf = appendString(buf, string(appendJSON(nil, e.Key)))
			}
			buf = appendJSON(append(buf, ':'), e.Value)
		}
		return append(buf, '}')
	case *copycat.Struct:
		buf = append(buf, '{')
		for i, f := range x.Schema.Fields {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSON(append(appendString(buf, f.Name), ':'), x.Values[i])
		}
		return append(buf, '}')
	}
	return appendString(buf, fmt.Sprint(v)) // no other type is decoded
}

// appendString appends s as a JSON string: '"', '\\' and control
// characters escaped, other text as it is (UTF-8).
func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c == '\n':
			buf = append(buf, '\\', 'n')
		case c == '\r':
			buf = append(buf, '\\', 'r')
		case c == '\t':
			buf = append(buf, '\\', 't')
		case c == '\b':
			buf = append(buf, '\\', 'b')
		case c == '\f':
			buf = append(buf, '\\', 'f')
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// Flush syncs every partition file written since the last flush, then
// atomically records "<next-offset> <file-length>" in its state file.
func (t *Task) Flush(map[sink.TopicPartition]int64) error {
	for _, p := range t.parts {
		if !p.dirty {
			continue
		}
		if err := p.file.Sync(); err != nil {
			return fileError(err)
		}
		info, err := p.file.Stat()
		if err != nil {
			return fileError(err)
		}
		state := fmt.Sprintf("%d %d", p.next, info.Size())
		if err := writeAtomically(t.path(p.name, ".offset"), state); err != nil {
			return err
		}
		p.dirty = false
	}
	return nil
}

// writeAtomically writes path.tmp, syncs it and renames it over path.
func writeAtomically(path, content string) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fileError(err)
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileError(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fileError(err)
	}
	return nil
}

// release closes a partition's file and forgets its state.
func (t *Task) release(tp sink.TopicPartition) {
	if p, ok := t.parts[tp]; ok {
		if p.file != nil {
			p.file.Close()
		}
		delete(t.parts, tp)
	}
}

// Close releases the revoked partitions (the host flushed them already).
func (t *Task) Close(partitions []sink.TopicPartition) error {
	for _, tp := range partitions {
		t.release(tp)
	}
	return nil
}

// Stop releases every file.
func (t *Task) Stop() {
	for tp := range t.parts {
		t.release(tp)
	}
}
