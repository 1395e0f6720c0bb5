//go:build !wasip1

package source

import (
	"time"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/batch"
	"github.com/copycat-connect/copycat/guest-sdk/go/sink"
)

// ReadBack returns a batch's records as a sink reads them after the host
// wrote them (for tests of a source natively; it does not exist in the
// component): typed payloads decoded through the batch's schema table. A
// record for the configured topic has the Topic "", one the partitioner
// places has Partition -1.
func ReadBack(b *Batch) ([]sink.Record, error) {
	schemas, err := copycat.ReadSchemas(b.b.Schemas.Nodes())
	if err != nil {
		return nil, err
	}
	v := batch.View{Data: b.b.Data, KeyLengths: b.b.KeyLengths, ValueLengths: b.b.ValueLengths,
		HeaderCounts: b.b.HeaderCounts, HeaderKeyLengths: b.b.HeaderKeyLengths, HeaderValueLengths: b.b.HeaderValueLengths,
		Schemas: schemas, KeySchemas: b.b.KeySchemas, ValueSchemas: b.b.ValueSchemas, HeaderSchemas: b.b.HeaderSchemas}
	if err := v.Init(); err != nil {
		return nil, err
	}
	out := make([]sink.Record, v.Len())
	for i := range out {
		r := &out[i]
		r.Partition = -1
		if len(b.topicIdx) > 0 && b.topicIdx[i] >= 0 {
			r.Topic = b.topics[b.topicIdx[i]]
		}
		if len(b.partitions) > 0 {
			r.Partition = b.partitions[i]
		}
		if len(b.timestamps) > 0 && b.timestamps[i] >= 0 {
			r.Timestamp = time.UnixMilli(b.timestamps[i])
		}
		if r.Key, err = v.Key(i); err != nil {
			return nil, err
		}
		if r.Value, err = v.Value(i); err != nil {
			return nil, err
		}
		if r.Headers, err = v.Headers(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Positions returns the source offsets a batch advances, by source
// partition (for tests, natively).
func Positions(b *Batch) map[string]string {
	out := map[string]string{}
	for _, p := range b.positions {
		out[p.Partition] = p.Offset
	}
	return out
}
