//! `copycat:errant/reporter`: a sink task reports records of the running
//! `put` it could not write (Kafka Connect's `ErrantRecordReporter`). The
//! interface only collects the reports, at most one per record of the
//! batch and each reason cut to [`REASON_MAX_BYTES`], so a guest cannot
//! make the host hold more than the batch's size in reports; the task acts
//! on them once `put` returns (dead letter queue, log, tolerance).

use wasmtime::component::Linker;

use super::view::Ctx;
use crate::bindings::errant::reporter::{self, ReportError};

/// The longest reason kept, in bytes.
pub const REASON_MAX_BYTES: usize = 4096;

/// What the connector's `errors.*` make of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reporting {
    /// No dead letter queue and no error log: no reporter.
    #[default]
    Unavailable,
    /// Reports are taken; the task goes on (`errors.tolerance=all`).
    Tolerated,
    /// Reports are taken; the task fails after `put` (`none`).
    Fails,
}

/// Context of the reporter interface.
#[derive(Debug, Default)]
pub struct ErrantCtx {
    reporting: Reporting,
    /// Records in the running `put`'s batch (`None`: no `put` running).
    batch: Option<u32>,
    /// Which of them were reported.
    seen: Vec<bool>,
    reports: Vec<(u32, String)>,
}

impl ErrantCtx {
    /// How reports are taken (the connector's `errors.*`).
    pub(crate) fn set_reporting(&mut self, reporting: Reporting) {
        self.reporting = reporting;
    }

    /// A `put` of `records` records starts.
    pub(crate) fn begin(&mut self, records: usize) {
        let n = u32::try_from(records).unwrap_or(u32::MAX);
        self.batch = Some(n);
        self.seen.clear();
        self.reports.clear();
    }

    /// The `put` ended: the records it reported (index, reason), in the
    /// order reported.
    pub(crate) fn end(&mut self) -> Vec<(u32, String)> {
        self.batch = None;
        self.seen.clear();
        std::mem::take(&mut self.reports)
    }
}

/// `reason` cut to at most `max` bytes, on a char boundary.
pub(super) fn cut(mut reason: String, max: usize) -> String {
    if reason.len() > max {
        let mut end = max;
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        reason.truncate(end);
    }
    reason
}

impl reporter::Host for ErrantCtx {
    fn report(&mut self, index: u32, reason: String) -> Result<(), ReportError> {
        if self.reporting == Reporting::Unavailable {
            return Err(ReportError::Unavailable);
        }
        let Some(n) = self.batch else {
            return Err(ReportError::NoSuchRecord("no put is running".to_owned()));
        };
        if index >= n {
            return Err(ReportError::NoSuchRecord(format!(
                "record {index} of a put batch of {n} records"
            )));
        }
        if self.seen.len() < n as usize {
            self.seen.resize(n as usize, false);
        }
        let i = index as usize;
        if !self.seen[i] {
            self.seen[i] = true;
            self.reports.push((index, cut(reason, REASON_MAX_BYTES)));
        }
        match self.reporting {
            Reporting::Fails => Err(ReportError::ToleranceExceeded),
            _ => Ok(()),
        }
    }
}

/// Link the reporter.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut ErrantCtx,
) -> wasmtime::Result<()> {
    reporter::add_to_linker::<T, Ctx<ErrantCtx>>(linker, get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reporter::Host as _;

    #[test]
    fn reports_are_bounded_by_the_batch_and_taken_once_per_record() {
        let mut c = ErrantCtx::default();
        assert!(matches!(c.report(0, "x".into()), Err(ReportError::Unavailable)));
        c.set_reporting(Reporting::Tolerated);
        assert!(matches!(c.report(0, "x".into()), Err(ReportError::NoSuchRecord(_))));
        c.begin(3);
        assert!(matches!(c.report(2, "first".into()), Ok(())));
        for _ in 0..1000 {
            assert!(matches!(c.report(2, "again".into()), Ok(())));
        }
        assert!(matches!(c.report(3, "x".into()), Err(ReportError::NoSuchRecord(m)) if m.contains("3 records")));
        assert!(matches!(c.report(0, "é".repeat(REASON_MAX_BYTES)), Ok(())));
        let reports = c.end();
        assert_eq!(reports.len(), 2);
        assert_eq!(reports[0], (2, "first".to_owned()));
        assert!(reports[1].1.len() <= REASON_MAX_BYTES);
        assert!(
            matches!(c.report(0, "x".into()), Err(ReportError::NoSuchRecord(_))),
            "after put"
        );
        c.set_reporting(Reporting::Fails);
        c.begin(1);
        assert!(matches!(c.report(0, "x".into()), Err(ReportError::ToleranceExceeded)));
        assert_eq!(c.end().len(), 1, "taken before the task fails");
    }
}
