//! What `register` and `subscribe` hand out: the registration handle (update, invalidate,
//! unregister) and the listener subscription.

use super::Shared;
use crate::events::AgentSurfaceEvent;
use crate::surface::options::{Environment, LogLevel};
use crate::surface::state::{Dynamic, RegistrationPatch, RegistrationStatus};
use std::sync::{Arc, Mutex, Weak};

/// A listener subscription; dropping it unsubscribes.
#[must_use = "dropping the Subscription unsubscribes at once; keep it, or call .forever()"]
pub struct Subscription {
    pub(super) shared: Weak<Shared>,
    pub(super) id: Option<u64>,
}

impl Subscription {
    pub fn unsubscribe(mut self) {
        self.end();
    }
    fn end(&mut self) {
        if let (Some(s), Some(id)) = (self.shared.upgrade(), self.id.take()) {
            s.surface.events.unsubscribe(id);
        }
    }
    /// Keeps the listener for the registry's lifetime.
    pub fn forever(mut self) {
        self.id = None;
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.end();
    }
}

/// The handle `register` returns (the spec's `AgentRegistrationHandle`).
pub struct RegistrationHandle {
    pub(super) shared: Weak<Shared>,
    pub(super) registration_id: String,
    pub(super) status: Arc<Mutex<RegistrationStatus>>,
}

impl RegistrationHandle {
    pub fn registration_id(&self) -> &str {
        &self.registration_id
    }

    pub fn status(&self) -> RegistrationStatus {
        *self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn live(&self) -> Option<Arc<Shared>> {
        let shared = self.shared.upgrade()?;
        if self.status() != RegistrationStatus::Active {
            if shared.surface.options.environment == Environment::Development {
                shared
                    .surface
                    .log(LogLevel::Warn, format!("{} is not active: the call is ignored", self.registration_id));
            }
            return None;
        }
        Some(shared)
    }

    /// Pushes `enabled` and availability overrides; bumps the surface version and emits
    /// `availability-changed` for each capability whose pushed availability changed.
    pub fn update(&self, patch: RegistrationPatch) {
        let Some(shared) = self.live() else { return };
        let mut unknown = Vec::new();
        {
            let mut st = shared.surface.lock();
            let Some(reg) = st.regs.get(&self.registration_id).cloned() else { return };
            let Some(before) = st.dynamic.get(&self.registration_id).cloned() else { return };
            let contract = reg.bound.contract();
            let mut after = before.clone();
            if let Some(e) = patch.enabled {
                after.enabled = e;
            }
            if let Some(av) = patch.availability {
                for (name, o) in av {
                    // Overrides name this component's observations and actions; anything else
                    // is a mistake to report, not to keep (it would never match).
                    if contract.observations.contains_key(&name) || contract.actions.contains_key(&name) {
                        after.overrides.insert(name, o);
                    } else {
                        unknown.push(name);
                    }
                }
            }
            let ty = reg.bound.component_type().to_string();
            let pushed = |d: &Dynamic, name: &str| d.enabled && d.overrides.get(name).is_none_or(|o| o.available);
            let capabilities = contract
                .observations
                .keys()
                .chain(contract.actions.keys())
                .map(|name| (name.clone(), agent_surface_model::ids::capability_id(&ty, name)));
            // Procedures follow `enabled` (no override can name them).
            let procedures = reg.bound.procedures.iter().map(|p| (p.id().to_string(), p.id().to_string()));
            for (name, capability_id) in capabilities.chain(procedures) {
                let (b, a) = (pushed(&before, &name), pushed(&after, &name));
                if a != b {
                    shared.surface.events.push(AgentSurfaceEvent::AvailabilityChanged {
                        registration_id: self.registration_id.clone(),
                        capability_id,
                        available: a,
                    });
                }
            }
            st.dynamic.insert(self.registration_id.clone(), after);
            st.version += 1;
            shared.surface.events.surface_changed();
        }
        for name in unknown {
            shared.surface.log(LogLevel::Warn, format!("update of {}: \"{name}\" is not an observation or action of this component; the override is ignored", self.registration_id));
        }
        shared.surface.flush();
    }

    /// Bumps the surface version without changing anything.
    pub fn invalidate(&self) {
        let Some(shared) = self.live() else { return };
        {
            let mut st = shared.surface.lock();
            st.version += 1;
            shared.surface.events.surface_changed();
        }
        shared.surface.flush();
    }

    /// Unregisters (a no-op, with a development warning, when not active).
    pub fn unregister(&self) {
        let Some(shared) = self.live() else { return };
        {
            let mut st = shared.surface.lock();
            shared.remove_locked(&mut st, &self.registration_id);
        }
        shared.surface.flush();
    }
}
