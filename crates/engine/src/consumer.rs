//! Who is asking: the consumer of a surface (an embedded agent, a WebMCP client, an MCP
//! bridge…). Its key, `kind:id`, scopes dedupe, admission queues and confirmations.

use serde::{Deserialize, Serialize};

/// Who is asking. `kind + ":" + id` is the consumer key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentConsumer {
    pub id: String,
    pub kind: ConsumerKind,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumerKind {
    Embedded,
    Webmcp,
    McpBridge,
    Test,
    Other,
}

impl ConsumerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ConsumerKind::Embedded => "embedded",
            ConsumerKind::Webmcp => "webmcp",
            ConsumerKind::McpBridge => "mcp-bridge",
            ConsumerKind::Test => "test",
            ConsumerKind::Other => "other",
        }
    }
}

impl AgentConsumer {
    pub fn new(kind: ConsumerKind, id: impl Into<String>) -> Self {
        AgentConsumer { id: id.into(), kind, grants: Vec::new() }
    }
    /// The default consumer: `embedded:anonymous`.
    pub fn anonymous() -> Self {
        AgentConsumer::new(ConsumerKind::Embedded, "anonymous")
    }
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.id)
    }
}

impl Default for AgentConsumer {
    fn default() -> Self {
        Self::anonymous()
    }
}
