//! Rule: a capability name is used once per component, across its observations and actions:
//! both would get the id `view:<type>.<name>`. (That a component type, a procedure id or an
//! external tool id is declared once per project needs the whole project; the compiler checks
//! it.)
//!
//! Reports [`DefinitionViolationKind::DuplicateCapabilityName`] at the action; the compiler maps
//! it in `rules/uniqueness.rs`.

use super::violation::{seg, DefinitionViolation, DefinitionViolationKind};
use crate::manifest::ComponentContract;

/// Every action of `c` named like one of its observations, in name order.
pub fn check(c: &ComponentContract, out: &mut Vec<DefinitionViolation>) {
    for name in c.actions.keys().filter(|n| c.observations.contains_key(*n)) {
        out.push(DefinitionViolation {
            pointer: seg(&["actions", name]),
            kind: DefinitionViolationKind::DuplicateCapabilityName { name: name.clone() },
            message: format!(
                "\"{name}\" is both an observation and an action; both would be \
                 \"view:{}.{name}\"",
                c.r#type
            ),
            help: Some("rename the observation or the action".into()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::samples::sample_component;
    use crate::manifest::ObservationContract;
    use crate::rules::testing::{comp, ptr};
    use serde_json::json;
    use DefinitionViolationKind as K;

    fn unique(c: &ComponentContract) -> Vec<DefinitionViolation> {
        let mut out = Vec::new();
        check(c, &mut out);
        out
    }

    #[test]
    fn distinct_names_pass() {
        assert_eq!(unique(&sample_component()), vec![]);
    }

    #[test]
    fn every_shared_name_is_reported_in_name_order() {
        let mut c = sample_component();
        c.observations.insert("select".into(), ObservationContract::new("Selection", json!({})));
        c.observations.insert("open".into(), ObservationContract::new("Open state", json!({})));
        let names: Vec<K> = unique(&c).into_iter().map(|v| v.kind).collect();
        assert_eq!(
            names,
            vec![
                K::DuplicateCapabilityName { name: "open".into() },
                K::DuplicateCapabilityName { name: "select".into() }
            ]
        );
    }

    // Through the composition (`validate_contract`).

    #[test]
    fn duplicate_capability_names() {
        let mut c = sample_component();
        c.observations.insert("open".into(), ObservationContract::new("Open state", json!({})));
        let vs = comp(c);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].kind, K::DuplicateCapabilityName { name: "open".into() });
        assert_eq!(vs[0].pointer, ptr(&["actions", "open"]));
        assert!(vs[0].message.contains("view:devices.table.open"));
    }
}
