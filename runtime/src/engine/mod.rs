//! The WebAssembly engine: one `wasmtime::Engine` per worker, components
//! compiled once (with an on-disk cache of compiled code) and kept as
//! pre-linked `InstancePre`s, and a ticker that drives epoch deadlines.

pub mod batch;
pub mod compile_child;
mod config;
pub mod guest;
mod imports;
pub mod transformer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::{Component, InstancePre, types::ComponentItem};

pub use self::batch::Contract;
pub use self::config::{CompileLimits, DEFAULT_MAX_INSTANCES, DEFAULT_STACK_BYTES, EPOCH_TICK, EngineConfig};
use crate::connector::Kind;
use crate::host::TaskHost;

/// The interface names that tell which world (and contract version) a
/// component implements: `copycat:connector/<name>@<version>`.
const CONNECTOR_EXPORT: &str = "connector";
const SOURCE_TASK_EXPORT: &str = "source-task";
const SINK_TASK_EXPORT: &str = "sink-task";
/// What a transform component exports (`copycat:transform@0.1.0`).
const TRANSFORMER_EXPORT: &str = "copycat:transform/transformer@0.1.0";
/// What a dynamic connector exports beside its world (`copycat:dynamic@0.1.0`).
const DYNAMIC_EXPORT: &str = "copycat:dynamic/instance@0.1.0";

/// Errors loading a component. Each names the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read connector component {path}: {source}")]
    Read {
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a WebAssembly component (a core module, or not wasm).
    #[error("{path} is not a WebAssembly component: {reason}")]
    NotAComponent {
        path: PathBuf,
        /// What wasmtime said.
        reason: String,
    },
    /// A component, but not one implementing a Copycat world.
    #[error(
        "{path} does not implement the copycat:connector source or sink world (0.3.0, 0.2.0 or 0.1.0): it must export `copycat:connector/connector@<version>` and either `copycat:connector/source-task@<version>` or `copycat:connector/sink-task@<version>` of the same version, but it exports [{exports}]"
    )]
    WrongWorld {
        path: PathBuf,
        /// What it exports instead.
        exports: String,
    },
    /// The component imports interfaces this worker does not provide.
    #[error(
        "{path} imports what this worker does not provide: {}. Copycat links WASI 0.2 (io, clocks, filesystem, random, cli, sockets, http), the copycat:connector (0.1, 0.2 or 0.3) interfaces of the component's world, copycat:errant/reporter@0.1 (sinks) and copycat:dynamic/context@0.1 (sources and sinks); nothing else",
        .missing.join(", ")
    )]
    MissingImports {
        path: PathBuf,
        /// Every import that cannot be satisfied.
        missing: Vec<String>,
    },
    /// It exports a dynamic connector's instance, but not beside a
    /// `copycat:connector@0.3.0` source or sink.
    #[error(
        "{path} exports {DYNAMIC_EXPORT} beside {world}: a dynamic connector instance is for copycat:connector@0.3.0 sources and sinks"
    )]
    DynamicWorld {
        path: PathBuf,
        /// The world it implements.
        world: String,
    },
    /// Compilation failed or was stopped by its limits.
    #[error("{path} could not be compiled: {reason}")]
    Compile {
        path: PathBuf,
        /// The compiler's error, or the limit that stopped it.
        reason: String,
    },
    /// The component could not be pre-linked.
    #[error("{path} cannot be linked: {reason}")]
    Link {
        path: PathBuf,
        /// The unresolved import, as wasmtime reports it.
        reason: String,
    },
}

/// A compiled, pre-linked connector component.
pub struct Plugin {
    /// Where it was loaded from.
    pub path: PathBuf,
    /// `sha256:<hex>` of the file's bytes.
    pub digest: String,
    /// Source or sink.
    pub kind: Kind,
    /// The `copycat:connector` version it implements (a transform: the
    /// one whose types it uses, 0.3.0).
    pub contract: Contract,
    /// Whether it exports a connector instance (`copycat:dynamic@0.1.0`),
    /// which the worker keeps running while the connector runs.
    pub dynamic: bool,
    pub(crate) pre: InstancePre<TaskHost>,
}

impl Plugin {
    /// The names of the interfaces the component imports and exports.
    pub fn interfaces(&self, engine: &WasmEngine) -> (Vec<String>, Vec<String>) {
        let ty = self.pre.component().component_type();
        let imports = ty.imports(&engine.engine).map(|(n, _)| n.to_owned()).collect();
        let exports = ty.exports(&engine.engine).map(|(n, _)| n.to_owned()).collect();
        (imports, exports)
    }
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("path", &self.path)
            .field("digest", &self.digest)
            .field("kind", &self.kind)
            .field("contract", &self.contract)
            .field("dynamic", &self.dynamic)
            .finish()
    }
}

