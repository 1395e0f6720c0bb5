//! Kafka Connect 4.4's transformations (`org.apache.kafka.connect.transforms`),
//! one module each, with their `$Key` / `$Value` variants.

mod cast;
mod drop_headers;
mod extract_field;
mod field_path;
mod filter;
mod flatten;
mod header_from;
mod hoist_field;
mod insert_field;
mod insert_header;
mod mask_field;
mod regex_router;
mod replace_field;
mod set_schema_metadata;
mod timestamp_converter;
mod timestamp_router;
mod value_to_key;

use crate::registry::TransformPlugin;

/// A `$Key` and `$Value` pair of plugins for Kafka Connect's class
/// `$outer`, made by `$make(parsed, Part)`.
macro_rules! key_value {
    ($outer:literal, $doc:expr, $config:expr, $make:path) => {
        [
            $crate::registry::TransformPlugin {
                class: concat!("org.apache.kafka.connect.transforms.", $outer, "$Key"),
                aliases: &[concat!($outer, "$Key")],
                doc: $doc,
                config: $config,
                kind: $crate::registry::PluginKind::Transformation(|p| $make(p, $crate::Part::Key)),
            },
            $crate::registry::TransformPlugin {
                class: concat!("org.apache.kafka.connect.transforms.", $outer, "$Value"),
                aliases: &[concat!($outer, "$Value")],
                doc: $doc,
                config: $config,
                kind: $crate::registry::PluginKind::Transformation(|p| $make(p, $crate::Part::Value)),
            },
        ]
    };
}
pub(crate) use key_value;

/// Every built-in transformation.
pub(crate) static PLUGINS: &[TransformPlugin] = &[
    cast::PLUGINS[0],
    cast::PLUGINS[1],
    drop_headers::PLUGIN,
    extract_field::PLUGINS[0],
    extract_field::PLUGINS[1],
    filter::PLUGIN,
    flatten::PLUGINS[0],
    flatten::PLUGINS[1],
    header_from::PLUGINS[0],
    header_from::PLUGINS[1],
    hoist_field::PLUGINS[0],
    hoist_field::PLUGINS[1],
    insert_field::PLUGINS[0],
    insert_field::PLUGINS[1],
    insert_header::PLUGIN,
    mask_field::PLUGINS[0],
    mask_field::PLUGINS[1],
    regex_router::PLUGIN,
    replace_field::PLUGINS[0],
    replace_field::PLUGINS[1],
    set_schema_metadata::PLUGINS[0],
    set_schema_metadata::PLUGINS[1],
    timestamp_converter::PLUGINS[0],
    timestamp_converter::PLUGINS[1],
    timestamp_router::PLUGIN,
    value_to_key::PLUGIN,
];
