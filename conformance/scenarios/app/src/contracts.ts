// The contracts of the engine's behavioural scenarios (conformance/scenarios/*.json), run
// natively (crates/engine/tests/it/scenarios.rs) and through the JavaScript API
// (packages/core/test/scenarios.test.ts). `agent-surface compile` here writes ../manifest.json;
// the root test `scenario_manifest_is_compiled_from_the_app` keeps the two in step.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const count = fromJsonSchema({
  type: "object",
  properties: { value: { type: "integer", minimum: 0 } },
  required: ["value"],
  additionalProperties: false,
});

export const counter = defineAgentComponentContract({
  type: "demo.counter",
  description: "A counter on the page",
  observations: {
    value: observationContract({ description: "The current value", output: count }),
  },
  actions: {
    increment: actionContract({ description: "Adds one to the counter", input: emptyObjectSchema, effect: "local-state" }),
    setTo: actionContract({ description: "Sets the counter to a value", input: count, output: count, effect: "local-state", idempotent: true }),
    slow: actionContract({ description: "Takes its time", input: emptyObjectSchema, effect: "local-state" }),
  },
});

export const nav = defineAgentComponentContract({
  type: "demo.nav",
  description: "The app's navigation",
  actions: {
    go: actionContract({
      description: "Navigates to a path",
      input: fromJsonSchema({ type: "object", properties: { path: { type: "string", minLength: 1 } }, required: ["path"], additionalProperties: false }),
      effect: "navigation",
    }),
  },
});

export const reset = defineAgentProcedureContract({
  id: "domain:demo.reset",
  description: "Resets every counter to zero",
  input: emptyObjectSchema,
  effect: "destructive",
});

export const lookup = defineAgentProcedureContract({
  id: "domain:demo.lookup",
  description: "Looks a counter up on the server",
  input: fromJsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false }),
  output: count,
  effect: "read",
});

export const exportCounts = defineExternalAgentToolContract({
  id: "external:demo.export",
  description: "Exports the counts to a file",
  input: emptyObjectSchema,
  effect: "external-side-effect",
});

// ---- Added for the conformance suite's wider coverage (one scenario per rule).

const anyObject = fromJsonSchema({ type: "object" });

const options = fromJsonSchema({
  type: "object",
  properties: {
    mode: { type: "string", enum: ["a", "b"], default: "a" },
    note: { type: "string", maxLength: 5 },
  },
  additionalProperties: false,
});

/** Priority, meta, handlers that report their context, audit levels, a navigation action. */
export const panel = defineAgentComponentContract({
  type: "demo.panel",
  description: "A side panel",
  meta: { area: "side" },
  priority: 5,
  observations: {
    info: observationContract({ description: "What the panel shows", output: anyObject, meta: { unit: "none" } }),
  },
  actions: {
    inspect: actionContract({ description: "Reports what the handler saw", input: options, output: anyObject, effect: "local-state" }),
    approve: actionContract({ description: "Needs the user's approval", input: options, output: anyObject, effect: "local-state", confirmation: "required" }),
    open: actionContract({ description: "Opens a page", input: emptyObjectSchema, effect: "navigation" }),
    record: actionContract({ description: "Audited in full", input: options, output: anyObject, effect: "local-state", audit: "full" }),
    mute: actionContract({ description: "Not audited at all", input: emptyObjectSchema, effect: "local-state", audit: "none" }),
  },
});

/** `view:demo.lookup` looks like the procedure `domain:demo.lookup` (duplicateSuffixPolicy). */
export const demoRoot = defineAgentComponentContract({
  type: "demo",
  description: "The demo itself",
  actions: {
    lookup: actionContract({ description: "Looks a counter up on the page", input: emptyObjectSchema, effect: "local-state" }),
  },
});

/** A capability id longer than a wire name may be (86 characters). */
export const wide = defineAgentComponentContract({
  type: "demo.extraordinarilylongcomponentname.withanothersegment",
  description: "A component with a long type",
  observations: {
    currentValueOfEverything: observationContract({ description: "Everything there is", output: anyObject }),
  },
});

/** `view:demo.x_y.read` and `view:demo_x.y.read` map to the same plain wire name. */
export const underscoreA = defineAgentComponentContract({
  type: "demo.x_y",
  description: "One side of a wire-name clash",
  observations: { read: observationContract({ description: "Reads it", output: anyObject }) },
});

export const underscoreB = defineAgentComponentContract({
  type: "demo_x.y",
  description: "The other side of a wire-name clash",
  observations: { read: observationContract({ description: "Reads it", output: anyObject }) },
});

export const save = defineAgentProcedureContract({
  id: "domain:demo.save",
  description: "Saves a named counter on the server",
  input: fromJsonSchema({ type: "object", properties: { name: { type: "string", default: "main" } }, additionalProperties: false }),
  output: anyObject,
  effect: "mutation",
});

export const notify = defineAgentProcedureContract({
  id: "domain:demo.notify",
  description: "Sends a notification to the team",
  input: emptyObjectSchema,
  effect: "external-side-effect",
});