/// The worker's engine and its compiled components.
pub struct WasmEngine {
    engine: Engine,
    /// The settings it was made with (a compiling child gets them).
    config: EngineConfig,
    plugins: Mutex<HashMap<String, Arc<Plugin>>>,
    ticker_stop: Arc<AtomicBool>,
    pub(crate) max_stack_bytes: usize,
    pub(crate) fuel: bool,
    pub(crate) instances: Arc<InstanceCount>,
}

/// Live component instances of one engine, against `worker.instances.max`.
#[derive(Debug)]
pub(crate) struct InstanceCount {
    live: AtomicUsize,
    max: usize,
    /// The epoch ticker, which waits while no instance is alive: the first
    /// one wakes it.
    ticker: OnceLock<Thread>,
}

/// One counted instance; dropping it frees the slot.
#[derive(Debug)]
pub(crate) struct InstanceSlot(Arc<InstanceCount>);

impl InstanceCount {
    /// Take a slot, or say why not.
    pub(crate) fn acquire(self: &Arc<Self>) -> Result<InstanceSlot, String> {
        let taken = self
            .live
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < self.max).then_some(n + 1));
        match taken {
            Ok(before) => {
                if before == 0
                    && let Some(ticker) = self.ticker.get()
                {
                    ticker.unpark();
                }
                Ok(InstanceSlot(self.clone()))
            }
            Err(n) => Err(format!(
                "the worker already runs {n} component instances, its limit (worker.instances.max={})",
                self.max
            )),
        }
    }

    /// Instances alive now.
    pub(crate) fn live(&self) -> usize {
        self.live.load(Ordering::Acquire)
    }
}

impl Drop for InstanceSlot {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::AcqRel);
    }
}

impl WasmEngine {
    /// Build the engine and start the epoch ticker.
    pub fn new(cfg: &EngineConfig) -> wasmtime::Result<Self> {
        let engine = Engine::new(&cfg.wasmtime_config()?)?;
        let ticker_stop = Arc::new(AtomicBool::new(false));
        let instances = Arc::new(InstanceCount {
            live: AtomicUsize::new(0),
            max: cfg.max_instances,
            ticker: OnceLock::new(),
        });
        let (e, stop, live) = (engine.weak(), ticker_stop.clone(), instances.clone());
        let ticker = std::thread::Builder::new()
            .name("copycat-epoch".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // No guest code can run without an instance: an idle
                    // worker's ticker does not wake 100 times a second.
                    if live.live() == 0 {
                        std::thread::park();
                        continue;
                    }
                    std::thread::sleep(EPOCH_TICK);
                    match e.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .map_err(wasmtime::Error::msg)?;
        let _ = instances.ticker.set(ticker.thread().clone());
        Ok(Self {
            engine,
            config: cfg.clone(),
            plugins: Mutex::new(HashMap::new()),
            ticker_stop,
            max_stack_bytes: cfg.max_stack_bytes,
            fuel: cfg.fuel,
            instances,
        })
    }

    /// Component instances alive now (`worker.instances.max` caps them).
    pub fn live_instances(&self) -> usize {
        self.instances.live()
    }

    /// The underlying engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Load (or reuse) the component at `path`: read, check the digest,
    /// compile (cached), check its world, and pre-link it.
    pub fn load(&self, path: &Path) -> Result<Arc<Plugin>, LoadError> {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
            path: path.to_owned(),
            source,
        })?;
        self.load_bytes(path, &bytes)
    }

    /// Load (or reuse) a component from `bytes`; `path` is where it is (or
    /// will be) stored, named in errors and kept as [`Plugin::path`].
    pub fn load_bytes(&self, path: &Path, bytes: &[u8]) -> Result<Arc<Plugin>, LoadError> {
        let digest = format!("sha256:{:x}", Sha256::digest(bytes));
        if let Ok(plugins) = self.plugins.lock()
            && let Some(p) = plugins.get(&digest)
        {
            return Ok(p.clone());
        }
        let plugin = Arc::new(self.compile(path, bytes, digest.clone())?);
        if let Ok(mut plugins) = self.plugins.lock() {
            plugins.insert(digest, plugin.clone());
        }
        Ok(plugin)
    }

    fn compile(&self, path: &Path, bytes: &[u8], digest: String) -> Result<Plugin, LoadError> {
        if !is_component_binary(bytes) {
            let reason = if bytes.starts_with(b"\0asm") {
                "it is a core WebAssembly module; build it as a component (e.g. `cargo build --target wasm32-wasip2`, or `wasm-tools component new`)".to_owned()
            } else {
                "the file does not start with the WebAssembly magic bytes".to_owned()
            };
            return Err(LoadError::NotAComponent {
                path: path.to_owned(),
                reason,
            });
        }
        // The world and the imports, from the component's own sections,
        // before compiling: a component refused anyway costs no compilation.
        precheck(path, bytes)?;
        // In a child process where the `copycat` binary runs: the child
        // fills the cache, from which `Component::new` then loads.
        if let (Some(exe), Some(dir)) = (compile_child::exe(), &self.config.cache_dir) {
            compile_child::compile(exe, &self.config, dir, bytes).map_err(|reason| LoadError::Compile {
                path: path.to_owned(),
                reason,
            })?;
        }
        let component = Component::new(&self.engine, bytes).map_err(|e| LoadError::NotAComponent {
            path: path.to_owned(),
            reason: format!("{e:#}"),
        })?;
        let (kind, contract) = classify(&self.engine, &component).map_err(|exports| LoadError::WrongWorld {
            path: path.to_owned(),
            exports,
        })?;
        let dynamic = exports_dynamic(&self.engine, &component);
        if dynamic && (kind == Kind::Transform || contract != Contract::V0_3) {
            return Err(LoadError::DynamicWorld {
                path: path.to_owned(),
                world: format!("a {kind:?} of copycat:connector@{}", contract.version()),
            });
        }
        let missing = imports::missing(&self.engine, &component, kind);
        if !missing.is_empty() {
            return Err(LoadError::MissingImports {
                path: path.to_owned(),
                missing,
            });
        }
        let linker = crate::host::linker(&self.engine, kind).map_err(|e| LoadError::Link {
            path: path.to_owned(),
            reason: format!("{e:#}"),
        })?;
        let pre = linker.instantiate_pre(&component).map_err(|e| LoadError::Link {
            path: path.to_owned(),
            reason: format!("{e:#}"),
        })?;
        Ok(Plugin {
            path: path.to_owned(),
            digest,
            kind,
            contract,
            dynamic,
            pre,
        })
    }
}

