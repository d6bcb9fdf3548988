//! The page side: one WebSocket per page, upgraded by the listener ([`crate::http`]). Each
//! connection is checked (Host, Origin), authenticated by its first frame (`hello` with the
//! token), then serves frames both ways until it closes. Every refusal closes the socket with
//! 4401 (token) or 4403 (origin, host) and writes one `bridge: refused …` line.

use crate::hub::{Hub, Outgoing};
use crate::origin::{check_host, OriginPolicy};
use crate::protocol::truncate;
use crate::protocol::{self, PageFrame, CLOSE_BAD_PROTOCOL, CLOSE_FORBIDDEN, CLOSE_UNAUTHORIZED, HELLO_TIMEOUT_MS};
use crate::token::token_matches;
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

/// How often the bridge pings a page, and how long a silent page is kept.
const PING_EVERY: Duration = Duration::from_secs(10);
const SILENT_FOR: Duration = Duration::from_secs(35);

/// What every connection to the listener is checked against.
pub struct Gate {
    pub token: String,
    pub origins: OriginPolicy,
    pub host: String,
    pub port: u16,
}

pub fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(protocol::MAX_FRAME_BYTES))
        .max_frame_size(Some(protocol::MAX_FRAME_BYTES))
}

async fn close<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>, code: u16, reason: &str) {
    let frame = CloseFrame { code: CloseCode::from(code), reason: reason.to_string().into() };
    let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(Some(frame))).await;
}

/// One page's socket after the WebSocket handshake; `origin` and `host` are the handshake's
/// headers.
pub async fn page<S>(
    mut ws: WebSocketStream<S>,
    addr: SocketAddr,
    origin: Option<String>,
    host: Option<String>,
    hub: Arc<Hub>,
    gate: Arc<Gate>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    if let Err(why) =
        check_host(host.as_deref(), &gate.host, gate.port).and_then(|()| gate.origins.check(origin.as_deref()))
    {
        hub.log(&format!("bridge: refused {addr}: {why}"));
        close(&mut ws, CLOSE_FORBIDDEN, "origin not allowed").await;
        return;
    }
    let origin = origin.unwrap_or_default();
    // The first frame is the hello; nothing is served before it.
    let first = tokio::time::timeout(Duration::from_millis(HELLO_TIMEOUT_MS), next_text(&mut ws)).await;
    let hello = match first {
        Ok(Some(Ok(text))) => protocol::parse_page_frame(&text),
        Ok(Some(Err(e))) => Err(e),
        Ok(None) => Err("the socket closed before the hello".into()),
        Err(_) => Err(format!("no hello within {HELLO_TIMEOUT_MS} ms")),
    };
    let info = match hello {
        Ok(PageFrame::Hello { token, protocol: v, page }) => {
            if !token_matches(&gate.token, &token) {
                hub.log(&format!("bridge: refused {addr} ({origin}): wrong token"));
                close(&mut ws, CLOSE_UNAUTHORIZED, "wrong token").await;
                return;
            }
            if v != protocol::PROTOCOL {
                hub.log(&format!(
                    "bridge: refused {addr} ({origin}): protocol {v} (this bridge speaks {})",
                    protocol::PROTOCOL
                ));
                close(&mut ws, CLOSE_BAD_PROTOCOL, "unsupported protocol").await;
                return;
            }
            page
        }
        Ok(_) => {
            hub.log(&format!("bridge: refused {addr} ({origin}): the first frame is not a hello"));
            close(&mut ws, CLOSE_UNAUTHORIZED, "hello first").await;
            return;
        }
        Err(e) => {
            hub.log(&format!("bridge: refused {addr} ({origin}): {e}"));
            close(&mut ws, CLOSE_UNAUTHORIZED, "hello first").await;
            return;
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<Outgoing>();
    let title = info.title.clone();
    let (page, label) = hub.connect(info, tx.clone());
    hub.log(&format!(
        "bridge: page {label} connected ({origin}{})",
        if title.is_empty() { String::new() } else { format!(", {title:?}") }
    ));
    let _ = ws.send(Message::Text(protocol::welcome(&label).into())).await;
    let (mut sink, mut stream) = ws.split();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let mut last_heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Some(Outgoing::Text(text)) => {
                    if sink.send(Message::Text(text.into())).await.is_err() { break; }
                }
                Some(Outgoing::Close(code, reason)) => {
                    let _ = sink.send(Message::Close(Some(CloseFrame { code: CloseCode::from(code), reason: reason.into() }))).await;
                    break;
                }
                None => break,
            },
            msg = stream.next() => {
                last_heard = tokio::time::Instant::now();
                match msg {
                    Some(Ok(Message::Text(text))) => frame(&hub, page, &label, &tx, text.as_str()),
                    Some(Ok(Message::Binary(_))) => reject(&hub, &label, &tx, "binary frames are not part of the protocol (send JSON text)"),
                    Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(WsError::Capacity(e))) => {
                        hub.log(&format!("bridge: page {label}: {e} (limit {} bytes); closing its socket", protocol::MAX_FRAME_BYTES));
                        let _ = sink.send(Message::Close(Some(CloseFrame { code: CloseCode::Size, reason: "frame too large".into() }))).await;
                        break;
                    }
                    Some(Err(e)) => {
                        hub.log(&format!("bridge: page {label}: socket error: {e}"));
                        break;
                    }
                }
            }
            _ = ping.tick() => {
                if last_heard.elapsed() > SILENT_FOR {
                    hub.log(&format!("bridge: page {label}: silent for {} s; closing its socket", SILENT_FOR.as_secs()));
                    break;
                }
                if sink.send(Message::Ping(Vec::new().into())).await.is_err() { break; }
            }
        }
    }
    hub.disconnect(page);
}

