//! `copycat:connector/offsets`: a source task reads its committed offsets.
//!
//! The host loads the connector's offsets from the offsets topic before the
//! task starts; the guest reads that snapshot.

use std::collections::HashMap;
use std::sync::Arc;

use wasmtime::component::Linker;

use super::view::Ctx;
use crate::bindings::offsets;
use crate::bindings::types::SourcePosition;
use crate::bindings::v0_2::offsets as v0_2;
use crate::bindings::v0_3::offsets as v0_3;

/// Committed offsets of one connector: source partition → offset.
pub type OffsetSnapshot = HashMap<String, String>;

/// Context of the offsets interface.
pub struct OffsetsCtx {
    snapshot: Arc<OffsetSnapshot>,
}

impl OffsetsCtx {
    pub(crate) fn new(snapshot: Arc<OffsetSnapshot>) -> Self {
        Self { snapshot }
    }
}

impl offsets::Host for OffsetsCtx {
    fn read(&mut self, partitions: Vec<String>) -> Vec<SourcePosition> {
        partitions
            .into_iter()
            .filter_map(|partition| {
                // A map is stored by its canonical text, whatever spacing
                // or key order the connector writes it with.
                let key = crate::connector::canonical_map(&partition);
                let offset = self.snapshot.get(key.as_deref().unwrap_or(&partition))?.clone();
                Some(SourcePosition { partition, offset })
            })
            .collect()
    }
}

impl v0_2::Host for OffsetsCtx {
    fn read(&mut self, partitions: Vec<String>) -> Vec<SourcePosition> {
        offsets::Host::read(self, partitions)
    }
}

impl v0_3::Host for OffsetsCtx {
    fn read(&mut self, partitions: Vec<String>) -> Vec<SourcePosition> {
        offsets::Host::read(self, partitions)
    }
}

/// Link every contract version's `offsets`.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut OffsetsCtx,
) -> wasmtime::Result<()> {
    offsets::add_to_linker::<T, Ctx<OffsetsCtx>>(linker, get)?;
    v0_2::add_to_linker::<T, Ctx<OffsetsCtx>>(linker, get)?;
    v0_3::add_to_linker::<T, Ctx<OffsetsCtx>>(linker, get)
}
