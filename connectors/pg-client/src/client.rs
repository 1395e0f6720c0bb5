//! One connection: login, the simple query protocol, prepared statements,
//! pipelined executions and portals read in steps.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::ops::Range;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use fallible_iterator::FallibleIterator;
use postgres_protocol::IsNull;
use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, SCRAM_SHA_256, ScramSha256};
use postgres_protocol::message::backend::{DataRowBody, ErrorResponseBody, Message};
use postgres_protocol::message::frontend;

use crate::settings::{ConnectSettings, SslMode};
use crate::tls::{self, Stream};

/// How long a read waits for the server before the connection counts as
/// broken (a silent server must not hold a task forever).
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Pipelined executions per round trip: their answers (~30 bytes each) stay
/// well inside the socket buffers, so neither side blocks writing.
const PIPELINE_ROWS: usize = 1000;
/// Request bytes per round trip, for wide rows.
const PIPELINE_BYTES: usize = 1 << 20;

/// An error the server sent (`ErrorResponse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    pub severity: String,
    /// The SQLSTATE, e.g. `23505`.
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.severity, self.code, self.message)?;
        if let Some(d) = &self.detail {
            write!(f, " ({d})")?;
        }
        if let Some(h) = &self.hint {
            write!(f, " hint: {h}")?;
        }
        Ok(())
    }
}

/// What can go wrong talking to PostgreSQL.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    #[error("cannot connect to PostgreSQL at {address}: {source} (is it granted with grants.net.connect={address}?)")]
    Connect { address: String, source: io::Error },
    #[error("the connection to PostgreSQL failed: {0}")]
    Io(#[from] io::Error),
    #[error("PostgreSQL refused the login of user '{user}': {message}")]
    Login { user: String, message: String },
    #[error("TLS to PostgreSQL at {address} (sslmode={mode}): {message}")]
    Tls {
        address: String,
        mode: &'static str,
        message: String,
    },
    #[error("PostgreSQL: {0}")]
    Server(Box<ServerError>),
    #[error("unexpected answer from PostgreSQL: {0}")]
    Protocol(String),
}

impl PgError {
    /// The SQLSTATE of a server error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Server(e) => Some(&e.code),
            _ => None,
        }
    }

    /// Whether trying again later may succeed: the connection broke, the
    /// server is starting or shutting down, a serialization failure or a
    /// deadlock, a lock or resource limit.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Connect { .. } | Self::Io(_) => true,
            Self::Server(e) => {
                e.code.starts_with("08")
                    || e.code.starts_with("53")
                    || e.code.starts_with("57P")
                    || matches!(e.code.as_str(), "40001" | "40P01" | "55P03")
            }
            _ => false,
        }
    }
}

/// A failed pipelined execution: which input row the server refused.
#[derive(Debug, thiserror::Error)]
#[error("{}{error}", index.map(|i| format!("row {i} of the batch: ")).unwrap_or_default())]
pub struct PipelineError {
    /// The failed row's index in the rows given; `None` when the failure is
    /// not tied to one row (the connection broke).
    pub index: Option<usize>,
    pub error: PgError,
}

/// A column of a statement's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub type_oid: u32,
    /// `atttypmod`: e.g. a numeric's precision and scale, `-1` if none.
    pub type_modifier: i32,
    /// The table the column comes from (0 if none).
    pub table_oid: u32,
    /// Its attribute number in that table (0 if none).
    pub column_id: i16,
}

/// A prepared statement.
#[derive(Debug, Clone)]
pub struct Statement {
    name: String,
    /// The parameters' types, as the server inferred or was told.
    pub params: Vec<u32>,
    /// The result's columns (empty for a statement that returns no rows).
    pub columns: Vec<Column>,
}

impl Statement {
    /// The statement's name on its connection.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A parameter value, in the format the statement is bound with.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Null,
    /// Text format: the server parses it as the parameter's type.
    Text(String),
    /// Binary format, as `postgres_protocol::types` writes it.
    Binary(Vec<u8>),
}

impl Param {
    fn format(&self) -> i16 {
        match self {
            Self::Binary(_) => crate::types::FORMAT_BINARY,
            _ => crate::types::FORMAT_TEXT,
        }
    }
}

/// One result row.
#[derive(Debug)]
pub struct Row {
    body: DataRowBody,
    ranges: Vec<Option<Range<usize>>>,
}

impl Row {
    fn new(body: DataRowBody) -> Result<Self, PgError> {
        let ranges = body
            .ranges()
            .collect()
            .map_err(|e| PgError::Protocol(format!("bad DataRow: {e}")))?;
        Ok(Self { body, ranges })
    }

