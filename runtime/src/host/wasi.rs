//! The task's WASI 0.2 context, built from its connector's [`Grants`], and
//! the `wasi:http` gate.
//!
//! * Files: each granted directory is preopened under its own host path
//!   (`grants.fs.read` read-only, `grants.fs.write` read-write); nothing
//!   else of the host's file system exists for the guest.
//! * Sockets: TCP only, and only `connect` to the addresses of
//!   `grants.net.connect` (host names resolved when the task starts). No UDP,
//!   no listening. Name lookup only when a grant names a host.
//! * `wasi:http`: requests go out only to `grants.http.hosts`; any other
//!   fails with the WASI error `HTTP-request-denied`.
//! * Environment: only the variables named in `grants.env`. Never arguments.
//! * stdout and stderr: the streams the caller passes (the task's log).

use std::collections::HashSet;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};

use ipnet::IpNet;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::cli::StdoutStream;
use wasmtime_wasi::sockets::SocketAddrUse;
use wasmtime_wasi::{FsPerms, WasiCtx};
use wasmtime_wasi_http::{RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks, default_hooks};

use super::grants::{self, GrantError, Grants, HttpGrants, NetGrants, NetHost};

/// Build the WASI context of one task: deny-by-default, opened up by
/// `grants`. Fails (naming the key) when a granted directory cannot be
/// opened any more.
pub fn build(
    grants: &Grants,
    stdout: impl StdoutStream + 'static,
    stderr: impl StdoutStream + 'static,
) -> Result<WasiCtx, GrantError> {
    let mut b = WasiCtx::builder();
    b.stdout(stdout).stderr(stderr);
    // Guests are called synchronously on their task's own thread (never on
    // a tokio worker), so a blocking filesystem call may block that thread.
    // Without this, each open, stat, read and sync went through tokio's
    // `spawn_blocking` and back, a thread hand-over each (file-sink's
    // throughput: 0.55 -> 0.63 of a raw consumer, docs/BENCHMARKS.md).
    // wasmtime-wasi spawns file stream writes whatever this says; the
    // linker's own file streams ([`super::file_streams`]) write inline.
    // Must precede the preopens, which take the setting with them.
    b.allow_blocking_current_thread(true);
    for (dir, writable) in grants.fs.preopens() {
        let (key, perms) = if writable {
            (grants::FS_WRITE, FsPerms::ReadWrite)
        } else {
            (grants::FS_READ, FsPerms::ReadOnly)
        };
        let guest = dir.to_str().ok_or_else(|| GrantError {
            key,
            message: format!("'{}' is not valid UTF-8", dir.display()),
        })?;
        b.preopened_dir(dir, guest, perms).map_err(|e| GrantError {
            key,
            message: format!("cannot open the directory '{guest}': {e:#}"),
        })?;
    }
    let rules = Arc::new(resolve(&grants.net));
    let warned = Arc::new(Mutex::new(Warned::default()));
    b.allow_tcp(!grants.net.connect.is_empty())
        .allow_udp(false)
        .allow_ip_name_lookup(grants.net.names_a_host())
        .socket_addr_check(move |addr, use_| {
            let allowed = match use_ {
                SocketAddrUse::TcpConnect => {
                    let ok = connect_allowed(&rules, addr);
                    if !ok && warned.lock().is_ok_and(|mut w| w.first(addr)) {
                        tracing::warn!(%addr, "TCP connection denied: not in {}", grants::NET_CONNECT);
                    }
                    ok
                }
                // The implicit bind of an outgoing connection (wildcard
                // address, port 0); explicit binds and listening are denied.
                SocketAddrUse::TcpBind => addr.ip().is_unspecified() && addr.port() == 0,
                _ => false,
            };
            Box::pin(async move { allowed })
        });
    for name in &grants.env.names {
        match std::env::var_os(name).map(|v| v.into_string()) {
            None => {}
            Some(Ok(value)) => {
                b.env(name, value);
            }
            Some(Err(_)) => tracing::warn!(
                variable = %name,
                "{}: the variable is not valid UTF-8; not passed to the connector",
                grants::ENV
            ),
        }
    }
    Ok(b.build())
}

/// Denials already logged: each target is logged once per task (a
/// connector retrying in a loop must not flood the log), and at most
/// [`Warned::MAX`] targets.
#[derive(Debug)]
struct Warned<T> {
    seen: HashSet<T>,
}

