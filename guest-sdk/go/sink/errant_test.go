package sink

import (
	"errors"
	"fmt"
	"testing"
)

func TestReportErrant(t *testing.T) {
	t.Cleanup(func() { TestErrant.Reported, TestErrant.Err = nil, nil })
	TestErrant.Reported = nil
	if err := ReportErrant(2, "bad value"); err != nil {
		t.Fatal(err)
	}
	if got := TestErrant.Reported; len(got) != 1 || got[0] != (ErrantReport{Index: 2, Reason: "bad value"}) {
		t.Fatalf("reported %+v", got)
	}

	// An index the WIT's u32 cannot hold is no record, without a host call.
	var nsr *NoSuchRecordError
	if err := ReportErrant(-1, "x"); !errors.As(err, &nsr) || nsr.Message != "record -1" ||
		err.Error() != "no such record: record -1" {
		t.Fatalf("index -1: %v", err)
	}
	if len(TestErrant.Reported) != 1 {
		t.Fatalf("reported %+v", TestErrant.Reported)
	}

	// The refusals a task sees, wrapped or not.
	TestErrant.Err = ErrUnavailable
	err := fmt.Errorf("record 0: %w", ReportErrant(0, "x"))
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrToleranceExceeded) {
		t.Fatalf("unavailable: %v", err)
	}
	TestErrant.Err = &NoSuchRecordError{Message: "record 3 of a put batch of 3 records"}
	if err := ReportErrant(3, "x"); !errors.As(err, &nsr) || nsr.Message != "record 3 of a put batch of 3 records" {
		t.Fatalf("no such record: %v", err)
	}
	for err, want := range map[error]string{
		ErrUnavailable:       "no errant record reporter: the connector sets neither errors.deadletterqueue.topic.name nor errors.log.enable",
		ErrToleranceExceeded: "errors.tolerance=none: the task fails after this put",
	} {
		if err.Error() != want {
			t.Errorf("%q, want %q", err, want)
		}
	}
}
