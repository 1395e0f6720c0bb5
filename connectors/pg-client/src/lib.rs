//! The PostgreSQL client Copycat's `postgres-source` and `postgres-sink`
//! share: rust-postgres's message codec (`postgres-protocol`, no I/O) driven
//! by a blocking loop over one `std::net::TcpStream`, which on
//! `wasm32-wasip2` is a `wasi:sockets` TCP stream, so the connection exists
//! only where the operator's `grants.net.connect` allows it.
//!
//! Neither the sync `postgres` crate nor `tokio-postgres` builds for
//! `wasm32-wasip2` without tokio's unstable network support, so the
//! connection loop (startup, SCRAM-SHA-256 / MD5 / cleartext login, the
//! simple and extended query protocols, pipelining, portals) lives here;
//! every message is encoded and decoded by `postgres-protocol`.
//!
//! Invariants: a [`Client`] is always either idle (the server sent
//! `ReadyForQuery`) or broken ([`Client::is_broken`], after an I/O or
//! protocol error): a server error inside a call is read through to the
//! `ReadyForQuery` that follows it before the call returns, so the next call
//! starts clean. Only [`Client::fetch`] leaves a portal open between calls,
//! inside the transaction [`Client::open_portal`] began.

mod client;
mod settings;
mod tls;
pub mod types;

pub use client::{Client, Column, Param, PgError, PipelineError, Row, ServerError, Statement};
pub use settings::{ConnectSettings, SslMode, connection_keys, from_keys, parse_url, redact};
