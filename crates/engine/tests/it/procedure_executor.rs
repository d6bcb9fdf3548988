//! Spec core-api Registry: `setProcedureExecutor(executor: AgentProcedureExecutor | undefined)`.
//! Procedures referenced without a local `execute` are forwarded to the executor with
//! `{procedureId, input, invocationId}`; while none is installed they are unavailable
//! ("no-procedure-executor").

use crate::common::*;
use agent_surface_engine::binding::{ActionBinding, BindingError};
use agent_surface_engine::events::AgentSurfaceEvent;
use agent_surface_engine::explain::{explain_surface, Outcome};
use agent_surface_engine::host::BoxFuture;
use agent_surface_engine::invoke::InvokeOptions;
use agent_surface_engine::procedure::{AgentProcedureExecutor, ProcedureCall};
use agent_surface_engine::snapshot::SnapshotContext;
use agent_surface_model::errors::{ErrorCode, Retry};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Recording {
    calls: Mutex<Vec<(String, Value, String)>>,
}

impl AgentProcedureExecutor for Recording {
    fn execute(&self, call: ProcedureCall) -> BoxFuture<agent_surface_engine::binding::HandlerResult> {
        self.calls.lock().unwrap().push((call.procedure_id.clone(), call.input.clone(), call.invocation_id.clone()));
        Box::pin(async move { Ok(json!(null)) })
    }
}

fn env_forwarding(a: &agent_surface_engine::authority::CapabilityAuthority) -> Env {
    let env = Env::new(a);
    env.registry
        .register(
            widget(a, "main").procedure(a.procedure("domain:test.touch").unwrap().forward().unwrap()).build().unwrap(),
        )
        .unwrap();
    env
}

#[test]
fn a_procedure_without_local_execute_is_forwarded_to_the_executor() {
    let a = test_authority();
    let mut env = env_forwarding(&a);
    let exec = Arc::new(Recording::default());
    env.registry.set_procedure_executor(Some(exec.clone()));
    let r = env.call(inv("domain:test.touch").id("fwd1").input(json!({})), InvokeOptions::default());
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(
        *exec.calls.lock().unwrap(),
        vec![("domain:test.touch".to_string(), json!({"x": 0}), "fwd1".to_string())],
        "procedureId, the effective input (defaults applied) and invocationId"
    );
}

