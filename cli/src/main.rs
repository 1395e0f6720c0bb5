//! The `copycat` command: the worker modes (`standalone`, `worker`), the
//! REST client (`connectors`, `plugins`), offsets, and the author tools
//! (`new`, `inspect`, `dev run`).

mod authoring;
mod client;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::client::{ClientOpts, ConnectorsCommand, Outcome, PluginsCommand};
use clap::{Parser, Subcommand};
use tokio::sync::watch;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, reload};

/// Copycat: a Kafka connector runtime where every connector is a
/// WebAssembly component.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a standalone worker with the given connectors, as Kafka Connect's
    /// `connect-standalone worker.properties connector.properties...`, plus
    /// those persisted in its `state.dir`; the REST API listens on
    /// `listeners` (default http://127.0.0.1:8083).
    Standalone {
        /// The worker config (`bootstrap.servers`, `plugin.path`, ...).
        worker: PathBuf,
        /// Connector configs (`name`, `connector.class`, ...).
        connectors: Vec<PathBuf>,
    },
    /// Run a distributed worker, as Kafka Connect's `connect-distributed
    /// worker.properties`: it joins the cluster named by `group.id`
    /// (`config.storage.topic`, `offset.storage.topic` and
    /// `status.storage.topic` hold its state); connectors are created
    /// through the REST API of any worker, and their tasks spread over the
    /// live workers.
    Worker {
        /// The worker config (`bootstrap.servers`, `group.id`, the three
        /// storage topics, `plugin.path`, ...).
        worker: PathBuf,
    },
    /// Read, alter or reset a stopped connector's offsets (KIP-875), in
    /// Kafka Connect's REST JSON shape.
    Offsets {
        #[command(subcommand)]
        action: OffsetsAction,
    },
    /// Manage the connectors of a running worker over its REST API
    /// (`--url`, default http://127.0.0.1:8083).
    Connectors {
        #[command(flatten)]
        opts: ClientOpts,
        #[command(subcommand)]
        action: ConnectorsCommand,
    },
    /// The connector plugins of a running worker, over its REST API.
    Plugins {
        #[command(flatten)]
        opts: ClientOpts,
        #[command(subcommand)]
        action: PluginsCommand,
    },
    /// Create a connector or transform project: the example of the language and kind, renamed.
    New {
        /// Project and plugin name (lowercase letters, digits, '-').
        name: String,
        /// Language: rust, python, js, c, go, zig.
        #[arg(long, default_value = "rust", value_parser = authoring::scaffold::LANGUAGES.to_vec())]
        lang: String,
        /// `source`, `sink` or `transform` (a transform component).
        #[arg(long, default_value = "source", value_parser = ["source", "sink", "transform"])]
        kind: String,
        /// Where to create it (the project becomes `<dir>/<name>`).
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// The Copycat checkout the project builds against (wit/, SDKs).
        #[arg(long, env = "COPYCAT_HOME", default_value = env!("COPYCAT_HOME_DEFAULT"))]
        copycat_home: PathBuf,
    },
    /// Tools that run a component without Kafka.
    Dev {
        #[command(subcommand)]
        action: DevAction,
    },
    /// Compile a component for a worker (internal; see
    /// `copycat_runtime::engine::compile_child`).
    #[command(name = "__compile", hide = true)]
    Compile(copycat_runtime::engine::compile_child::ChildArgs),
    /// Show a component's world, plugin info, config definition, imports,
    /// exports, size and digest.
    Inspect {
        /// The component file.
        component: PathBuf,
        /// `text` or `json`.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        output: String,
    },
}

