//go:build !wasip1

package sink

// ErrantReport is one [ReportErrant] call made in a native build.
type ErrantReport struct {
	Index  int
	Reason string
}

// TestErrant plays the host's errant record reporter in native builds (go
// test): [ReportErrant] appends its call to Reported and returns Err (nil:
// the report was taken; set it to [ErrUnavailable] and the like to test how
// a task handles a refusal). It does not exist in the component.
var TestErrant struct {
	Reported []ErrantReport
	Err      error
}

func reportErrant(index uint32, reason string) error {
	TestErrant.Reported = append(TestErrant.Reported, ErrantReport{Index: int(index), Reason: reason})
	return TestErrant.Err
}
