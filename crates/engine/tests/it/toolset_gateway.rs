//! The exposure gateway: accepts external tools bound from its own authority, refuses raw tools,
//! tools bound from another authority (even over the same manifest) and contracts of the wrong
//! kind; executes with validation against the manifest's schema and confirmation.

use crate::toolset_support::*;
use agent_surface_engine::binding::execute_fn;
use agent_surface_engine::gateway::{create_agent_exposure_gateway, ConfirmFn, Exposable, GatewayError, RawTool};
use agent_surface_engine::providers::{tool_block, Provider};
use agent_surface_engine::snapshot::AgentConsumer;
use agent_surface_engine::toolset::catalog_from_manifest;
use agent_surface_model::errors::ErrorCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn export_tool(
    a: &agent_surface_engine::authority::CapabilityAuthority,
    runs: Runs,
) -> agent_surface_engine::binding::BoundProcedure {
    a.external_tool("external:reports.export")
        .unwrap()
        .bind(execute_fn(move |input, ctx| {
            let runs = runs.clone();
            async move {
                let evidence = ctx.confirmation.expect("runs only once confirmed");
                assert!(evidence.id.starts_with("cnf_") && evidence.approved_at.ends_with('Z'), "{evidence:?}");
                assert_eq!(input["format"], "csv", "the effective input");
                runs.hit();
                let n = runs.get();
                Ok(json!({"jobId": format!("00000000-0000-4000-8000-{n:012x}"), "queuedAt": "2026-01-01T00:00:00Z"}))
            }
        }))
        .unwrap()
}

#[test]
fn accepts_tools_of_its_own_authority() {
    let a = authority();
    let gateway = create_agent_exposure_gateway(&a);
    let exposed = gateway.expose(vec![export_tool(&a, Runs::default()).into()]).unwrap();
    let tools = exposed.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "external_reports_export");
    assert_eq!(tools[0].capability_id(), Some("external:reports.export"));
    assert!(
        tools[0].description.starts_with("[external · external-side-effect · required] "),
        "{}",
        tools[0].description
    );
    // The same entry as the manifest preview, in every provider's form.
    let preview = catalog_from_manifest(&a, agent_surface_engine::toolset::ToolsetMode::Direct)
        .into_iter()
        .find(|t| t.name == "external_reports_export")
        .unwrap();
    assert_eq!(tools[0], preview);
    for p in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Mcp] {
        assert_eq!(tool_block(&tools, p).unwrap(), tool_block(std::slice::from_ref(&preview), p).unwrap());
    }
    let mcp = tool_block(&tools, Provider::Mcp).unwrap().remove(0);
    assert_eq!(mcp["annotations"]["openWorldHint"], true);
}

#[test]
fn refuses_raw_tools() {
    let a = authority();
    let gateway = create_agent_exposure_gateway(&a);
    let raw = RawTool {
        name: "external_reports_export".into(),
        description: "Export the devices report and email it to the signed-in user.".into(),
        input_schema: json!({"type": "object"}),
    };
    let err =
        gateway.expose(vec![export_tool(&a, Runs::default()).into(), Exposable::Raw(raw)]).err().expect("fails closed");
    assert_eq!(err, GatewayError::Raw("external_reports_export".into()));
    assert!(err.to_string().contains("without compiler provenance"), "{err}");
}

#[test]
fn refuses_tools_bound_from_another_authority_over_the_same_manifest() {
    let a = authority();
    let b = authority();
    assert_eq!(a.manifest_hash(), b.manifest_hash(), "byte-identical manifests");
    let gateway = create_agent_exposure_gateway(&a);
    let err = gateway.expose(vec![export_tool(&b, Runs::default()).into()]).err().expect("fails closed");
    assert_eq!(err, GatewayError::ForeignProvenance("external:reports.export".into()));
    // And a genuinely different manifest.
    let other = long_id_manifest();
    let id =
        other.manifest().contracts.iter().map(|c| c.id().to_string()).find(|id| id.starts_with("external:")).unwrap();
    let foreign = other.external_tool(&id).unwrap().bind(execute_fn(|_, _| async { Ok(json!(null)) })).unwrap();
    assert!(matches!(gateway.expose(vec![foreign.into()]), Err(GatewayError::ForeignProvenance(_))));
}

#[test]
fn refuses_a_procedure() {
    let a = authority();
    let gateway = create_agent_exposure_gateway(&a);
    let reboot = a
        .procedure("domain:devices.reboot")
        .unwrap()
        .bind(execute_fn(|_, _| async { Ok(json!({"scheduled": 0})) }))
        .unwrap();
    let err = gateway.expose(vec![reboot.into()]).err().expect("wrong kind");
    assert_eq!(err, GatewayError::WrongKind("domain:devices.reboot".into()));
    assert!(err.to_string().contains("not an external tool"), "{err}");
}

fn confirm(answer: bool, asked: Arc<Mutex<Vec<(String, Value)>>>) -> ConfirmFn {
    Arc::new(move |id: &str, input: &Value| {
        asked.lock().unwrap().push((id.to_string(), input.clone()));
        Box::pin(async move { answer })
    })
}

#[tokio::test]
async fn executes_with_validation_and_confirmation() {
    let a = authority();
    let runs = Runs::default();
    let exposed = create_agent_exposure_gateway(&a).expose(vec![export_tool(&a, runs.clone()).into()]).unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let consumer = AgentConsumer::anonymous;

    // Invalid input against the manifest's schema: refused before anyone is asked.
    let r = exposed
        .execute(
            "external_reports_export",
            json!({"format": "docx"}),
            Some("g1".into()),
            consumer(),
            Some(confirm(true, asked.clone())),
        )
        .await;
    assert_eq!(r.code(), Some(ErrorCode::InvalidInput));
    assert!(r.error.unwrap().details.unwrap()["issues"].is_array());
    assert!(asked.lock().unwrap().is_empty());

    // Denied, or nobody to ask: not run.
    let r = exposed
        .execute(
            "external_reports_export",
            json!({}),
            Some("g2".into()),
            consumer(),
            Some(confirm(false, asked.clone())),
        )
        .await;
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    let r = exposed.execute("external_reports_export", json!({}), Some("g3".into()), consumer(), None).await;
    assert_eq!(r.code(), Some(ErrorCode::ConfirmationDenied));
    assert_eq!(runs.get(), 0);

    // Approved: runs once with the defaulted input; the invocation id is the tool call's.
    let r = exposed
        .execute(
            "external_reports_export",
            json!({}),
            Some("g4".into()),
            consumer(),
            Some(confirm(true, asked.clone())),
        )
        .await;
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(r.invocation_id, "g4");
    assert_eq!(
        r.output.unwrap(),
        json!({"jobId": "00000000-0000-4000-8000-000000000001", "queuedAt": "2026-01-01T00:00:00Z"})
    );
    assert_eq!(runs.get(), 1);
    let last = asked.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        last,
        ("external:reports.export".to_string(), json!({"format": "csv"})),
        "the user sees the effective input"
    );

    let r = exposed.execute("nope", json!({}), None, consumer(), None).await;
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotFound));
}
