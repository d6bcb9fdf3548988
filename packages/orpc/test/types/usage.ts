// Type tests (tsc --noEmit): the package as an app imports it, by name.
import { createAgentSurfaceRegistry, type AgentProcedureExecutor, type CapabilityAuthority } from "@agent-surface/core";
import { createORPCProcedureExecutor, ORPCProcedureError, type ORPCProcedureFailure } from "@agent-surface/orpc";
import { defineORPCContracts, procedureContractsSource, type ORPCContractsConfig } from "@agent-surface/orpc/contracts";

declare const authority: CapabilityAuthority;
const registry = createAgentSurfaceRegistry({ authority });
const executor: AgentProcedureExecutor = createORPCProcedureExecutor({
  url: new URL("/rpc", "https://app.example"),
  paths: { "domain:devices.retire": ["devices", "decommission"] },
  headers: (call) => ({ "x-procedure": call.procedureId }),
  idempotencyHeader: "idempotency-key",
});
registry.setProcedureExecutor(executor);
createORPCProcedureExecutor({ url: "/rpc", paths: (id) => (id === "domain:a.b" ? ["a", "b"] : undefined), idempotencyHeader: false });

const e = new ORPCProcedureError("domain:a.b", "error", "x", { status: 409, code: "BUSY", defined: true });
const f: ORPCProcedureFailure = e.failure;
const code: string | undefined = e.code;
void f;
void code;

const config: ORPCContractsConfig = defineORPCContracts({
  router: {},
  output: "src/procedures.ts",
  procedures: { "devices.decommission": { effect: "destructive", confirmation: "required", audit: "full", policies: [{ name: "role", requires: "admin" }] } },
});
const text: string = procedureContractsSource(config);
void text;

// @ts-expect-error an effect is one of the four
defineORPCContracts({ router: {}, output: "x.ts", procedures: { "a.b": { effect: "delete" } } });
// @ts-expect-error url is required
createORPCProcedureExecutor({});
