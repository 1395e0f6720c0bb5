//! Imports used through the traits rather than free functions.

use std::collections::HashMap;

/// `copycat:connector/offsets.read`, behind `SourceTask::read_offsets`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn read_offsets<P: AsRef<str>>(partitions: &[P]) -> HashMap<String, String> {
    use crate::__bindings::source::copycat::connector::offsets;

    let partitions: Vec<String> = partitions.iter().map(|p| p.as_ref().to_string()).collect();
    offsets::read(&partitions)
        .into_iter()
        .map(|p| (p.partition, p.offset))
        .collect()
}

/// Off WebAssembly (unit tests) nothing was ever committed.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn read_offsets<P: AsRef<str>>(partitions: &[P]) -> HashMap<String, String> {
    let _ = partitions;
    HashMap::new()
}

/// `copycat:connector/transactions.commit` / `.abort`, behind
/// `SourceTask::commit_transaction` / `abort_transaction`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn transaction(commit: bool) {
    use crate::__bindings::source::copycat::connector::transactions;

    if commit {
        transactions::commit();
    } else {
        transactions::abort();
    }
}

/// Off WebAssembly (unit tests) there is no transaction to end.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn transaction(commit: bool) {
    let _ = commit;
}
