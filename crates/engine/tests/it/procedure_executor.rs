//! Spec core-api Registry: `setProcedureExecutor(executor: AgentProcedureExecutor | undefined)`.
//! Procedures referenced without a local `execute` are forwarded to the executor with
//! `{procedureId, input, invocationId}`; without one they settle EXECUTION_FAILED.

use crate::common::*;
use agent_surface_engine::binding::ActionBinding;
use agent_surface_engine::host::BoxFuture;
use agent_surface_engine::invoke::InvokeOptions;
use agent_surface_engine::procedure::{AgentProcedureExecutor, ProcedureCall};
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

#[test]
fn without_an_executor_a_forwarded_procedure_settles_execution_failed() {
    let a = test_authority();
    let mut env = env_forwarding(&a);
    let r = env.call(inv("domain:test.touch").id("none"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed), "{r:?}");
    let e = r.error.clone().unwrap();
    assert_eq!(e.retry, Retry::Never);
    assert!(e.message.contains("no procedure executor"), "{}", e.message);
    assert_eq!(detail(&r, "reason"), json!("no-procedure-executor"));
    // Installing one makes it work; uninstalling it (None) fails again.
    let exec = Arc::new(Recording::default());
    env.registry.set_procedure_executor(Some(exec.clone()));
    assert!(env.call(inv("domain:test.touch").id("some"), InvokeOptions::default()).is_ok());
    env.registry.set_procedure_executor(None);
    let r = env.call(inv("domain:test.touch").id("none2"), InvokeOptions::default());
    assert_eq!(r.code(), Some(ErrorCode::ExecutionFailed));
    assert_eq!(exec.calls.lock().unwrap().len(), 1);
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
