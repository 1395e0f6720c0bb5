//! Bindings generated from `wit/connector@0.3.0`, sliced as 0.2.0's are
//! (see `crate::__bindings`): `connector-part-v0-3`, `source-part-v0-3`
//! and `sink-part-v0-3`, named apart from 0.2.0's worlds because
//! wit-bindgen's export macros (`__export_<world>_impl`) live at the crate
//! root. The `types` interface of 0.3.0 is 0.2.0's unchanged (partitions
//! and offsets are still strings, now holding JSON), so its Rust types are
//! 0.2.0's, as in the host; the component still imports and exports the
//! 0.3.0 interfaces.

wit_bindgen::generate!({
    path: "../../wit/connector@0.3.0",
    inline: r#"
        package copycat:sdk;

        world connector-part-v0-3 {
            export copycat:connector/connector@0.3.0;
        }
    "#,
    world: "copycat:sdk/connector-part-v0-3",
    with: {
        "copycat:connector/types@0.3.0": crate::__bindings::copycat::connector::types,
    },
    pub_export_macro: true,
    default_bindings_module: "copycat_sdk::__bindings_v0_3",
});

pub mod source {
    wit_bindgen::generate!({
        path: "../../wit/connector@0.3.0",
        inline: r#"
            package copycat:sdk;

            world source-part-v0-3 {
                import copycat:connector/logging@0.3.0;
                import copycat:connector/clock@0.3.0;
                import copycat:connector/offsets@0.3.0;
                import copycat:connector/transactions@0.3.0;
                export copycat:connector/source-task@0.3.0;
            }
        "#,
        world: "copycat:sdk/source-part-v0-3",
        with: {
            "copycat:connector/types@0.3.0": crate::__bindings::copycat::connector::types,
        },
        generate_all,
        pub_export_macro: true,
        default_bindings_module: "copycat_sdk::__bindings_v0_3::source",
    });
}

pub mod sink {
    wit_bindgen::generate!({
        path: "../../wit/connector@0.3.0",
        inline: r#"
            package copycat:sdk;

            world sink-part-v0-3 {
                import copycat:connector/logging@0.3.0;
                import copycat:connector/clock@0.3.0;
                export copycat:connector/sink-task@0.3.0;
            }
        "#,
        world: "copycat:sdk/sink-part-v0-3",
        with: {
            "copycat:connector/types@0.3.0": crate::__bindings::copycat::connector::types,
            "copycat:connector/batch@0.3.0": crate::__bindings_v0_3::source::copycat::connector::batch,
            "copycat:connector/logging@0.3.0": crate::__bindings_v0_3::source::copycat::connector::logging,
            "copycat:connector/clock@0.3.0": crate::__bindings_v0_3::source::copycat::connector::clock,
        },
        pub_export_macro: true,
        default_bindings_module: "copycat_sdk::__bindings_v0_3::sink",
    });
}
