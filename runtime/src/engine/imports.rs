//! What a component may import: the WASI 0.2 interfaces and Copycat host
//! interfaces this worker links. A component that imports anything else is
//! refused at load with *every* missing import listed (wasmtime's own link
//! error names only the first).

use wasmtime::Engine;
use wasmtime::component::Component;

use crate::connector::Kind;

/// `(package, interfaces, version prefix)` the worker provides to every
/// component. Versions match semver-compatibly (any 0.2.x for WASI 0.2).
const PROVIDED: &[(&str, &[&str], &str)] = &[
    ("wasi:io", &["error", "poll", "streams"], "0.2."),
    ("wasi:clocks", &["monotonic-clock", "wall-clock"], "0.2."),
    ("wasi:filesystem", &["types", "preopens"], "0.2."),
    ("wasi:random", &["random", "insecure", "insecure-seed"], "0.2."),
    (
        "wasi:cli",
        &[
            "exit",
            "environment",
            "stdin",
            "stdout",
            "stderr",
            "terminal-input",
            "terminal-output",
            "terminal-stdin",
            "terminal-stdout",
            "terminal-stderr",
        ],
        "0.2.",
    ),
    (
        "wasi:sockets",
        &[
            "network",
            "instance-network",
            "tcp",
            "tcp-create-socket",
            "udp",
            "udp-create-socket",
            "ip-name-lookup",
        ],
        "0.2.",
    ),
    ("wasi:http", &["types", "outgoing-handler"], "0.2."),
    ("copycat:connector", &["types", "logging", "clock"], "0.1."),
    ("copycat:connector", &["types", "batch", "logging", "clock"], "0.2."),
    ("copycat:connector", &["types", "batch", "logging", "clock"], "0.3."),
];

/// Whether `package` is the errant record reporter, which only sinks get.
fn sink_only(package: &str, interface: &str, version: &str) -> bool {
    package == "copycat:errant" && interface == "reporter" && version.starts_with("0.1.")
}

/// Copycat interfaces only the source world imports.
const SOURCE_ONLY: &[&str] = &["offsets", "transactions"];

/// Whether the worker links import `name` for a component of `world`.
fn provided(name: &str, world: Kind) -> bool {
    let (path, version) = name.split_once('@').unwrap_or((name, ""));
    let Some((package, interface)) = path.split_once('/') else {
        return false;
    };
    if package == "copycat:connector"
        && ["0.1.", "0.2.", "0.3."].iter().any(|v| version.starts_with(v))
        && SOURCE_ONLY.contains(&interface)
    {
        return world == Kind::Source;
    }
    if sink_only(package, interface, version) {
        return world == Kind::Sink;
    }
    if package == "copycat:dynamic" && interface == "context" && version.starts_with("0.1.") {
        return world != Kind::Transform;
    }
    PROVIDED
        .iter()
        .any(|(p, ifaces, v)| *p == package && version.starts_with(v) && ifaces.contains(&interface))
}

/// The imports of `component` this worker does not provide for `world`.
pub(crate) fn missing(engine: &Engine, component: &Component, world: Kind) -> Vec<String> {
    missing_names(component.component_type().imports(engine).map(|(name, _)| name), world)
}

/// Those of the import `names` this worker does not provide for `world`.
pub(crate) fn missing_names<'a>(names: impl Iterator<Item = &'a str>, world: Kind) -> Vec<String> {
    names.filter(|name| !provided(name, world)).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wasi_02_and_the_world_s_own_interfaces_are_provided() {
        assert!(provided("wasi:io/streams@0.2.0", Kind::Sink));
        assert!(provided("wasi:http/outgoing-handler@0.2.6", Kind::Source));
        assert!(provided("copycat:connector/offsets@0.1.0", Kind::Source));
        assert!(!provided("copycat:connector/offsets@0.1.0", Kind::Sink));
        assert!(provided("copycat:connector/offsets@0.2.0", Kind::Source));
        assert!(provided("copycat:connector/batch@0.2.0", Kind::Sink));
        assert!(!provided("copycat:connector/offsets@0.2.0", Kind::Sink));
        assert!(!provided("copycat:connector/batch@0.1.0", Kind::Sink));
        assert!(!provided("wasi:io/streams@0.3.0", Kind::Source));
        assert!(!provided("wasi:keyvalue/store@0.2.0-draft", Kind::Source));
        assert!(!provided("wasi:clocks/timezone@0.2.0", Kind::Source));
        assert!(!provided("unversioned", Kind::Source));
        assert!(provided("copycat:connector/logging@0.3.0", Kind::Transform));
        assert!(provided("copycat:connector/batch@0.3.0", Kind::Transform));
        assert!(!provided("copycat:connector/offsets@0.3.0", Kind::Transform));
        assert!(provided("copycat:errant/reporter@0.1.0", Kind::Sink));
        assert!(!provided("copycat:errant/reporter@0.1.0", Kind::Source));
        assert!(!provided("copycat:errant/reporter@0.1.0", Kind::Transform));
        assert!(provided("copycat:dynamic/context@0.1.0", Kind::Source));
        assert!(provided("copycat:dynamic/context@0.1.0", Kind::Sink));
        assert!(!provided("copycat:dynamic/context@0.1.0", Kind::Transform));
        assert!(!provided("copycat:dynamic/context@0.2.0", Kind::Source));
    }
}