#[derive(Subcommand)]
enum DevAction {
    /// Run a component in the sandbox: a source's records are printed as
    /// JSON lines; a sink is fed the records of `--input`; a transform is
    /// given the records of `--input` and its output printed as JSON lines.
    Run {
        /// The component file.
        component: PathBuf,
        /// Connector config entries, `key=value` (repeatable).
        #[arg(long = "config", short = 'c', value_parser = parse_key_value)]
        config: Vec<(String, String)>,
        /// A connector .properties file (entries of --config win).
        #[arg(long)]
        config_file: Option<PathBuf>,
        /// Sources: a committed offset to start from, `partition=offset`.
        #[arg(long = "offset", value_parser = parse_key_value)]
        offsets: Vec<(String, String)>,
        /// Sources: stop after this many records.
        #[arg(long, default_value_t = 20)]
        max_records: u64,
        /// Sources: stop after this many empty polls in a row.
        #[arg(long, default_value_t = 3)]
        idle_polls: u32,
        /// Records per poll / put.
        #[arg(long, default_value_t = 500)]
        batch: u32,
        /// Sinks and transforms: JSON lines
        /// `{"topic":..,"partition":..,"key":..,"value":..}` (a transform's
        /// keys and values are JSON; `{"schema":..,"payload":..}` is typed).
        #[arg(long)]
        input: Option<PathBuf>,
    },
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("'{s}' is not key=value"))
}

fn new_project(name: String, lang: String, kind: String, dir: PathBuf, home: PathBuf) -> anyhow::Result<()> {
    use crate::authoring::scaffold::{NewProject, create};
    let path = create(&NewProject {
        name: name.clone(),
        lang,
        kind,
        parent: dir,
        copycat_home: home,
    })?;
    println!("created {}", path.display());
    println!(
        "next: {}/build.sh && copycat inspect {}/{name}.wasm",
        path.display(),
        path.display()
    );
    Ok(())
}

fn dev(action: DevAction) -> anyhow::Result<()> {
    use crate::authoring::dev::{DevRun, run};
    let DevAction::Run {
        component,
        config,
        config_file,
        offsets,
        max_records,
        idle_polls,
        batch,
        input,
    } = action;
    let mut props = match &config_file {
        Some(f) => copycat_runtime::config::load_properties(f)?,
        None => Default::default(),
    };
    props.extend(config);
    let mut out = std::io::stdout();
    run(
        &DevRun {
            component,
            config: props,
            offsets: offsets.into_iter().collect(),
            max_records,
            idle_polls,
            batch,
            input,
        },
        &mut out,
    )?;
    Ok(())
}

fn inspect(component: PathBuf, output: &str) -> anyhow::Result<()> {
    let found = crate::authoring::inspect::inspect(&component)?;
    if output == "json" {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        print!("{found}");
    }
    Ok(())
}

#[derive(Subcommand)]
enum OffsetsAction {
    /// Print the connector's offsets as JSON on stdout.
    Get {
        /// The worker config.
        worker: PathBuf,
        /// The connector's config.
        connector: PathBuf,
    },
    /// Set the offsets of the partitions listed in a JSON file
    /// (`{"offsets":[{"partition":{..},"offset":{..}}]}`; `"offset": null`
    /// resets one partition). The connector must be stopped.
    Alter {
        /// The worker config.
        worker: PathBuf,
        /// The connector's config.
        connector: PathBuf,
        /// The offsets document.
        offsets: PathBuf,
    },
    /// Reset all of the connector's offsets. The connector must be stopped.
    Reset {
        /// The worker config.
        worker: PathBuf,
        /// The connector's config.
        connector: PathBuf,
    },
}

async fn offsets(action: OffsetsAction) -> anyhow::Result<()> {
    use anyhow::Context;
    use copycat_runtime::worker::offsets::{self as offsets_admin, ConnectorOffsets};
    use copycat_runtime::{ConnectorConfig, WorkerConfig};

    let load = |worker: &PathBuf, connector: &PathBuf| -> anyhow::Result<(WorkerConfig, ConnectorConfig)> {
        let w = WorkerConfig::load(worker)?;
        let c = ConnectorConfig::load(connector, &w)?;
        Ok((w, c))
    };
    match action {
        OffsetsAction::Get { worker, connector } => {
            let (w, c) = load(&worker, &connector)?;
            let offsets = offsets_admin::get(&w, &c)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&offsets).context("printing the offsets")?
            );
        }
        OffsetsAction::Alter {
            worker,
            connector,
            offsets,
        } => {
            let (w, c) = load(&worker, &connector)?;
            let doc = ConnectorOffsets::load(&offsets)?;
            offsets_admin::alter(&w, &c, &doc).await?;
            eprintln!("altered {} offset(s) of connector '{}'", doc.offsets.len(), c.name);
        }
        OffsetsAction::Reset { worker, connector } => {
            let (w, c) = load(&worker, &connector)?;
            offsets_admin::reset(&w, &c).await?;
            eprintln!("reset the offsets of connector '{}'", c.name);
        }
    }
    Ok(())
}

