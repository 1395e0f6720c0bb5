//! Compiling a component in a child process, so that a crafted component
//! (deeply nested blocks, a huge `br_table`) cannot spend the worker's CPU
//! and memory while it compiles.
//!
//! The `copycat` binary turns this on ([`enable`]); an embedded worker,
//! whose executable is not `copycat`, compiles in its own process. The
//! worker re-runs its executable as `copycat __compile` with its engine
//! settings and the component on stdin; the child compiles it into the
//! worker's compiled-code cache under an address-space limit
//! (`plugin.compile.memory.max.bytes`) and exits. The worker kills a child
//! still running after `plugin.compile.timeout.ms`, then loads the compiled
//! code from the cache (the same engine settings make the same cache key),
//! which costs milliseconds. Without a cache (`component.cache.dir=none`)
//! there is nothing to hand the code back through, and compilation stays in
//! the worker's process.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::config::EngineConfig;

/// The executable that compiles, once [`enable`]d.
static EXE: OnceLock<PathBuf> = OnceLock::new();

/// The hidden subcommand the child runs.
pub const SUBCOMMAND: &str = "__compile";

/// Compile in child processes of `exe` (the `copycat` binary itself).
pub fn enable(exe: PathBuf) {
    let _ = EXE.set(exe);
}

/// The executable to compile with, if child compilation is on.
pub(crate) fn exe() -> Option<&'static Path> {
    EXE.get().map(PathBuf::as_path)
}

/// Compile `bytes` into `cfg`'s cache in a child process of `exe`; the
/// child's error, or why it was stopped.
pub(crate) fn compile(exe: &Path, cfg: &EngineConfig, cache_dir: &Path, bytes: &[u8]) -> Result<(), String> {
    let limits = cfg.compile;
    let mut cmd = Command::new(exe);
    cmd.arg(SUBCOMMAND)
        .arg("--cache-dir")
        .arg(cache_dir)
        .arg("--max-stack-bytes")
        .arg(cfg.max_stack_bytes.to_string())
        .arg("--memory-max-bytes")
        .arg(limits.memory_bytes.to_string());
    if cfg.fuel {
        cmd.arg("--fuel");
    }
    if !cfg.interruptible {
        cmd.arg("--no-epochs");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the compiler process {}: {e}", exe.display()))?;
    let deadline = Instant::now() + limits.timeout;
    // The child reads all of stdin before compiling; a writer thread keeps
    // the deadline even if it does not.
    let writer = child.stdin.take().map(|mut stdin| {
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        })
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "compiling it took longer than {} ms (plugin.compile.timeout.ms); the compiler process was killed",
                    limits.timeout.as_millis()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for the compiler process: {e}")),
        }
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    if status.success() {
        return Ok(());
    }
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.by_ref().take(8 * 1024).read_to_string(&mut stderr);
    }
    let stderr = stderr.trim();
    Err(if stderr.is_empty() {
        format!(
            "the compiler process ended with {status} (over plugin.compile.memory.max.bytes={}?)",
            limits.memory_bytes
        )
    } else {
        stderr.to_owned()
    })
}

/// The arguments of `copycat __compile`.
#[derive(Debug, clap::Args)]
pub struct ChildArgs {
    /// The worker's compiled-code cache.
    #[arg(long)]
    cache_dir: PathBuf,
    /// `task.stack.max.bytes`.
    #[arg(long)]
    max_stack_bytes: usize,
    /// The address space the compilation may use.
    #[arg(long)]
    memory_max_bytes: u64,
    /// Fuel metering is on.
    #[arg(long)]
    fuel: bool,
    /// Epoch interruption is off.
    #[arg(long)]
    no_epochs: bool,
}

/// `copycat __compile`: compile the component on stdin into the cache.
pub fn child_main(args: &ChildArgs) -> ExitCode {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let limit = Rlimit {
        current: Some(args.memory_max_bytes),
        maximum: Some(args.memory_max_bytes),
    };
    if let Err(e) = setrlimit(Resource::As, limit) {
        eprintln!("cannot limit the compiler's memory: {e}");
        return ExitCode::FAILURE;
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        eprintln!("cannot read the component: {e}");
        return ExitCode::FAILURE;
    }
    let cfg = EngineConfig {
        cache_dir: Some(args.cache_dir.clone()),
        max_stack_bytes: args.max_stack_bytes,
        fuel: args.fuel,
        interruptible: !args.no_epochs,
        ..EngineConfig::default()
    };
    // The worker's engine settings make the worker's cache key.
    let engine = match cfg.wasmtime_config().and_then(|c| wasmtime::Engine::new(&c)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot create the engine: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    match wasmtime::component::Component::new(&engine, &bytes) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::FAILURE
        }
    }
}
