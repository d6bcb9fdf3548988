//! `agent-surface bridge`: an MCP server over stdio whose tools are those of live pages.
//!
//! A page runs the engine in its own registry; `connectAgentBridge(registry, { url, token })`
//! (`@agent-surface/core/bridge`) connects it to this process over a loopback WebSocket and
//! serves its toolset (consumer kind `mcp-bridge`, two-phase confirmations). The bridge maps
//! MCP onto that socket and back; it runs no handler and holds no capability itself, so every
//! rule of the page's pipeline — staleness, dedupe, queues, confirmations in the page's own UI —
//! applies to calls from the MCP client.
//!
//! Modules, each importing only those before it: [`token`], [`origin`], [`protocol`] (the
//! page protocol), [`hub`] (pages, catalogs, calls in flight), [`mcp`] (the rmcp server),
//! [`ws`] (the listener). docs/bridge.md describes the protocol and how clients address pages.

pub mod hub;
pub mod mcp;
pub mod origin;
pub mod protocol;
pub mod token;
pub mod ws;

use hub::{Hub, Log};
use rmcp::ServiceExt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The command line's options.
#[derive(Clone, Debug)]
pub struct BridgeOptions {
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// Exact origins; empty means `http://localhost:*` and `http://127.0.0.1:*`.
    pub allow_origins: Vec<String>,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        BridgeOptions { host: "127.0.0.1".into(), port: 0, allow_origins: Vec::new() }
    }
}

/// A bridge whose WebSocket listener is bound (the MCP side not yet served).
pub struct Bridge {
    /// `ws://HOST:PORT`
    pub url: String,
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
    /// Binds the listener and draws a fresh token. `log` receives every `bridge: …` line.
    pub async fn bind(options: BridgeOptions, log: Log) -> std::io::Result<Bridge> {
        let token = token::new_token()?;
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
        Ok(Bridge { url: format!("ws://{shown}:{port}"), token, port, hub: Hub::new(log, session), listener, gate })
    }

    /// The one line the binary prints on stderr: `bridge: ws://127.0.0.1:PORT token=TOKEN`.
    pub fn banner(&self) -> String {
        format!("bridge: {} token={}", self.url, self.token)
    }

    /// Serves pages on the listener and MCP on `transport` until the MCP client goes away.
    pub async fn run<T, E, A>(self, transport: T) -> std::io::Result<()>
    where
        T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let pages = tokio::spawn(ws::serve(self.listener, self.hub.clone(), self.gate));
        let server = mcp::BridgeServer { hub: self.hub.clone() };
        let running =
            server.serve(transport).await.map_err(|e| std::io::Error::other(format!("MCP initialization: {e}")))?;
        self.hub.set_peer(running.peer().clone());
        let _ = running.waiting().await;
        pages.abort();
        Ok(())
    }
}

/// `agent-surface bridge`: the MCP server on stdin/stdout, log lines on stderr.
pub fn run_stdio(options: BridgeOptions) -> std::process::ExitCode {
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: bridge: cannot start the runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    rt.block_on(async move {
        let log: Log = Arc::new(|line: &str| eprintln!("{line}"));
        let bridge = match Bridge::bind(options.clone(), log).await {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: bridge: cannot listen on {}:{}: {e}", options.host, options.port);
                return std::process::ExitCode::from(2);
            }
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