impl<T> Default for Warned<T> {
    fn default() -> Self {
        Self { seen: HashSet::new() }
    }
}

impl<T: std::hash::Hash + Eq> Warned<T> {
    const MAX: usize = 32;

    /// Whether `target` is denied for the first time (and should be logged).
    fn first(&mut self, target: T) -> bool {
        self.seen.len() < Self::MAX && self.seen.insert(target)
    }
}

/// A granted network with its port (`None`: any).
#[derive(Debug, Clone, PartialEq, Eq)]
struct NetRule {
    net: IpNet,
    port: Option<u16>,
}

/// The grants as address rules: host names resolved now. A name that does
/// not resolve is logged and grants nothing.
fn resolve(grants: &NetGrants) -> Vec<NetRule> {
    let mut rules = Vec::new();
    for target in &grants.connect {
        match &target.host {
            NetHost::Net(net) => rules.push(NetRule {
                net: *net,
                port: target.port,
            }),
            NetHost::Name(name) => match (name.as_str(), target.port.unwrap_or(0)).to_socket_addrs() {
                Ok(addrs) => {
                    for addr in addrs {
                        let rule = NetRule {
                            net: IpNet::from(addr.ip().to_canonical()),
                            port: target.port,
                        };
                        if !rules.contains(&rule) {
                            rules.push(rule);
                        }
                    }
                }
                Err(e) => tracing::warn!(
                    host = %name,
                    "{}: cannot resolve '{name}' ({e}); connections to it are denied",
                    grants::NET_CONNECT
                ),
            },
        }
    }
    rules
}

fn connect_allowed(rules: &[NetRule], addr: SocketAddr) -> bool {
    let ip = addr.ip().to_canonical();
    rules
        .iter()
        .any(|r| r.net.contains(&ip) && r.port.is_none_or(|p| p == addr.port()))
}

/// The `wasi:http` state of a task: the context and the grant check.
pub(crate) struct HttpState {
    ctx: WasiHttpCtx,
    gate: HttpGate,
}

impl HttpState {
    /// The `wasi:http` view over this state and the task's `table`.
    pub(crate) fn view<'a>(&'a mut self, table: &'a mut ResourceTable) -> WasiHttpCtxView<'a> {
        WasiHttpCtxView {
            ctx: &mut self.ctx,
            table,
            hooks: &mut self.gate,
        }
    }

    /// `fields_max_bytes`: `task.http.fields.max.bytes`.
    pub(crate) fn new(grants: &HttpGrants, fields_max_bytes: usize) -> Self {
        let mut ctx = WasiHttpCtx::new();
        ctx.set_field_size_limit(fields_max_bytes);
        Self {
            ctx,
            gate: HttpGate {
                grants: grants.clone(),
                warned: Warned::default(),
            },
        }
    }
}

/// Sends only the requests `grants.http.hosts` allows.
struct HttpGate {
    grants: HttpGrants,
    warned: Warned<String>,
}

type SendFuture = Box<
    dyn Future<
            Output = wasmtime_wasi_http::Result<(
                http::Response<WasiBody>,
                Box<dyn Future<Output = wasmtime_wasi_http::Result<()>> + Send>,
            )>,
        > + Send,
>;

/// Bytes one write to an outgoing body's stream may hand over, and so (with
/// [`OUTGOING_BODY_CHUNKS`]) what one outgoing body buffers in the host:
/// wasmtime-wasi-http's defaults (1 MiB, one chunk) let a guest park 2 MiB
/// per body handle.
const OUTGOING_BODY_CHUNK: usize = 16 * 1024;
const OUTGOING_BODY_CHUNKS: usize = 1;

