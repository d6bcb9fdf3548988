//! Building the snapshot (the synchronous catalog) from the live surface, and the budget.

use crate::snapshot::*;
use crate::surface::state::{DiscoveryScope, Dynamic, Reg, Surface};
use std::sync::Arc;

impl Surface {
    pub(crate) fn snapshot(&self, ctx: &SnapshotContext) -> AgentSurfaceSnapshot {
        let (regs, version) = {
            let st = self.lock();
            let regs: Vec<(Arc<Reg>, Dynamic)> =
                st.regs.values().map(|r| (r.clone(), st.dynamic.get(&r.id).cloned().unwrap_or_default())).collect();
            (regs, st.version)
        };
        // Snapshot order: (priority desc, type, instanceId), then the registration id so the
        // order is total. Sorted on small keys, not on the built descriptors (large to move).
        let mut order: Vec<(std::cmp::Reverse<i64>, &str, &str, &str, usize)> = regs
            .iter()
            .enumerate()
            .map(|(i, (r, _))| {
                (
                    std::cmp::Reverse(r.bound.contract().priority),
                    r.bound.component_type(),
                    r.bound.instance_id(),
                    r.id.as_str(),
                    i,
                )
            })
            .collect();
        order.sort_unstable();
        let host = self.host();
        let mut discovery = DiscoveryScope::new(&ctx.consumer, &host);
        let mut components = Vec::with_capacity(regs.len());
        let mut procedures = Vec::new();
        for &(.., index) in &order {
            let (reg, dynamic) = &regs[index];
            let b = &reg.bound;
            let ty = b.component_type();
            if let Some(scope) = &ctx.scope {
                if !scope.iter().any(|p| in_scope(ty, p)) {
                    continue;
                }
            }
            components.push(self.describe(reg, dynamic, ctx, &mut discovery, &mut procedures));
        }
        procedures.sort_by(|a, b| {
            a.capability_id.cmp(&b.capability_id).then_with(|| a.registration_id.cmp(&b.registration_id))
        });
        let mut snapshot = AgentSurfaceSnapshot {
            surface_id: self.surface_id.clone(),
            surface_version: version.to_string(),
            captured_at: iso8601(self.now()),
            route: self
                .options
                .route
                .as_ref()
                .and_then(|f| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f())).ok().flatten()),
            components,
            procedures,
            truncated: None,
            scope_rejected: None,
        };
        if let Some(budget) = &ctx.budget {
            apply_budget(&mut snapshot, budget);
        }
        snapshot
    }

    /// One component's descriptor (its available or, when asked, unavailable observations and
    /// actions); its procedures go to `procedures`.
    fn describe(
        &self,
        reg: &Reg,
        dynamic: &Dynamic,
        ctx: &SnapshotContext,
        discovery: &mut DiscoveryScope<'_>,
        procedures: &mut Vec<AgentProcedureDescriptor>,
    ) -> AgentComponentDescriptor {
        let b = &reg.bound;
        let ty = b.component_type();
        let template = b.contract.descriptor_template();
        // A binding has exactly its contract's names (checked by `build`), and both maps
        // iterate in name order: template and binding zip.
        let mut observations = Vec::with_capacity(template.observations.len());
        for (t, (name, ob)) in template.observations.iter().zip(&b.observations) {
            debug_assert_eq!(t.name, *name);
            let Some((available, reason)) = self.availability(
                reg,
                dynamic,
                &t.capability_id,
                &t.name,
                &ob.policies,
                ob.when.as_ref(),
                ob.unavailable_reason.as_ref(),
                false,
                discovery,
            ) else {
                continue;
            };
            if !available && !ctx.include_unavailable {
                continue;
            }
            observations.push(AgentObservationDescriptor { available, unavailable_reason: reason, ..t.clone() });
        }
        let mut actions = Vec::with_capacity(template.actions.len());
        for (t, (name, ab)) in template.actions.iter().zip(&b.actions) {
            debug_assert_eq!(t.name, *name);
            let Some((available, reason)) = self.availability(
                reg,
                dynamic,
                &t.capability_id,
                &t.name,
                &ab.policies,
                ab.when.as_ref(),
                ab.unavailable_reason.as_ref(),
                false,
                discovery,
            ) else {
                continue;
            };
            if !available && !ctx.include_unavailable {
                continue;
            }
            actions.push(AgentActionDescriptor { available, unavailable_reason: reason, ..t.clone() });
        }
        for (index, p) in b.procedures.iter().enumerate() {
            // `when()` counts for procedures too (it is re-checked at invocation).
            let Some((available, reason)) = self.procedure_availability(reg, dynamic, index, discovery) else {
                continue;
            };
            if !available && !ctx.include_unavailable {
                continue;
            }
            let note = p
                .describe
                .as_ref()
                .and_then(|f| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f())).ok().flatten());
            let component = ParentLink { component_type: ty.to_string(), instance_id: b.instance_id().to_string() };
            procedures.push(p.contract.descriptor_template().procedure(available, reason, &reg.id, component, note));
        }
        template.component(b.instance_id(), &reg.id, b.parent.clone(), observations, actions)
    }
}

/// Drops lowest-priority components (from the end of the ordering) until the budget holds, and
/// says so in `truncated`: no silent truncation.
/// The byte budget is measured on the snapshot as returned: without the dropped components'
/// procedures and with the `truncated` marker.
fn apply_budget(s: &mut AgentSurfaceSnapshot, budget: &SnapshotBudget) {
    let mut dropped = 0;
    let drop_last = |s: &mut AgentSurfaceSnapshot, dropped: &mut usize| {
        if let Some(c) = s.components.pop() {
            s.procedures.retain(|p| p.registration_id != c.registration_id);
            *dropped += 1;
            s.truncated = Some(Truncated { dropped_components: *dropped });
        }
    };
    if let Some(max) = budget.max_components {
        while s.components.len() > max {
            drop_last(s, &mut dropped);
        }
    }
    if let Some(max_bytes) = budget.max_bytes {
        while !s.components.is_empty() && agent_surface_model::canonical::canonical_json(&s.to_json()).len() > max_bytes
        {
            drop_last(s, &mut dropped);
        }
    }
}
