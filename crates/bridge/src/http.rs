//! The listener: one loopback port, HTTP/1.1. A WebSocket upgrade is a page ([`crate::ws`]);
//! `/mcp` is the MCP Streamable HTTP endpoint when the bridge runs with `--http` (rmcp's
//! `StreamableHttpService`, which serves every revision it knows: sessions for 2025-11-25 and
//! older, stateless requests for 2026-07-28).
//!
//! Every `/mcp` request is checked before rmcp sees it, in this order: `Host` names this
//! listener by a loopback name (DNS rebinding), an `Origin`, when present (browsers send one),
//! is allowed like a page's, and `Authorization: Bearer <token>` carries the bridge's token.
//! A refusal answers 403 (host, origin) or 401 (token) and writes one `bridge: refused …` line,
//! which never contains the token.

use crate::hub::Hub;
use crate::mcp::BridgeServer;
use crate::origin::check_host;
use crate::protocol::truncate;
use crate::token::token_matches;
use crate::ws::{self, Gate};
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONNECTION, UPGRADE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::WebSocketStream;

pub type Mcp = StreamableHttpService<BridgeServer, LocalSessionManager>;
type Body = BoxBody<Bytes, Infallible>;

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// rmcp's Streamable HTTP service for this hub. Host and Origin are checked here (with the
/// bridge's own rules and messages) before rmcp sees a request, so rmcp's own checks are off.
pub fn mcp_service(hub: Arc<Hub>) -> Mcp {
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(crate::protocol::MAX_FRAME_BYTES);
    StreamableHttpService::new(move || Ok(BridgeServer::new(hub.clone(), true)), Arc::default(), config)
}

/// Accepts connections until the task is aborted.
pub async fn serve(listener: TcpListener, hub: Arc<Hub>, gate: Arc<Gate>, mcp: Option<Mcp>) {
    let mcp = Arc::new(mcp);
    loop {
        let Ok((stream, addr)) = listener.accept().await else { continue };
        // Small requests and answers back to back: without this, delayed ACKs add ~40 ms.
        let _ = stream.set_nodelay(true);
        let (hub, gate, mcp) = (hub.clone(), gate.clone(), mcp.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let (hub, gate, mcp) = (hub.clone(), gate.clone(), mcp.clone());
                async move { Ok::<_, Infallible>(handle(req, addr, hub, gate, mcp).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let _ = conn.await;
        });
    }
}

fn text(status: StatusCode, body: impl Into<String>) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(body.into())).boxed());
    *r.status_mut() = status;
    r
}

fn header<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

async fn handle(
    req: Request<Incoming>,
    addr: SocketAddr,
    hub: Arc<Hub>,
    gate: Arc<Gate>,
    mcp: Arc<Option<Mcp>>,
) -> Response<Body> {
    let upgrade = header(&req, "upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if upgrade {
        return upgrade_page(req, addr, hub, gate);
    }
    if req.uri().path() != MCP_PATH {
        hub.log(&format!(
            "bridge: refused {addr}: {} {} is neither a WebSocket handshake nor {MCP_PATH}",
            req.method(),
            truncate(req.uri().path(), 100)
        ));
        return text(StatusCode::NOT_FOUND, "not found: pages connect with a WebSocket, MCP clients to /mcp\n");
    }
    let Some(mcp) = mcp.as_ref() else {
        hub.log(&format!(
            "bridge: refused {addr}: {MCP_PATH} is served only with --http (this bridge speaks MCP on stdio)"
        ));
        return text(StatusCode::NOT_FOUND, "this bridge serves MCP on stdio; start it with --http for /mcp\n");
    };
    let refusal = check_host(header(&req, "host"), &gate.host, gate.port)
        .map_err(|why| (StatusCode::FORBIDDEN, why))
        .and_then(|()| match header(&req, "origin") {
            None => Ok(()),
            origin => gate.origins.check(origin).map_err(|why| (StatusCode::FORBIDDEN, why)),
        })
        .and_then(|()| {
            check_bearer(header(&req, "authorization"), &gate.token).map_err(|why| (StatusCode::UNAUTHORIZED, why))
        });
    if let Err((status, why)) = refusal {
        // Nothing the client sent is echoed unless it cannot be the token.
        let line = format!("bridge: refused {addr} ({} {MCP_PATH}): {why}", req.method());
        hub.log(&line.replace(&gate.token, "<token>"));
        let mut r = text(status, format!("{why}\n").replace(&gate.token, "<token>"));
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut()
                .insert("www-authenticate", HeaderValue::from_static("Bearer realm=\"agent-surface-bridge\""));
        }
        return r;
    }
    mcp.handle(req).await
}

/// `Authorization: Bearer <token>` with the bridge's token.
pub fn check_bearer(authorization: Option<&str>, token: &str) -> Result<(), String> {
    let Some(value) = authorization else {
        return Err("no Authorization header (send the bridge's token as Authorization: Bearer <token>)".into());
    };
    let presented = match value.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        _ => return Err("the Authorization header is not a Bearer token".into()),
    };
    if token_matches(token, presented) {
        Ok(())
    } else {
        Err("wrong bearer token".into())
    }
}

/// A page's WebSocket handshake: answered here (101), served by [`ws::page`] once upgraded.
fn upgrade_page(mut req: Request<Incoming>, addr: SocketAddr, hub: Arc<Hub>, gate: Arc<Gate>) -> Response<Body> {
    let key = header(&req, "sec-websocket-key").map(str::to_string);
    let version_ok = header(&req, "sec-websocket-version") == Some("13");
    let (Some(key), true) = (key, version_ok) else {
        hub.log(&format!(
            "bridge: refused {addr}: not a WebSocket handshake (Sec-WebSocket-Key and version 13 required)"
        ));
        return text(StatusCode::BAD_REQUEST, "not a WebSocket handshake\n");
    };
    let origin = header(&req, "origin").map(str::to_string);
    let host = header(&req, "host").map(str::to_string);
    let upgraded = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        match upgraded.await {
            Ok(io) => {
                let ws = WebSocketStream::from_raw_socket(TokioIo::new(io), Role::Server, Some(ws::config())).await;
                ws::page(ws, addr, origin, host, hub, gate).await;
            }
            Err(e) => hub.log(&format!("bridge: refused {addr}: the WebSocket upgrade failed ({e})")),
        }
    });
    let mut r = text(StatusCode::SWITCHING_PROTOCOLS, "");
    let h = r.headers_mut();
    h.insert(UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(accept) = HeaderValue::from_str(&derive_accept_key(key.as_bytes())) {
        h.insert("sec-websocket-accept", accept);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::check_bearer;

    #[test]
    fn bearer() {
        let t = "0123456789abcdef0123456789abcdef";
        assert!(check_bearer(Some(&format!("Bearer {t}")), t).is_ok());
        assert!(check_bearer(Some(&format!("bearer {t}")), t).is_ok());
        assert!(check_bearer(None, t).unwrap_err().contains("no Authorization"));
        assert!(check_bearer(Some(&format!("Basic {t}")), t).unwrap_err().contains("not a Bearer"));
        assert!(check_bearer(Some(t), t).unwrap_err().contains("not a Bearer"));
        let wrong = check_bearer(Some("Bearer 0123456789abcdef0123456789abcdee"), t).unwrap_err();
        assert_eq!(wrong, "wrong bearer token");
    }
}
