//! `agent-surface bridge`: an MCP server (stdio, or Streamable HTTP with `--http`) whose tools
//! are those of live pages.
//!
//! A page runs the engine in its own registry; `connectAgentBridge(registry, { url, token })`
//! (`@agent-surface/core/bridge`) connects it to this process over a loopback WebSocket and
//! serves its toolset (consumer kind `mcp-bridge`, two-phase confirmations). The bridge maps
//! MCP onto that socket and back; it runs no handler and holds no capability itself, so every
//! rule of the page's pipeline — staleness, dedupe, queues, confirmations in the page's own UI —
//! applies to calls from the MCP client.
//!
//! Modules, each importing only those before it: [`token`], [`origin`], [`protocol`] (the
//! page protocol), [`hub`] (pages, catalogs, clients, calls in flight), [`mcp`] (the rmcp
//! server), [`ws`] (a page's socket), [`http`] (the listener: page upgrades and `/mcp`).
//! docs/bridge.md describes the protocol and how clients address pages.

pub mod http;
pub mod hub;
pub mod mcp;
pub mod origin;
pub mod protocol;
pub mod stdio;
pub mod token;
pub mod ws;

use hub::{Hub, Log};
use rmcp::ServiceExt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The environment variable that fixes the bridge's token (else a fresh one per start).
pub const TOKEN_ENV: &str = "AGENT_SURFACE_BRIDGE_TOKEN";

/// The command line's options.
#[derive(Clone, Debug)]
pub struct BridgeOptions {
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// Exact origins; empty means `http://localhost:*` and `http://127.0.0.1:*`.
    pub allow_origins: Vec<String>,
    /// A token given by the user ([`TOKEN_ENV`]); `None` draws a fresh one.
    pub token: Option<String>,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        BridgeOptions { host: "127.0.0.1".into(), port: 0, allow_origins: Vec::new(), token: None }
    }
}

/// A bridge whose listener is bound (nothing served yet).
pub struct Bridge {
    /// `ws://HOST:PORT`
    pub url: String,
    /// `http://HOST:PORT/mcp` (served by [`Bridge::serve_http`]).
    pub mcp_url: String,
    pub token: String,
    pub port: u16,
    pub hub: Arc<Hub>,
    listener: tokio::net::TcpListener,
    gate: Arc<ws::Gate>,
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl Bridge {
    /// Binds the listener and draws a fresh token (unless `options.token` gives one). `log`
    /// receives every `bridge: …` line.
    pub async fn bind(options: BridgeOptions, log: Log) -> std::io::Result<Bridge> {
        let token = match options.token {
            Some(t) => token::check_given(&t).map_err(std::io::Error::other)?,
            None => token::new_token()?,
        };
        let session = token::new_session_id()?;
        let listener = match options.host.parse::<IpAddr>() {
            Ok(ip) => tokio::net::TcpListener::bind(SocketAddr::new(ip, options.port)).await?,
            Err(_) => tokio::net::TcpListener::bind((options.host.as_str(), options.port)).await?,
        };
        let port = listener.local_addr()?.port();
        if !is_loopback(&options.host) {
            log(&format!("bridge: warning: listening on {}, which is not a loopback address", options.host));
        }
        let shown = if options.host.contains(':') { format!("[{}]", options.host) } else { options.host.clone() };
        let gate = Arc::new(ws::Gate {
            token: token.clone(),
            origins: origin::OriginPolicy { allowed: options.allow_origins },
            host: shown.clone(),
            port,
        });
        Ok(Bridge {
            url: format!("ws://{shown}:{port}"),
            mcp_url: format!("http://{shown}:{port}{}", http::MCP_PATH),
            token,
            port,
            hub: Hub::new(log, session),
            listener,
            gate,
        })
    }

    /// The line the binary prints on stderr: `bridge: ws://127.0.0.1:PORT token=TOKEN`.
    pub fn banner(&self) -> String {
        format!("bridge: {} token={}", self.url, self.token)
    }

    /// The second line with `--http`: `bridge: mcp http://127.0.0.1:PORT/mcp`.
    pub fn http_banner(&self) -> String {
        format!("bridge: mcp {}", self.mcp_url)
    }

    /// Serves pages on the listener and MCP on `transport` until the MCP client goes away.
    pub async fn run<T, E, A>(self, transport: T) -> std::io::Result<()>
    where
        T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let pages = tokio::spawn(http::serve(self.listener, self.hub.clone(), self.gate, None));
        let server = mcp::BridgeServer::new(self.hub.clone(), false);
        let transport = stdio::PingGate::new(rmcp::transport::IntoTransport::into_transport(transport));
        let running =
            server.serve(transport).await.map_err(|e| std::io::Error::other(format!("MCP initialization: {e}")))?;
        let _ = running.waiting().await;
        pages.abort();
        Ok(())
    }

    /// Serves pages and MCP Streamable HTTP (`/mcp`) on the listener until the task is aborted.
    pub async fn serve_http(self) {
        let mcp = http::mcp_service(self.hub.clone());
        http::serve(self.listener, self.hub, self.gate, Some(mcp)).await
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, std::process::ExitCode> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(|e| {
        eprintln!("error: bridge: cannot start the runtime: {e}");
        std::process::ExitCode::from(1)
    })
}

async fn bind_or_exit(options: &BridgeOptions) -> Result<Bridge, std::process::ExitCode> {
    let log: Log = Arc::new(|line: &str| eprintln!("{line}"));
    Bridge::bind(options.clone(), log).await.map_err(|e| {
        if options.token.is_some() && e.kind() == std::io::ErrorKind::Other {
            eprintln!("error: bridge: {TOKEN_ENV}: {e}");
        } else {
            eprintln!("error: bridge: cannot listen on {}:{}: {e}", options.host, options.port);
        }
        std::process::ExitCode::from(2)
    })
}

/// `agent-surface bridge`: the MCP server on stdin/stdout, log lines on stderr.
pub fn run_stdio(options: BridgeOptions) -> std::process::ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async move {
        let bridge = match bind_or_exit(&options).await {
            Ok(b) => b,
            Err(code) => return code,
        };
        eprintln!("{}", bridge.banner());
        match bridge.run(rmcp::transport::stdio()).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: bridge: {e}");
                std::process::ExitCode::from(1)
            }
        }
    })
}

/// `agent-surface bridge --http`: MCP Streamable HTTP on `/mcp` of the pages' port, log lines
/// on stderr, until SIGINT or SIGTERM (stdin is not read).
pub fn run_http(options: BridgeOptions) -> std::process::ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async move {
        let bridge = match bind_or_exit(&options).await {
            Ok(b) => b,
            Err(code) => return code,
        };
        // Listening for the signals before the banner: a supervisor may stop the bridge as soon
        // as it has read it.
        let shutdown = shutdown_signal();
        eprintln!("{}", bridge.banner());
        eprintln!("{}", bridge.http_banner());
        let served = tokio::spawn(bridge.serve_http());
        shutdown.await;
        served.abort();
        std::process::ExitCode::SUCCESS
    })
}

/// SIGINT or SIGTERM. The handlers are installed when this is called, not when it is first
/// polled (tokio's `ctrl_c()` installs its own lazily), so a signal sent right after is caught.
fn shutdown_signal() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
            return Box::pin(async move {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            });
        }
    }
    Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
