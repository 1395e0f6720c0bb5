package source

import (
	"encoding/json"
)

// ReadOffsets returns the last committed offset (compact JSON) of each of
// partitions (source partitions, compact JSON objects as given to
// [Batch.Advance]) that has one, keyed by the partition as asked;
// partitions never committed are absent. Call it in start and resume
// *after* each returned offset. Natively (go test) it reads
// [TestOffsets].
func ReadOffsets(partitions ...string) map[string]string {
	out := map[string]string{}
	if len(partitions) == 0 {
		return out
	}
	got := readOffsets(partitions)
	var canon map[string]string // canonical JSON of each partition asked -> as asked
	for p, o := range got {
		if _, asked := indexOf(partitions, p); asked {
			out[p] = o
			continue
		}
		// The host may write an object differently (spacing, key order).
		if canon == nil {
			canon = make(map[string]string, len(partitions))
			for _, q := range partitions {
				canon[canonical(q)] = q
			}
		}
		if q, ok := canon[canonical(p)]; ok {
			out[q] = o
		}
	}
	return out
}

func indexOf(list []string, s string) (int, bool) {
	for i, x := range list {
		if x == s {
			return i, true
		}
	}
	return -1, false
}

// canonical re-marshals a JSON object with sorted keys (encoding/json's
// map order); text that is not JSON stays as it is.
func canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// CommitTransaction asks the host to commit the open transaction right
// after the batch the current Poll returns: its records and their offsets
// become visible together. Only exactly-once connectors running with
// transaction.boundary=connector use it; otherwise the host ignores it.
func CommitTransaction() { commitTransaction() }

// AbortTransaction asks the host to abort the open transaction, including
// the batch the current Poll returns. See [CommitTransaction].
func AbortTransaction() { abortTransaction() }
