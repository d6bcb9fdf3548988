// Type tests (tsc --noEmit): the toolset's `names` option and the bridge client's, as an app
// writes them. Nothing here runs.
import type { AgentToolsetOptions } from "@agent-surface/core";
import type { AgentBridgeOptions } from "@agent-surface/core/bridge";

const consumer = { id: "agent", kind: "test" } as const;

export const unprefixed: AgentToolsetOptions = { consumer, topology: "remote", names: "unprefixed" };
export const prefixed: AgentToolsetOptions = { consumer, topology: "remote", names: "prefixed" };
export const byDefault: AgentToolsetOptions = { consumer, topology: "remote" };
// @ts-expect-error names is "prefixed" or "unprefixed"
export const other: AgentToolsetOptions = { consumer, topology: "remote", names: "short" };

export const bridge: AgentBridgeOptions = { url: "ws://127.0.0.1:7821", token: "t", names: "unprefixed" };
// @ts-expect-error names is "prefixed" or "unprefixed"
export const bridgeOther: AgentBridgeOptions = { url: "ws://127.0.0.1:7821", token: "t", names: true };
