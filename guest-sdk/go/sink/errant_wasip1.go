//go:build wasip1

package sink

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_errant_reporter"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

// reportErrant calls the `copycat:errant/reporter@0.1.0` import; only a
// component that calls ReportErrant imports it (componentize.sh embeds the
// interface into the sink world).
func reportErrant(index uint32, reason string) error {
	r := copycat_errant_reporter.Report(index, reason)
	if r.IsOk() {
		return nil
	}
	e := r.Err()
	switch e.Tag() {
	case copycat_errant_reporter.ReportError_Unavailable:
		return ErrUnavailable
	case copycat_errant_reporter.ReportError_ToleranceExceeded:
		return ErrToleranceExceeded
	default:
		// Copied; the host's memory is released when Put returns (the
		// batch Put reads is in the same arena).
		return &NoSuchRecordError{Message: glue.String(e.NoSuchRecord())}
	}
}