    /// Column `i`'s bytes; `None` for SQL NULL (or no such column).
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let range = self.ranges.get(i)?.clone()?;
        self.body.buffer().get(range)
    }

    /// Column `i` as text (a text-format column).
    pub fn text(&self, i: usize) -> Option<&str> {
        self.get(i).and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The number of columns.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the row has no columns.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// One connection to PostgreSQL.
pub struct Client {
    stream: Stream,
    read: BytesMut,
    write: BytesMut,
    scratch: Vec<u8>,
    broken: bool,
    statements: u32,
    server_version: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("broken", &self.broken)
            .field("server_version", &self.server_version)
            .finish()
    }
}

fn server_error(body: &ErrorResponseBody) -> ServerError {
    let mut e = ServerError {
        severity: String::new(),
        code: String::new(),
        message: String::new(),
        detail: None,
        hint: None,
    };
    let mut fields = body.fields();
    while let Ok(Some(field)) = fields.next() {
        let value = String::from_utf8_lossy(field.value_bytes()).into_owned();
        match field.type_() {
            b'S' => e.severity = value,
            b'C' => e.code = value,
            b'M' => e.message = value,
            b'D' => e.detail = Some(value),
            b'H' => e.hint = Some(value),
            _ => {}
        }
    }
    e
}

fn io_error(e: impl std::fmt::Display) -> PgError {
    PgError::Io(io::Error::other(e.to_string()))
}