/// Install SIGINT/SIGTERM handlers *now*, before anything starts, so a
/// signal during start-up also leads to a graceful stop.
fn shutdown_signal() -> std::io::Result<watch::Receiver<bool>> {
    let (tx, rx) = watch::channel(false);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            let _ = tx.send(true);
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        let _ = tx.send(true);
    });
    Ok(rx)
}

/// A worker's guests hold files and sockets (up to `task.host.handles.max`
/// handles each): raise the soft limit on open files to the hard one, as Go
/// programs do at start, so that a distribution's default soft limit (often
/// 1,024) is not what one task's handles exhaust.
fn raise_open_files_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if let Err(e) = setrlimit(Resource::Nofile, raised) {
            tracing::warn!(error = %e, "cannot raise the open-files limit to its hard limit");
        }
    }
}

/// The REST client commands: no async runtime, no log subscriber; the
/// error (the server's message and the HTTP status) on stderr, exit code 1.
fn client_command(result: Result<Outcome, client::ClientError>) -> ExitCode {
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Connectors { opts, action } => client_command(client::run_connectors(&opts, action)),
        Command::Plugins { opts, action } => client_command(client::run_plugins(&opts, action)),
        Command::Compile(args) => copycat_runtime::engine::compile_child::child_main(&args),
        command => match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
            Ok(rt) => rt.block_on(run(command)),
            Err(e) => {
                eprintln!("error: cannot start the async runtime: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

async fn run(command: Command) -> ExitCode {
    let shutdown = match shutdown_signal() {
        Ok(rx) => rx,
        Err(e) => {
            eprintln!("error: cannot install signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The filter sits in a reload layer so that `/admin/loggers` can change
    // levels live.
    let directives = std::env::var("RUST_LOG")
        .ok()
        .filter(|d| EnvFilter::try_new(d).is_ok())
        .unwrap_or_else(|| "info".to_owned());
    let (filter, handle) = reload::Layer::new(EnvFilter::new(&directives));
    // The targets logged from are the loggers `/admin/loggers` lists.
    let targets = copycat_runtime::rest::Targets::default();
    tracing_subscriber::registry()
        .with(filter)
        .with(targets.clone())
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::stderr().is_terminal()),
        )
        .init();
    let loggers =
        Arc::new(copycat_runtime::rest::Loggers::for_reload_handle(&directives, handle).with_targets(targets));
    // A worker compiles components in child processes of this binary,
    // bounded in time and memory (engine::compile_child).
    if matches!(command, Command::Standalone { .. } | Command::Worker { .. }) {
        if let Ok(exe) = std::env::current_exe() {
            copycat_runtime::engine::compile_child::enable(exe);
        }
        raise_open_files_limit();
    }
    let result = match command {
        Command::Standalone { worker, connectors } => {
            copycat_runtime::standalone::run(worker, connectors, Some(loggers), shutdown)
                .await
                .map_err(anyhow::Error::from)
        }
        Command::Worker { worker } => copycat_runtime::distributed::run(worker, Some(loggers), shutdown)
            .await
            .map_err(anyhow::Error::from),
        Command::Offsets { action } => offsets(action).await,
        Command::New {
            name,
            lang,
            kind,
            dir,
            copycat_home,
        } => new_project(name, lang, kind, dir, copycat_home),
        Command::Dev { action } => dev(action),
        Command::Inspect { component, output } => inspect(component, &output),
        Command::Connectors { opts, action } => return client_command(client::run_connectors(&opts, action)),
        Command::Plugins { opts, action } => return client_command(client::run_plugins(&opts, action)),
        Command::Compile(args) => return copycat_runtime::engine::compile_child::child_main(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
