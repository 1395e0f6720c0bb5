//! Bindings generated from `wit/transform@0.1.0` (its `deps/` hold
//! `copycat:connector@0.3.0`, whose `types`, `batch` and `logging` Rust
//! types are the 0.3.0 connector bindings' own).

wit_bindgen::generate!({
    path: "../../wit/transform@0.1.0",
    world: "copycat:transform/transform@0.1.0",
    with: {
        "copycat:connector/types@0.3.0": crate::__bindings::copycat::connector::types,
        "copycat:connector/batch@0.3.0": crate::__bindings_v0_3::source::copycat::connector::batch,
        "copycat:connector/logging@0.3.0": crate::__bindings_v0_3::source::copycat::connector::logging,
    },
    pub_export_macro: true,
    default_bindings_module: "copycat_sdk::transform::__bindings",
});
