//! The stdio transport's one correction to rmcp 3.11: before a lifecycle is chosen, rmcp
//! answers every `ping` with `{}` (a legacy client may ping before `initialize`), even a ping
//! whose `_meta` names 2026-07-28, a revision without `ping` (-32601 there, as once the
//! lifecycle is chosen). [`PingGate`] answers such a ping itself, at any time, with the error
//! rmcp's handler gives; every other message passes through unchanged, so a ping without that
//! `_meta` (2025-11-25 and older) is still answered `{}`.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, GetMeta, PingRequestMethod, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use std::future::Future;

/// A server transport whose `receive` answers a stateless-revision `ping` with -32601.
pub struct PingGate<T> {
    inner: T,
}

impl<T> PingGate<T> {
    pub fn new(inner: T) -> Self {
        PingGate { inner }
    }
}

/// The error of a `ping` under a revision without `initialize` (and so without `ping`).
fn stateless_ping_error(message: &ClientJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
    let ClientJsonRpcMessage::Request(req) = message else { return None };
    if !matches!(req.request, ClientRequest::PingRequest(_)) {
        return None;
    }
    let version = req.request.get_meta().protocol_version()?;
    (!version.has_initialize())
        .then(|| ServerJsonRpcMessage::error(ErrorData::method_not_found::<PingRequestMethod>(), Some(req.id.clone())))
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for PingGate<T> {
    type Error = T::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let message = self.inner.receive().await?;
            match stateless_ping_error(&message) {
                // Sent on its own task, not awaited here: rmcp drops a pending `receive` when
                // another branch of its loop wins, and a ping taken but not yet answered would
                // be lost. (A failed send means the client is gone; the next receive says so.)
                Some(error) => drop(tokio::spawn(self.inner.send(error))),
                None => return Some(message),
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