impl WasiHttpHooks for HttpGate {
    fn p2_outgoing_body_buffer_chunks(&mut self) -> usize {
        OUTGOING_BODY_CHUNKS
    }

    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        OUTGOING_BODY_CHUNK
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = wasmtime_wasi_http::Result<()>> + Send>,
    ) -> SendFuture {
        let uri = request.uri();
        let https = uri.scheme() == Some(&http::uri::Scheme::HTTPS);
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let allowed = uri.host().is_some_and(|host| self.grants.allows(host, port));
        if allowed {
            return default_hooks().send_request(request, options, fut);
        }
        if self.warned.first(format!("{}:{port}", uri.host().unwrap_or_default())) {
            tracing::warn!(
                uri = %uri,
                "wasi:http request denied: its host is not in {}",
                grants::HTTP_HOSTS
            );
        }
        // The guest writes the body after `handle` returned: read to its
        // end (and dropped) before the denial, or its writes fail as on a
        // closed connection and the guest never sees `HTTP-request-denied`.
        let mut body = request.into_body();
        Box::new(async move {
            use http_body::Body as _;
            while let Some(Ok(_)) = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {}
            Err(wasmtime_wasi_http::Error::HttpRequestDenied)
        })
    }
}

/// The interface whose `handle` [`add_handle_to_linker`] shadows, at the
/// version wasmtime-wasi-http 48 links.
const OUTGOING_HANDLER: &str = "wasi:http/outgoing-handler@0.2.12";

/// `wasi:http/outgoing-handler.handle` as wasmtime-wasi-http's, with the
/// request options it is handed (an owned resource: timeouts) dropped
/// afterwards. wasmtime-wasi-http 48 only reads them, so every request with
/// options left an entry in the task's resource table, and a task sending
/// them (wstd with a timeout) failed at `task.host.handles.max` after about
/// a thousand requests.
pub(crate) fn add_handle_to_linker<T: wasmtime_wasi_http::WasiHttpView + 'static>(
    linker: &mut wasmtime::component::Linker<T>,
) -> wasmtime::Result<()> {
    use wasmtime::component::Resource;
    use wasmtime_wasi_http::p2::bindings::http::{outgoing_handler, types};
    use wasmtime_wasi_http::p2::types::HostOutgoingRequest;
    linker.allow_shadowing(true);
    let added = linker.instance(OUTGOING_HANDLER).and_then(|mut handler| {
        handler.func_wrap(
            "handle",
            |mut store: wasmtime::StoreContextMut<'_, T>,
             (request, options): (
                Resource<HostOutgoingRequest>,
                Option<Resource<wasmtime_wasi_http::RequestOptions>>,
            )| {
                let rep = options.as_ref().map(Resource::rep);
                let mut view = store.data_mut().http();
                let sent = outgoing_handler::Host::handle(&mut view, request, options);
                if let Some(rep) = rep {
                    let _ = view
                        .table
                        .delete(Resource::<wasmtime_wasi_http::RequestOptions>::new_own(rep));
                }
                let sent = match sent {
                    Ok(future) => Ok(future),
                    Err(e) => Err(types::Host::convert_error_code(&mut view, e)?),
                };
                Ok((sent,))
            },
        )
    });
    linker.allow_shadowing(false);
    added
}

/// The interface whose `finish-connect` [`add_tcp_nodelay_to_linker`]
/// shadows, at the version wasmtime-wasi 48 links.
const TCP: &str = "wasi:sockets/tcp@0.2.12";

/// `wasi:sockets/tcp.tcp-socket.finish-connect` as wasmtime-wasi's, with
/// `TCP_NODELAY` set on the connected socket. WASI 0.2 has no such option
/// and wasmtime-wasi 48 leaves Nagle's algorithm on, so the last segment of
/// a guest's message longer than a segment waited for the peer's delayed
/// ACK (~40 ms on Linux): postgres-sink's 130 KB batches took 50–60 ms each
/// instead of ~7 ms, which bounded the sink at ~27 k rows/s. Connectors
/// speak request–response protocols; none wants Nagle.
pub(crate) fn add_tcp_nodelay_to_linker<T: wasmtime_wasi::WasiView + 'static>(
    linker: &mut wasmtime::component::Linker<T>,
) -> wasmtime::Result<()> {
    use wasmtime::component::Resource;
    use wasmtime_wasi::p2::bindings::sync::sockets::network::Host as _;
    use wasmtime_wasi::p2::bindings::sync::sockets::tcp::HostTcpSocket;
    use wasmtime_wasi::sockets::WasiSocketsView as _;
    linker.allow_shadowing(true);
    let added = linker.instance(TCP).and_then(|mut tcp| {
        tcp.func_wrap(
            "[method]tcp-socket.finish-connect",
            |mut store: wasmtime::StoreContextMut<'_, T>, (this,): (Resource<wasmtime_wasi::p2::TcpSocket>,)| {
                let rep = this.rep();
                let mut view = store.data_mut().sockets();
                let connected = match HostTcpSocket::finish_connect(&mut view, this) {
                    Ok(streams) => {
                        let local = HostTcpSocket::local_address(&mut view, Resource::new_borrow(rep));
                        let remote = HostTcpSocket::remote_address(&mut view, Resource::new_borrow(rep));
                        if let (Ok(local), Ok(remote)) = (local, remote) {
                            set_nodelay(local.into(), remote.into());
                        }
                        Ok(streams)
                    }
                    Err(e) => Err(view.convert_error_code(e)?),
                };
                Ok((connected,))
            },
        )
    });
    linker.allow_shadowing(false);
    added
}