// Issue 25 §5: "a procedure with no executor installed is reported unavailable (with a reason)
// instead of listed available; setProcedureExecutor bumps the version and emits surface-changed".
#[test]
fn without_an_executor_a_forwarded_procedure_is_unavailable() {
    let a = test_authority();
    let mut env = env_forwarding(&a);
    let listed = |env: &Env| {
        let s = env.registry.snapshot(&SnapshotContext::default());
        let p = s.procedures.iter().find(|p| p.capability_id == "domain:test.touch").unwrap();
        (p.available, p.unavailable_reason.clone())
    };
    assert_eq!(listed(&env), (false, Some("no-procedure-executor".into())), "listed, but unavailable");
    let hidden = env.registry.snapshot(&SnapshotContext { include_unavailable: false, ..Default::default() });
    assert!(hidden.procedures.is_empty());
    let e = explain_surface(&env.registry, &SnapshotContext::default()).unwrap();
    let x = e.capabilities.iter().find(|x| x.capability_id == "domain:test.touch").unwrap();
    assert_eq!((x.outcome, x.reason.as_deref()), (Outcome::Disable, Some("no-procedure-executor")));
    assert_eq!(
        (x.availability.available, x.availability.reason.as_deref()),
        (false, Some("no-procedure-executor")),
        "state, not a policy vote"
    );

    let r = env.call(inv("domain:test.touch").id("none"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotAvailable), "{r:?}");
    assert_eq!(r.error.clone().unwrap().retry, Retry::AfterDelay);
    assert_eq!(detail(&r, "reason"), json!("no-procedure-executor"));

    // Installing one is a surface mutation (+1, surface-changed) and makes it available.
    let before: u64 = env.registry.version().parse().unwrap();
    env.take_events();
    let exec = Arc::new(Recording::default());
    env.registry.set_procedure_executor(Some(exec.clone()));
    assert_eq!(env.registry.version(), (before + 1).to_string());
    assert_eq!(
        env.take_events(),
        vec![AgentSurfaceEvent::SurfaceChanged { surface_version: (before + 1).to_string() }]
    );
    assert_eq!(listed(&env), (true, None));
    assert!(env.call(inv("domain:test.touch").id("some"), InvokeOptions::default()).is_ok());

    // Uninstalling it (None): unavailable again, another mutation.
    env.registry.set_procedure_executor(None);
    assert_eq!(env.registry.version(), (before + 2).to_string());
    assert_eq!(listed(&env), (false, Some("no-procedure-executor".into())));
    let r = env.call(inv("domain:test.touch").id("none2"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert_eq!(exec.calls.lock().unwrap().len(), 1);

    // A procedure with a local execute never depends on an executor.
    let mut env = Env::new(&a);
    let runs = Counter::default();
    env.registry
        .register(
            widget(&a, "main")
                .procedure(a.procedure("domain:test.touch").unwrap().bind(counting(&runs, None, Value::Null)).unwrap())
                .build()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(listed(&env), (true, None));
    assert!(env.call(inv("domain:test.touch"), InvokeOptions::default()).is_ok());

    // On a disposed registry it is a no-op.
    env.registry.dispose();
    let v = env.registry.version();
    env.registry.set_procedure_executor(Some(exec));
    assert_eq!(env.registry.version(), v);
}

// An external tool runs where it is exposed: it cannot be forwarded to a procedure executor.
#[test]
fn an_external_tool_cannot_be_forwarded() {
    let a = crate::toolset_support::authority();
    let tool = a.external_tool("external:reports.export").unwrap();
    let e = tool.forward().err().expect("refused at bind");
    assert_eq!(e, BindingError::ExternalToolWithoutExecute("external:reports.export".into()));
    assert!(e.to_string().contains("needs its own execute"), "{e}");
    assert!(tool.bind(ActionBinding::forwarded()).is_err());
}

#[test]
fn a_local_execute_wins_over_the_executor() {
    let a = test_authority();
    let mut env = Env::new(&a);
    let runs = Counter::default();
    env.registry
        .register(
            widget(&a, "main")
                .procedure(a.procedure("domain:test.touch").unwrap().bind(counting(&runs, None, Value::Null)).unwrap())
                .build()
                .unwrap(),
        )
        .unwrap();
    let exec = Arc::new(Recording::default());
    env.registry.set_procedure_executor(Some(exec.clone()));
    assert!(env.call(inv("domain:test.touch"), InvokeOptions::default()).is_ok());
    assert_eq!(runs.get(), 1);
    assert!(exec.calls.lock().unwrap().is_empty());
}

#[test]
fn a_forwarded_call_still_runs_the_pipeline_and_its_timeout() {
    let a = test_authority();
    let mut env = Env::new(&a);
    env.registry
        .register(
            widget(&a, "main")
                .procedure(
                    a.procedure("domain:test.touch")
                        .unwrap()
                        .bind(ActionBinding::forwarded().when(|| false, "offline"))
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let exec = Arc::new(Recording::default());
    env.registry.set_procedure_executor(Some(exec.clone()));
    let r = env.call(inv("domain:test.touch"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::CapabilityNotAvailable));
    assert!(exec.calls.lock().unwrap().is_empty());

    struct Hanging;
    impl AgentProcedureExecutor for Hanging {
        fn execute(&self, _call: ProcedureCall) -> BoxFuture<agent_surface_engine::binding::HandlerResult> {
            Box::pin(futures::future::pending())
        }
    }
    let mut env = env_forwarding(&a);
    env.registry.set_procedure_executor(Some(Arc::new(Hanging)));
    let p = env.start(inv("domain:test.touch"), InvokeOptions::default());
    env.advance(30_000);
    assert_eq!(p.result().code(), Some(ErrorCode::Timeout));
}