impl Drop for WasmEngine {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.instances.ticker.get() {
            ticker.unpark();
        }
    }
}

/// A component binary starts with the wasm magic and a version word whose
/// layer field is 1 (core modules have layer 0).
fn is_component_binary(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && bytes.starts_with(b"\0asm") && bytes[6..8] == [1, 0]
}

/// The names the outermost component imports and exports (instances only,
/// for exports), read from its sections without compiling; nested modules
/// and components are skipped.
fn outer_names(bytes: &[u8]) -> Result<(Vec<String>, Vec<String>), String> {
    use wasmparser::{ComponentExternalKind, Parser, Payload};
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| e.to_string())? {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(section) if depth == 0 => {
                for import in section {
                    imports.push(import.map_err(|e| e.to_string())?.name.name.to_owned());
                }
            }
            Payload::ComponentExportSection(section) if depth == 0 => {
                for export in section {
                    let export = export.map_err(|e| e.to_string())?;
                    if export.kind == ComponentExternalKind::Instance {
                        exports.push(export.name.name.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    Ok((imports, exports))
}

/// The load checks that need no compilation: the world (from the export
/// names) and the imports (every missing one), as [`WasmEngine::load`]
/// reports them after compiling.
fn precheck(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    let (imports, exports) = outer_names(bytes).map_err(|reason| LoadError::NotAComponent {
        path: path.to_owned(),
        reason,
    })?;
    let (kind, _) = classify_names(exports).map_err(|exports| LoadError::WrongWorld {
        path: path.to_owned(),
        exports,
    })?;
    let missing = imports::missing_names(imports.iter().map(String::as_str), kind);
    if !missing.is_empty() {
        return Err(LoadError::MissingImports {
            path: path.to_owned(),
            missing,
        });
    }
    Ok(())
}

/// Which Copycat world and contract version `component` implements, or the
/// list of its exports.
fn classify(engine: &Engine, component: &Component) -> Result<(Kind, Contract), String> {
    let ty = component.component_type();
    let exports: Vec<String> = ty
        .exports(engine)
        .filter(|(_, item)| matches!(item.ty, ComponentItem::ComponentInstance(_)))
        .map(|(name, _)| name.to_owned())
        .collect();
    classify_names(exports)
}

/// Whether `component` exports a dynamic connector's instance.
fn exports_dynamic(engine: &Engine, component: &Component) -> bool {
    component
        .component_type()
        .exports(engine)
        .any(|(name, item)| name == DYNAMIC_EXPORT && matches!(item.ty, ComponentItem::ComponentInstance(_)))
}

/// [`classify`] from a component's instance export names.
fn classify_names(exports: Vec<String>) -> Result<(Kind, Contract), String> {
    // A transform builds on 0.3.0's types (schema nodes, config keys).
    if exports.iter().any(|e| e == TRANSFORMER_EXPORT) {
        return Ok((Kind::Transform, Contract::V0_3));
    }
    for contract in [Contract::V0_3, Contract::V0_2, Contract::V0_1] {
        let has = |n: &str| {
            let name = format!("copycat:connector/{n}@{}", contract.version());
            exports.contains(&name)
        };
        match (has(CONNECTOR_EXPORT), has(SOURCE_TASK_EXPORT), has(SINK_TASK_EXPORT)) {
            (true, true, false) => return Ok((Kind::Source, contract)),
            (true, false, true) => return Ok((Kind::Sink, contract)),
            _ => {}
        }
    }
    Err(if exports.is_empty() {
        "nothing".to_owned()
    } else {
        exports.join(", ")
    })
}