/// The row count at the end of a command tag (`INSERT 0 3`, `UPDATE 2`).
fn affected(tag: &str) -> u64 {
    tag.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

impl Client {
    /// Opens a connection and logs in (SCRAM-SHA-256, MD5 or a cleartext
    /// password, as the server asks). The session runs in UTC with ISO
    /// dates, so timestamps without a time zone read as UTC.
    pub fn connect(settings: &ConnectSettings) -> Result<Self, PgError> {
        let address = settings.address();
        // `connect`, not `connect_timeout`: on wasip2 the latter reports
        // success against a closed port.
        let mut tcp =
            TcpStream::connect((settings.host.as_str(), settings.port)).map_err(|source| PgError::Connect {
                address: address.clone(),
                source,
            })?;
        // Best effort: not every platform has these knobs.
        let _ = tcp.set_nodelay(true);
        let _ = tcp.set_read_timeout(Some(READ_TIMEOUT));
        let tls_error = |message: String| PgError::Tls {
            address: address.clone(),
            mode: settings.ssl_mode.name(),
            message,
        };
        let stream = match settings.ssl_mode {
            SslMode::Disable => Stream::Plain(tcp),
            mode => {
                let mut request = BytesMut::new();
                frontend::ssl_request(&mut request);
                tcp.write_all(&request)?;
                let mut answer = [0u8; 1];
                tcp.read_exact(&mut answer)?;
                match answer[0] {
                    b'S' => tls::connect(settings, tcp).map_err(tls_error)?,
                    b'N' if mode == SslMode::Prefer => Stream::Plain(tcp),
                    b'N' => return Err(tls_error("the server does not accept TLS connections".to_owned())),
                    other => {
                        return Err(PgError::Protocol(format!(
                            "answer {other:#04x} to the TLS request (is this a PostgreSQL server?)"
                        )));
                    }
                }
            }
        };
        let mut client = Self {
            stream,
            read: BytesMut::with_capacity(64 * 1024),
            write: BytesMut::with_capacity(64 * 1024),
            scratch: vec![0; 64 * 1024],
            broken: false,
            statements: 0,
            server_version: String::new(),
        };
        client.login(settings)?;
        Ok(client)
    }

    /// Whether the connection broke (then drop it and connect again).
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// The server's `server_version`.
    pub fn server_version(&self) -> &str {
        &self.server_version
    }

    fn login(&mut self, settings: &ConnectSettings) -> Result<(), PgError> {
        let params = [
            ("user", settings.user.as_str()),
            ("database", settings.database.as_str()),
            ("application_name", settings.application_name.as_str()),
            ("client_encoding", "UTF8"),
            ("TimeZone", "UTC"),
            ("DateStyle", "ISO, YMD"),
        ];
        frontend::startup_message(params.iter().copied(), &mut self.write)?;
        self.send()?;
        let refused = |message: String| PgError::Login {
            user: settings.user.clone(),
            message,
        };
        let password = || {
            settings
                .password
                .as_deref()
                .ok_or_else(|| refused("the server asks for a password and none is configured".to_owned()))
        };
        let mut scram: Option<ScramSha256> = None;
        loop {
            match self.recv()? {
                Message::AuthenticationOk => break,
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password()?.as_bytes(), &mut self.write)?;
                    self.send()?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = md5_hash(settings.user.as_bytes(), password()?.as_bytes(), body.salt());
                    frontend::password_message(hash.as_bytes(), &mut self.write)?;
                    self.send()?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut offered = Vec::new();
                    while let Some(m) = mechanisms.next().map_err(io_error)? {
                        offered.push(m.to_owned());
                    }
                    if !offered.iter().any(|m| m == SCRAM_SHA_256) {
                        return Err(refused(format!(
                            "the server offers SASL mechanisms {offered:?}, none of which is SCRAM-SHA-256"
                        )));
                    }
                    let s = ScramSha256::new(password()?.as_bytes(), ChannelBinding::unsupported());
                    frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut self.write)?;
                    self.send()?;
                    scram = Some(s);
                }
                Message::AuthenticationSaslContinue(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| PgError::Protocol("SASL continue before SASL start".to_owned()))?;
                    s.update(body.data()).map_err(|e| refused(format!("SCRAM: {e}")))?;
                    frontend::sasl_response(s.message(), &mut self.write)?;
                    self.send()?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| PgError::Protocol("SASL final before SASL start".to_owned()))?;
                    s.finish(body.data())
                        .map_err(|e| refused(format!("the server's SCRAM proof is wrong: {e}")))?;
                }
                Message::ErrorResponse(body) => {
                    self.broken = true;
                    return Err(refused(server_error(&body).to_string()));
                }
                Message::AuthenticationKerberosV5
                | Message::AuthenticationScmCredential
                | Message::AuthenticationGss
                | Message::AuthenticationSspi => {
                    self.broken = true;
                    return Err(refused(
                        "the server asks for Kerberos/GSSAPI/SSPI, which this connector does not speak; use scram-sha-256 or md5 in pg_hba.conf".to_owned(),
                    ));
                }
                other => return Err(self.unexpected("login", &other)),
            }
        }
        loop {
            match self.recv()? {
                Message::ReadyForQuery(_) => return Ok(()),
                Message::BackendKeyData(_) => {}
                Message::ErrorResponse(body) => {
                    self.broken = true;
                    return Err(refused(server_error(&body).to_string()));
                }
                other => return Err(self.unexpected("login", &other)),
            }
        }
    }

    fn unexpected(&mut self, during: &str, message: &Message) -> PgError {
        self.broken = true;
        let name = match message {
            Message::DataRow(_) => "DataRow",
            Message::CommandComplete(_) => "CommandComplete",
            Message::RowDescription(_) => "RowDescription",
            Message::ReadyForQuery(_) => "ReadyForQuery",
            Message::CopyInResponse(_) | Message::CopyOutResponse(_) => "COPY",
            _ => "another message",
        };
        PgError::Protocol(format!("{name} during {during}"))
    }

    fn send(&mut self) -> Result<(), PgError> {
        let result = self.stream.write_all(&self.write).and_then(|()| self.stream.flush());
        self.write.clear();
        result.map_err(|e| {
            self.broken = true;
            PgError::Io(e)
        })
    }

    /// The next message that matters (notices and parameter changes are
    /// noted and skipped).
    fn recv(&mut self) -> Result<Message, PgError> {
        loop {
            match Message::parse(&mut self.read) {
                Ok(Some(Message::NoticeResponse(_))) | Ok(Some(Message::NotificationResponse(_))) => continue,
                Ok(Some(Message::ParameterStatus(body))) => {
                    if body.name().ok() == Some("server_version")
                        && let Ok(v) = body.value()
                    {
                        self.server_version = v.to_owned();
                    }
                    continue;
                }
                Ok(Some(m)) => return Ok(m),
                Ok(None) => {}
                Err(e) => {
                    self.broken = true;
                    return Err(PgError::Protocol(e.to_string()));
                }
            }
            let n = match self.stream.read(&mut self.scratch) {
                Ok(0) => {
                    self.broken = true;
                    return Err(PgError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    )));
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.broken = true;
                    return Err(PgError::Io(e));
                }
            };
            self.read.extend_from_slice(&self.scratch[..n]);
        }
    }

    /// Reads to the `ReadyForQuery` after an error, so the next call starts
    /// clean; answers `error`.
    fn drain(&mut self, error: PgError) -> PgError {
        if self.broken {
            return error;
        }
        loop {
            match self.recv() {
                Ok(Message::ReadyForQuery(_)) => return error,
                Ok(_) => {}
                Err(_) => return error,
            }
        }
    }

    /// Runs one or more SQL commands with the simple query protocol,
    /// ignoring any rows; the first error is returned.
    pub fn batch_execute(&mut self, sql: &str) -> Result<(), PgError> {
        self.simple_query(sql).map(|_| ())
    }

    /// Runs SQL with the simple query protocol: every row of every
    /// command, as text.
    pub fn simple_query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, PgError> {
        frontend::query(sql, &mut self.write)?;
        self.send()?;
        let mut rows = Vec::new();
        let mut error = None;
        loop {
            match self.recv()? {
                Message::ReadyForQuery(_) => break,
                Message::DataRow(body) => {
                    let row = Row::new(body)?;
                    rows.push((0..row.len()).map(|i| row.text(i).map(str::to_owned)).collect());
                }
                Message::ErrorResponse(body) => {
                    error.get_or_insert(PgError::Server(Box::new(server_error(&body))));
                }
                Message::CopyInResponse(_) => {
                    frontend::copy_fail("COPY is not run through simple_query", &mut self.write)?;
                    self.send()?;
                }
                _ => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(rows),
        }
    }

    /// Prepares `sql` (parameters `$1`, `$2`, …; `param_types` may name
    /// some or all of their types, 0 lets the server infer one).
    pub fn prepare(&mut self, sql: &str, param_types: &[u32]) -> Result<Statement, PgError> {
        self.statements += 1;
        let name = format!("copycat_{}", self.statements);
        frontend::parse(&name, sql, param_types.iter().copied(), &mut self.write)?;
        frontend::describe(b'S', &name, &mut self.write)?;
        frontend::sync(&mut self.write);
        self.send()?;
        let mut statement = Statement {
            name,
            params: Vec::new(),
            columns: Vec::new(),
        };
        loop {
            match self.recv()? {
                Message::ParseComplete | Message::NoData => {}
                Message::ParameterDescription(body) => {
                    statement.params = body.parameters().collect().map_err(io_error)?;
                }
                Message::RowDescription(body) => {
                    let mut fields = body.fields();
                    while let Some(f) = fields.next().map_err(io_error)? {
                        statement.columns.push(Column {
                            name: f.name().to_owned(),
                            type_oid: f.type_oid(),
                            type_modifier: f.type_modifier(),
                            table_oid: f.table_oid(),
                            column_id: f.column_id(),
                        });
                    }
                }
                Message::ReadyForQuery(_) => return Ok(statement),
                Message::ErrorResponse(body) => {
                    let e = PgError::Server(Box::new(server_error(&body)));
                    return Err(self.drain(e));
                }
                other => return Err(self.unexpected("prepare", &other)),
            }
        }
    }

    fn bind(&mut self, portal: &str, statement: &Statement, params: &[Param], results: &[i16]) -> Result<(), PgError> {
        frontend::bind(
            portal,
            &statement.name,
            params.iter().map(Param::format),
            params.iter(),
            |p, buf: &mut BytesMut| match p {
                Param::Null => Ok(IsNull::Yes),
                Param::Text(s) => {
                    buf.put_slice(s.as_bytes());
                    Ok(IsNull::No)
                }
                Param::Binary(b) => {
                    buf.put_slice(b);
                    Ok(IsNull::No)
                }
            },
            results.iter().copied(),
            &mut self.write,
        )
        .map_err(|e| match e {
            frontend::BindError::Conversion(e) => PgError::Protocol(e.to_string()),
            frontend::BindError::Serialization(e) => PgError::Io(e),
        })
    }

    /// Runs a prepared statement once; every row, columns in `results`'
    /// formats (one code for all, one per column, or none for text).
    pub fn query(&mut self, statement: &Statement, params: &[Param], results: &[i16]) -> Result<Vec<Row>, PgError> {
        self.bind("", statement, params, results)?;
        frontend::execute("", 0, &mut self.write)?;
        frontend::sync(&mut self.write);
        self.send()?;
        let mut rows = Vec::new();
        let mut error = None;
        loop {
            match self.recv()? {
                Message::ReadyForQuery(_) => break,
                Message::DataRow(body) => rows.push(Row::new(body)?),
                Message::ErrorResponse(body) => {
                    error.get_or_insert(PgError::Server(Box::new(server_error(&body))));
                }
                _ => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(rows),
        }
    }

    /// Runs a prepared statement once per row of parameters, pipelined: one
    /// round trip per thousand rows or per MiB of request, not per row.
    /// Answers the rows the commands affected. On the first refused row the
    /// rest are skipped by the server (inside a transaction, the
    /// transaction is then aborted); the error names the row.
    pub fn execute_pipeline<'a>(
        &mut self,
        statement: &Statement,
        rows: impl IntoIterator<Item = &'a [Param]>,
    ) -> Result<u64, PipelineError> {
        let whole = |error| PipelineError { index: None, error };
        let mut rows = rows.into_iter().peekable();
        let mut done = 0usize;
        let mut affected_rows = 0u64;
        while rows.peek().is_some() {
            let mut sent = 0usize;
            while sent < PIPELINE_ROWS && self.write.len() < PIPELINE_BYTES {
                let Some(params) = rows.next() else { break };
                self.bind("", statement, params, &[]).map_err(whole)?;
                frontend::execute("", 0, &mut self.write).map_err(|e| whole(e.into()))?;
                sent += 1;
            }
            frontend::sync(&mut self.write);
            self.send().map_err(whole)?;
            let mut completed = 0usize;
            let mut error = None;
            loop {
                match self.recv().map_err(whole)? {
                    Message::ReadyForQuery(_) => break,
                    Message::CommandComplete(body) => {
                        completed += 1;
                        affected_rows += body.tag().map(affected).unwrap_or(0);
                    }
                    Message::ErrorResponse(body) => {
                        error.get_or_insert(PipelineError {
                            index: Some(done + completed),
                            error: PgError::Server(Box::new(server_error(&body))),
                        });
                    }
                    _ => {}
                }
            }
            if let Some(e) = error {
                return Err(e);
            }
            done += sent;
        }
        Ok(affected_rows)
    }

    /// `COPY … FROM STDIN` (text format) with `data`, its rows; answers the
    /// rows copied. A refused row fails the whole command (and, inside a
    /// transaction, aborts it); the server's message names the line.
    pub fn copy_in(&mut self, sql: &str, data: &[u8]) -> Result<u64, PgError> {
        frontend::query(sql, &mut self.write)?;
        self.send()?;
        let mut error = None;
        let mut copied = 0;
        match self.recv()? {
            Message::CopyInResponse(_) => {
                for chunk in data.chunks(256 * 1024) {
                    frontend::CopyData::new(chunk)?.write(&mut self.write);
                    self.send()?;
                }
                frontend::copy_done(&mut self.write);
                self.send()?;
            }
            Message::ErrorResponse(body) => error = Some(PgError::Server(Box::new(server_error(&body)))),
            other => return Err(self.unexpected("COPY", &other)),
        }
        loop {
            match self.recv()? {
                Message::ReadyForQuery(_) => break,
                Message::CommandComplete(body) => copied = body.tag().map(affected).unwrap_or(0),
                Message::ErrorResponse(body) => {
                    error.get_or_insert(PgError::Server(Box::new(server_error(&body))));
                }
                _ => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(copied),
        }
    }

    /// Binds `statement` to the portal `portal` for reading in steps with
    /// [`Client::fetch`]. A portal lives until its transaction ends: call it
    /// inside `BEGIN` … `COMMIT`.
    pub fn open_portal(
        &mut self,
        portal: &str,
        statement: &Statement,
        params: &[Param],
        results: &[i16],
    ) -> Result<(), PgError> {
        self.bind(portal, statement, params, results)?;
        frontend::sync(&mut self.write);
        self.send()?;
        let mut error = None;
        loop {
            match self.recv()? {
                Message::ReadyForQuery(_) => break,
                Message::BindComplete => {}
                Message::ErrorResponse(body) => {
                    error.get_or_insert(PgError::Server(Box::new(server_error(&body))));
                }
                other => return Err(self.unexpected("bind", &other)),
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The next at most `max_rows` rows of `portal`, and whether more
    /// remain (the portal was suspended rather than completed).
    pub fn fetch(&mut self, portal: &str, max_rows: i32) -> Result<(Vec<Row>, bool), PgError> {
        frontend::execute(portal, max_rows, &mut self.write)?;
        frontend::sync(&mut self.write);
        self.send()?;
        let mut rows = Vec::new();
        let mut more = false;
        let mut error = None;
        loop {
            match self.recv()? {
                Message::ReadyForQuery(_) => break,
                Message::DataRow(body) => rows.push(Row::new(body)?),
                Message::PortalSuspended => more = true,
                Message::CommandComplete(_) | Message::EmptyQueryResponse => {}
                Message::ErrorResponse(body) => {
                    error.get_or_insert(PgError::Server(Box::new(server_error(&body))));
                }
                other => return Err(self.unexpected("fetch", &other)),
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok((rows, more)),
        }
    }

    /// Ends the session politely.
    pub fn close(mut self) {
        frontend::terminate(&mut self.write);
        let _ = self.send();
    }
}
