//! Rule: wire names that survive one relay prefix (issue 27). Agents see each capability as a
//! tool named by its wire name (DECISIONS §8: the capability id with every character outside
//! `[A-Za-z0-9_-]` mapped to `_`, cut at 64 with `_` + 8 base32 characters of its blake3). A
//! relay such as Playwright MCP republishes each WebMCP tool as `webmcp_<name>`: 7 more
//! characters, so a wire name over 57 ends up past the 64 that OpenAI and Anthropic accept. A
//! warning (AS0304) at the contract's id or the capability's key says by how much to shorten it.

use crate::contracts::BuiltContract;
use crate::diagnostics::{Code, Diagnostic};
use agent_surface_model::ids::{capability_id, wire_name, wire_name_uncut, WIRE_NAME_LIMIT};
use agent_surface_model::manifest::ManifestContract;

/// The providers' limit on a tool name (OpenAI, Anthropic).
pub const PROVIDER_NAME_LIMIT: usize = WIRE_NAME_LIMIT;
/// The prefix a relay adds: Playwright MCP's `webmcp_`.
pub const RELAY_PREFIX: &str = "webmcp_";
/// The longest wire name that still fits after the prefix: 57.
pub const MAX_RELAYED_WIRE_NAME: usize = PROVIDER_NAME_LIMIT - RELAY_PREFIX.len();

/// One warning per capability whose wire name is longer than 57 characters.
pub fn check(c: &BuiltContract) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    match &c.contract {
        ManifestContract::Component(comp) => {
            let names = comp
                .observations
                .keys()
                .map(|n| ("observations", n))
                .chain(comp.actions.keys().map(|n| ("actions", n)));
            for (field, name) in names {
                let id = capability_id(&comp.r#type, name);
                let span = c.key_span_at(&[field.to_string(), name.clone()]);
                if let Some(d) = too_long(&id, span, "shorten the component type or the capability name") {
                    out.push(d);
                }
            }
        }
        ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => {
            let what = if matches!(c.contract, ManifestContract::Procedure(_)) { "procedure" } else { "external tool" };
            if let Some(d) = too_long(&o.id, c.span_at(&["id".to_string()]), &format!("shorten the {what} id")) {
                out.push(d);
            }
        }
    }
    out
}

fn too_long(id: &str, span: crate::source::Span, fix: &str) -> Option<Diagnostic> {
    let full = wire_name_uncut(id).len();
    if full <= MAX_RELAYED_WIRE_NAME {
        return None;
    }
    let wire = wire_name(id);
    let cut = full - MAX_RELAYED_WIRE_NAME;
    let length = if wire.len() < full {
        format!("{} characters (cut from {full} with a hash)", wire.len())
    } else {
        format!("{full} characters")
    };
    let relayed = (RELAY_PREFIX.len() + wire.len()).min(RELAY_PREFIX.len() + PROVIDER_NAME_LIMIT);
    Some(
        Diagnostic::new(
            Code::WireNameTooLongForRelay,
            span,
            format!(
                "the wire name of `{id}` is `{wire}`, {length}: behind a relay's `{RELAY_PREFIX}` prefix it is {relayed}, \
                 past the {PROVIDER_NAME_LIMIT} characters OpenAI and Anthropic accept"
            ),
        )
        .label(format!("wire name of {full} characters"))
        .help(format!(
            "{fix} by {cut} character{}: a wire name of {MAX_RELAYED_WIRE_NAME} characters or fewer survives a relay prefix",
            if cut == 1 { "" } else { "s" }
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::*;

    #[test]
    fn wire_names_match_the_engine() {
        // The engine's own test vectors (crates/engine/tests/it/toolset_names.rs).
        assert_eq!(wire_name("view:devices.table.readState"), "view_devices_table_readState");
        assert_eq!(wire_name("domain:devices.decommission"), "domain_devices_decommission");
        let at_limit = format!("view:{}.x", "a".repeat(64 - 7));
        assert_eq!(wire_name(&at_limit).len(), 64);
        let over = format!("{at_limit}y");
        let w = wire_name(&over);
        assert_eq!(w.len(), 64);
        assert_eq!(&w[..55], &over.replace([':', '.'], "_")[..55]);
        assert_ne!(wire_name(&format!("{over}b")), w);
    }

    #[test]
    fn a_57_character_wire_name_passes_and_58_warns() {
        // view:<type>.<name> is 6 characters plus the type and the name.
        // A type of 50 characters (segments are at most 32) and the name `s`: 57.
        let ok = format!(
            "defineAgentComponentContract({{ type: '{}.{}', description: 'd', \
             observations: {{ s: observationContract({{ description: 'd', output: emptyObjectSchema }}) }} }});",
            "a".repeat(25),
            "b".repeat(24)
        );
        assert_eq!(codes_of(&ok), Vec::<String>::new());
        let over = ok.replace("a.b", "a.bb");
        let d = diagnostics_of(&over);
        assert_eq!(d.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(), vec!["AS0304"]);
        assert!(d[0].2.contains("58 characters"), "{}", d[0].2);
    }

    #[test]
    fn procedures_warn_at_their_id() {
        let body = format!(
            "defineAgentProcedureContract({{ id: 'domain:a.{}.{}', description: 'd', input: emptyObjectSchema, effect: 'read' }});",
            "b".repeat(30),
            "c".repeat(30)
        );
        assert_eq!(codes_of(&body), vec!["AS0304"]);
        assert!(first_span_text(&body).starts_with("'domain:a.b"));
    }
}
