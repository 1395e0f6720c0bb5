//! Tools for connector authors: `copycat inspect` (what a component is),
//! `copycat dev run` (run a component in the sandbox without Kafka) and
//! `copycat new` (a working project copied from an example, in any supported
//! language).

pub mod dev;
mod dev_transform;
pub mod inspect;
pub mod scaffold;
