//! Helpers for the rules' tests: validate through the composition, build pointers.

use super::violation::{seg, DefinitionViolation};
use crate::definition::validate_contract;
use crate::limits::AgentSurfaceLimits;
use crate::manifest::{ComponentContract, ManifestContract};

pub fn validate(c: ManifestContract) -> Vec<DefinitionViolation> {
    validate_contract(&c, &AgentSurfaceLimits::default())
}

pub fn comp(c: ComponentContract) -> Vec<DefinitionViolation> {
    validate(ManifestContract::Component(c))
}

pub fn ptr(s: &[&str]) -> Vec<String> {
    seg(s)
}