/// Sets `TCP_NODELAY` on this process's TCP socket connected from `local`
/// to `remote`. wasmtime-wasi keeps the socket to itself, so it is found
/// by its addresses among the process's descriptors, duplicated with
/// `pidfd_getfd` (no `unsafe`). Best effort: a kernel without `pidfd_getfd`
/// (before 5.6) or a seccomp filter that refuses it leaves Nagle on.
fn set_nodelay(local: std::net::SocketAddr, remote: std::net::SocketAddr) {
    use rustix::process::{PidfdFlags, PidfdGetfdFlags, getpid, pidfd_getfd, pidfd_open};
    let Ok(me) = pidfd_open(getpid(), PidfdFlags::empty()) else {
        tracing::debug!("pidfd_open failed: TCP_NODELAY not set on {local} -> {remote}");
        return;
    };
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let addr =
        |a: rustix::io::Result<rustix::net::SocketAddrAny>| a.ok().and_then(|a| std::net::SocketAddr::try_from(a).ok());
    for entry in fds.flatten() {
        let Some(n) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(fd) = pidfd_getfd(&me, n, PidfdGetfdFlags::empty()) else {
            continue;
        };
        if addr(rustix::net::getsockname(&fd)) == Some(local)
            && rustix::net::getpeername(&fd)
                .ok()
                .flatten()
                .and_then(|a| std::net::SocketAddr::try_from(a).ok())
                == Some(remote)
        {
            if let Err(e) = rustix::net::sockopt::set_tcp_nodelay(&fd, true) {
                tracing::debug!("TCP_NODELAY on {local} -> {remote}: {e}");
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connector::Props;

    fn grants(pairs: &[(&str, &str)]) -> Grants {
        let props: Props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Grants::from_props(&props).unwrap_or_default()
    }

    #[test]
    fn connect_rules_match_addresses_and_ports() {
        let g = grants(&[(
            grants::NET_CONNECT,
            "127.0.0.1:9092, 10.1.0.0/16:*, [::1]:80, localhost:7000",
        )]);
        let rules = resolve(&g.net);
        let ok = |s: &str| connect_allowed(&rules, s.parse().unwrap_or_else(|_| SocketAddr::from(([0; 4], 0))));
        assert!(ok("127.0.0.1:9092"));
        assert!(!ok("127.0.0.1:9093"));
        assert!(!ok("127.0.0.2:9092"));
        assert!(ok("10.1.200.3:1"));
        assert!(!ok("10.2.0.1:1"));
        assert!(ok("[::1]:80"));
        assert!(ok("[::ffff:127.0.0.1]:9092"), "IPv4-mapped addresses count as IPv4");
        assert!(ok("127.0.0.1:7000"), "localhost was resolved");
        assert!(!ok("127.0.0.1:7001"));
        assert!(resolve(&grants(&[]).net).is_empty());
    }

    #[test]
    fn a_vanished_directory_fails_naming_the_key() {
        let dir = std::env::temp_dir().join(format!("copycat-wasi-gone-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        let g = grants(&[(grants::FS_READ, dir.to_str().unwrap_or("/nonexistent"))]);
        assert_eq!(g.fs.read.len(), 1);
        assert!(build(&g, std::io::empty(), std::io::empty()).is_ok());
        let _ = std::fs::remove_dir(&dir);
        match build(&g, std::io::empty(), std::io::empty()) {
            Err(e) => assert_eq!(e.key, grants::FS_READ, "{e}"),
            Ok(_) => panic!("preopening a removed directory succeeded"),
        }
    }
}