/// The next text frame (pings skipped); `Err` for anything else.
async fn next_text<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>) -> Option<Result<String, String>> {
    loop {
        return match ws.next().await? {
            Ok(Message::Text(t)) => Some(Ok(t.as_str().to_string())),
            Ok(Message::Ping(_) | Message::Pong(_)) => continue,
            Ok(Message::Close(_)) => None,
            Ok(_) => Some(Err("the first frame is not JSON text".into())),
            Err(e) => Some(Err(format!("socket error before the hello: {e}"))),
        };
    }
}

/// A frame the bridge cannot use: the page hears why, the log says so, the socket stays open.
fn reject(hub: &Hub, label: &str, tx: &mpsc::UnboundedSender<Outgoing>, why: &str) {
    hub.log(&format!("bridge: page {label}: malformed frame: {why}"));
    let _ = tx.send(Outgoing::Text(protocol::error(why)));
}

fn frame(hub: &Hub, page: u64, label: &str, tx: &mpsc::UnboundedSender<Outgoing>, text: &str) {
    match protocol::parse_page_frame(text) {
        Ok(PageFrame::Tools { catalog, surface_version, tools, capabilities, states }) => {
            let mut kept = Vec::with_capacity(tools.len());
            for t in tools {
                match protocol::check_tool_entry(&t) {
                    Ok(_) => kept.push(t),
                    Err(e) => reject(hub, label, tx, &format!("tools: {e}; that tool is left out")),
                }
            }
            hub.set_tools(page, catalog, surface_version, kept, capabilities, states);
        }
        Ok(PageFrame::Result { id, result }) => {
            // A late answer to a cancelled or abandoned call is dropped quietly.
            hub.settle(page, &id, result);
        }
        Ok(PageFrame::Pending { id, confirmation }) => {
            // For a call that is not waiting (or not this page's) there is nobody to tell.
            hub.pending(page, &id, confirmation);
        }
        Ok(PageFrame::Focus {}) => hub.focus(page),
        Ok(PageFrame::Error { id, message }) => {
            hub.log(&format!(
                "bridge: page {label} could not read a bridge frame{}: {}",
                id.map(|i| format!(" ({i})")).unwrap_or_default(),
                truncate(&message, 300)
            ));
        }
        Ok(PageFrame::Hello { .. }) => reject(hub, label, tx, "hello was already received"),
        Err(e) => reject(hub, label, tx, &truncate(&e, 300)),
    }
}
