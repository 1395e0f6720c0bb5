//! Progress on stderr while a measurement runs. Bars and spinners are
//! cleared when done, so stdout holds only the tables and stderr only the
//! per-run lines.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar of `len` steps, labelled `prefix`, drawn on stderr.
pub fn bar(prefix: &str, len: u64) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{prefix:>20} [{elapsed_precise}] [{bar:32}] {pos:>9}/{len:9} {per_sec:>14} {msg}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_prefix(prefix.to_owned());
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}

/// A spinner showing `msg`, drawn on stderr.
pub fn spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}
