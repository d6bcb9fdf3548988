//! The agent-facing error payload (DECISIONS §6). Messages are agent-safe: no internal
//! metadata, stack traces or host context.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    CapabilityNotFound,
    CapabilityNotAvailable,
    AmbiguousInstance,
    StaleCapability,
    ComponentUnmounted,
    InvalidInput,
    PreconditionFailed,
    PolicyDenied,
    ConfirmationRequired,
    ConfirmationDenied,
    ConfirmationExpired,
    RateLimited,
    Timeout,
    Cancelled,
    ExecutionFailed,
    InvocationConflict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Retry {
    Never,
    AfterDelay,
    WithChanges,
    AfterConfirmation,
}

impl ErrorCode {
    /// The retry semantics the table fixes for each code.
    pub fn retry(self) -> Retry {
        use ErrorCode::*;
        match self {
            CapabilityNotFound | AmbiguousInstance | StaleCapability | ComponentUnmounted | InvalidInput
            | PreconditionFailed | ConfirmationExpired | InvocationConflict => Retry::WithChanges,
            CapabilityNotAvailable | RateLimited | Timeout => Retry::AfterDelay,
            PolicyDenied | ConfirmationDenied | Cancelled | ExecutionFailed => Retry::Never,
            ConfirmationRequired => Retry::AfterConfirmation,
        }
    }

    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            CapabilityNotFound => "CAPABILITY_NOT_FOUND",
            CapabilityNotAvailable => "CAPABILITY_NOT_AVAILABLE",
            AmbiguousInstance => "AMBIGUOUS_INSTANCE",
            StaleCapability => "STALE_CAPABILITY",
            ComponentUnmounted => "COMPONENT_UNMOUNTED",
            InvalidInput => "INVALID_INPUT",
            PreconditionFailed => "PRECONDITION_FAILED",
            PolicyDenied => "POLICY_DENIED",
            ConfirmationRequired => "CONFIRMATION_REQUIRED",
            ConfirmationDenied => "CONFIRMATION_DENIED",
            ConfirmationExpired => "CONFIRMATION_EXPIRED",
            RateLimited => "RATE_LIMITED",
            Timeout => "TIMEOUT",
            Cancelled => "CANCELLED",
            ExecutionFailed => "EXECUTION_FAILED",
            InvocationConflict => "INVOCATION_CONFLICT",
        }
    }
}

/// `AgentCapabilityErrorPayload`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentCapabilityError {
    pub code: ErrorCode,
    pub message: String,
    pub retry: Retry,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Map<String, Value>>,
}

impl AgentCapabilityError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AgentCapabilityError { code, message: message.into(), retry: code.retry(), details: None }
    }
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.get_or_insert_with(Map::new).insert(key.to_string(), value.into());
        self
    }
}
