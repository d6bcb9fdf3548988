//! Events and their dispatch. Guarantees: a total order of mutations; dispatch after the
//! mutation (never under the registry lock); a panicking listener is isolated; events raised
//! by listeners (re-entrant mutations) are queued and dispatched after the current one;
//! `surface-changed` is coalesced per dispatch round, carrying the latest version.

use serde::Serialize;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Every event the registry emits (wire names as in the spec).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum AgentSurfaceEvent {
    #[serde(rename_all = "camelCase")]
    SurfaceChanged { surface_version: String },
    #[serde(rename_all = "camelCase")]
    ComponentRegistered { registration_id: String, component_type: String, instance_id: String },
    #[serde(rename_all = "camelCase")]
    ComponentUnregistered { registration_id: String, component_type: String, instance_id: String },
    #[serde(rename_all = "camelCase")]
    ComponentRejected { component_type: String, instance_id: String, reason: RejectReason },
    #[serde(rename_all = "camelCase")]
    AvailabilityChanged { registration_id: String, capability_id: String, available: bool },
    #[serde(rename_all = "camelCase")]
    CollisionSuspected { view_capability_id: String, domain_procedure_id: String },
    #[serde(rename_all = "camelCase")]
    InvocationStarted { invocation_id: String, capability_id: String, consumer_id: String },
    #[serde(rename_all = "camelCase")]
    InvocationSettled {
        invocation_id: String,
        capability_id: String,
        status: SettledStatus,
        /// The error code; absent (not `null`) on the wire when the invocation succeeded.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        duration_ms: u64,
    },
    #[serde(rename_all = "camelCase")]
    ConfirmationRequested { confirmation_id: String, capability_id: String, expires_at: String },
    #[serde(rename_all = "camelCase")]
    ConfirmationResolved { confirmation_id: String, outcome: ConfirmationOutcome },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RejectReason {
    Duplicate,
    Guard,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettledStatus {
    Ok,
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfirmationOutcome {
    Approved,
    Denied,
    Expired,
}

pub type Listener = Arc<crate::dyn_send_sync!(Fn(&AgentSurfaceEvent))>;

#[derive(Default)]
struct Queue {
    events: VecDeque<AgentSurfaceEvent>,
    surface_changed: bool,
    dispatching: bool,
}

/// The registry's event bus.
#[derive(Default)]
pub(crate) struct Dispatcher {
    listeners: Mutex<Vec<(u64, Listener)>>,
    queue: Mutex<Queue>,
    next_id: Mutex<u64>,
}

impl Dispatcher {
    pub fn subscribe(&self, l: Listener) -> u64 {
        let mut next = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
        *next += 1;
        let id = *next;
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).push((id, l));
        id
    }

    pub fn unsubscribe(&self, id: u64) {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).retain(|(i, _)| *i != id);
    }

    pub fn clear(&self) {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Queues an event (call while mutating; [`Dispatcher::flush`] after releasing the lock).
    pub fn push(&self, e: AgentSurfaceEvent) {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).events.push_back(e);
    }

    /// Marks the surface changed; one `surface-changed` goes out per dispatch round.
    pub fn surface_changed(&self) {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).surface_changed = true;
    }

    /// Delivers queued events, unless a dispatch is already running further up the stack (a
    /// listener mutating the registry): that one will deliver them, in order.
    pub fn flush(&self, version: impl Fn() -> String) {
        {
            let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            if q.dispatching {
                return;
            }
            q.dispatching = true;
        }
        loop {
            let next = {
                let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
                match q.events.pop_front() {
                    Some(e) => Some(e),
                    None if q.surface_changed => {
                        q.surface_changed = false;
                        Some(AgentSurfaceEvent::SurfaceChanged { surface_version: String::new() })
                    }
                    None => {
                        q.dispatching = false;
                        None
                    }
                }
            };
            let Some(mut event) = next else { break };
            if let AgentSurfaceEvent::SurfaceChanged { surface_version } = &mut event {
                *surface_version = version();
            }
            let listeners: Vec<Listener> =
                self.listeners.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, l)| l.clone()).collect();
            for l in listeners {
                // A panicking listener must not stop the others or poison the registry.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| l(&event)));
            }
        }
    }
}
