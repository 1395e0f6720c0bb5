package sink

import (
	"errors"
	"fmt"
	"math"
)

// Errant records (the WIT `copycat:errant/reporter@0.1.0`, Kafka Connect's
// ErrantRecordReporter). From Put, a task reports a record of the batch it
// cannot write with [ReportErrant]: the host logs it, sends it as it was
// consumed to the connector's dead letter queue
// (errors.deadletterqueue.topic.name) and, with errors.tolerance=all, the
// task goes on. The record counts as handled: its offset is committed with
// the batch's.
//
// Only sinks have the reporter: it lives in package sink, and a component
// that never calls ReportErrant does not import it.

var (
	// ErrUnavailable: the connector sets neither
	// errors.deadletterqueue.topic.name nor errors.log.enable, so there is
	// no reporter (Kafka Connect's errantRecordReporter() is null then).
	// Handle the record yourself: fail Put, or skip it knowingly.
	ErrUnavailable = errors.New("no errant record reporter: the connector sets neither errors.deadletterqueue.topic.name nor errors.log.enable")
	// ErrToleranceExceeded: errors.tolerance=none. The record was logged and
	// queued, and the task fails once this Put returns.
	ErrToleranceExceeded = errors.New("errors.tolerance=none: the task fails after this put")
)

// NoSuchRecordError: there is no record at that index in the batch of the
// running Put (or no Put is running). Message says which.
type NoSuchRecordError struct{ Message string }

func (e *NoSuchRecordError) Error() string { return "no such record: " + e.Message }

// ReportErrant reports record index (from 0, in the slice the running Put
// received) as errant because of reason (what went wrong; the host keeps
// its first 4 KiB). Reporting a record again in the same Put changes
// nothing. It returns nil, [ErrUnavailable], [ErrToleranceExceeded] or a
// [*NoSuchRecordError]; test them with errors.Is and errors.As.
//
//	for i, rec := range records {
//		if err := write(rec); err != nil {
//			if rerr := sink.ReportErrant(i, err.Error()); rerr != nil {
//				return fmt.Errorf("%v (%w)", err, rerr) // no dead letter queue: fail
//			}
//		}
//	}
//
// Natively (go test) it records the call in [TestErrant].
func ReportErrant(index int, reason string) error {
	if index < 0 || index > math.MaxUint32 {
		return &NoSuchRecordError{Message: fmt.Sprintf("record %d", index)}
	}
	return reportErrant(uint32(index), reason)
}
