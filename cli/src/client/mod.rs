//! `copycat connectors …` and `copycat plugins …`: a command-line client of
//! a worker's Kafka Connect-compatible REST API.
//!
//! One concern per file: [`http`] (the blocking HTTP client: URL, TLS,
//! credentials, error answers), [`files`] (connector config files,
//! `.properties` or JSON), [`output`] (tables or the server's JSON),
//! [`connectors`] and [`plugins`] (the commands). A non-2xx answer is a
//! [`ClientError::Http`] carrying the server's `message` and the status.

pub mod connectors;
pub mod files;
pub mod http;
pub mod output;
pub mod plugins;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

pub use http::Api;
pub use output::Output;

/// What went wrong talking to the worker.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a non-2xx status.
    #[error("{message} (HTTP {status}{})", reason.map(|r| format!(" {r}")).unwrap_or_default())]
    Http {
        /// The HTTP status.
        status: u16,
        /// Its canonical reason phrase.
        reason: Option<&'static str>,
        /// The server's `message` (or its body).
        message: String,
    },
    /// No answer: the connection, TLS or the request failed.
    #[error("cannot reach {url}: {source}")]
    Connect {
        /// The URL asked.
        url: String,
        /// Why.
        source: Box<ureq::Error>,
    },
    /// A local file could not be used.
    #[error("{}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The command line or an answer made no sense.
    #[error("{0}")]
    Invalid(String),
    /// Writing the output failed (a closed pipe, ...).
    #[error("writing the output: {0}")]
    Output(#[from] std::io::Error),
}

impl ClientError {
    pub(crate) fn file(path: &std::path::Path, reason: impl std::fmt::Display) -> Self {
        Self::File {
            path: path.to_owned(),
            reason: reason.to_string(),
        }
    }
}

/// Options of every client command: where the worker is, how to print,
/// credentials and TLS.
#[derive(Debug, Clone, Args)]
pub struct ClientOpts {
    /// The worker's REST API.
    #[arg(long, env = "COPYCAT_URL", default_value = "http://127.0.0.1:8083", global = true)]
    pub url: String,
    /// `table` (for people) or `json` (the server's answer, pretty-printed).
    #[arg(long, value_enum, default_value_t = Output::Table, global = true)]
    pub output: Output,
    /// A bearer token (`rest.auth.type=bearer`).
    #[arg(
        long,
        env = "COPYCAT_TOKEN",
        global = true,
        conflicts_with = "user",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// `user:password` for HTTP Basic (`rest.auth.type=basic`).
    #[arg(long, env = "COPYCAT_USER", global = true, hide_env_values = true)]
    pub user: Option<String>,
    /// A PEM file of CA certificates to trust for an https:// URL (instead
    /// of the built-in web roots).
    #[arg(long, value_name = "PEM", global = true)]
    pub cacert: Option<PathBuf>,
    /// Do not verify the server's TLS certificate (testing only).
    #[arg(long, global = true)]
    pub insecure: bool,
}

/// A connector's state at creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "UPPER")]
pub enum InitialState {
    /// Start its tasks.
    Running,
    /// Create it paused.
    Paused,
    /// Create it stopped (its offsets may then be changed).
    Stopped,
}

/// `copycat connectors …`.
#[derive(Debug, Subcommand)]
pub enum ConnectorsCommand {
    /// List the connectors: name, type, state, tasks running/total, plugin.
    List,
    /// Show a connector: type, tasks and config.
    Get {
        /// The connector.
        name: String,
    },
    /// Create a connector from a `.properties` or JSON config file (JSON:
    /// Kafka Connect's `{"name":..,"config":{..}}` or a flat map).
    Create {
        /// The config file.
        file: PathBuf,
        /// RUNNING (default), PAUSED or STOPPED.
        #[arg(long, value_enum, ignore_case = true)]
        initial_state: Option<InitialState>,
    },
    /// Show a connector's config; `--set`/`--unset` change keys (PATCH),
    /// `--file` replaces it (PUT).
    Config {
        /// The connector.
        name: String,
        /// Set a key, `key=value` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_set)]
        set: Vec<(String, String)>,
        /// Remove a key (repeatable).
        #[arg(long = "unset", value_name = "KEY")]
        unset: Vec<String>,
        /// Replace the whole config with this file's.
        #[arg(long, conflicts_with_all = ["set", "unset"])]
        file: Option<PathBuf>,
    },
    /// The connector's and its tasks' states, workers and traces.
    Status {
        /// The connector.
        name: String,
    },
    /// Pause the connector's tasks.
    Pause {
        /// The connector.
        name: String,
    },
    /// Resume a paused or stopped connector.
    Resume {
        /// The connector.
        name: String,
    },
    /// Stop the connector (tasks dropped; its offsets may then be changed).
    Stop {
        /// The connector.
        name: String,
    },
    /// Restart a connector (and with flags, its tasks).
    Restart {
        /// The connector.
        name: String,
        /// Restart its tasks too.
        #[arg(long)]
        include_tasks: bool,
        /// Only the failed ones.
        #[arg(long)]
        only_failed: bool,
    },
    /// Restart one task.
    RestartTask {
        /// The connector.
        name: String,
        /// The task id.
        task: u32,
    },
    /// Delete a connector (its committed offsets are kept).
    Delete {
        /// The connector.
        name: String,
    },
    /// Show a connector's offsets; `--reset` resets them, `--file` alters
    /// them (Kafka Connect's `{"offsets":[..]}`); both need it STOPPED.
    Offsets {
        /// The connector.
        name: String,
        /// Reset all of its offsets.
        #[arg(long, conflicts_with = "file")]
        reset: bool,
        /// Alter the offsets listed in this JSON file.
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// The topics a connector has used (its active topics, KIP-558).
    Topics {
        /// The connector.
        name: String,
        /// Forget them instead (`PUT …/topics/reset`).
        #[arg(long)]
        reset: bool,
    },
}

/// `copycat plugins …`.
#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// List the connector plugins: class, type, version.
    List,
    /// A plugin's config definition.
    Config {
        /// The plugin (its class).
        plugin: String,
    },
    /// Validate a config file with the plugin; exit code 1 if it has errors.
    Validate {
        /// The plugin (its class).
        plugin: String,
        /// A `.properties` or JSON config file.
        file: PathBuf,
    },
    /// Upload a component as version VERSION of plugin NAME.
    Upload {
        /// The plugin's name.
        name: String,
        /// Its version.
        version: String,
        /// The component (`.wasm`).
        file: PathBuf,
    },
    /// The uploaded versions of a plugin.
    Versions {
        /// The plugin's name.
        name: String,
    },
}

fn parse_set(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("'{s}' is not key=value"))
}

/// How a command that reached the server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done.
    Ok,
    /// The server answered, and the answer is a failure (a config with
    /// errors): exit code 1, nothing more to print.
    Failed,
}

/// Run `copycat connectors <command>`.
pub fn run_connectors(opts: &ClientOpts, command: ConnectorsCommand) -> Result<Outcome, ClientError> {
    let api = Api::new(opts)?;
    connectors::run(&api, opts.output, command, &mut std::io::stdout().lock())
}

/// Run `copycat plugins <command>`.
pub fn run_plugins(opts: &ClientOpts, command: PluginsCommand) -> Result<Outcome, ClientError> {
    let api = Api::new(opts)?;
    plugins::run(&api, opts.output, command, &mut std::io::stdout().lock())
}
