//! Bindings generated from `wit/dynamic@0.1.0` (its `deps/` hold
//! `copycat:connector@0.3.0`, whose `types` Rust types are the connector
//! bindings' own).

wit_bindgen::generate!({
    path: "../../wit/dynamic@0.1.0",
    world: "copycat:dynamic/dynamic@0.1.0",
    with: {
        "copycat:connector/types@0.3.0": crate::__bindings::copycat::connector::types,
    },
    pub_export_macro: true,
    default_bindings_module: "copycat_sdk::__bindings_dynamic",
});
