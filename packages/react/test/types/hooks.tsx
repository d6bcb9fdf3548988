// The hooks are typed from the contract: useAgentComponent takes exactly what contract.bind()
// takes. Each `@ts-expect-error` line must stay an error.
import { createAgentSurfaceRegistry, type AgentSurfaceSnapshot, type CapabilityAuthority, type PendingConfirmation } from "@agent-surface/core";
import {
  AgentSurfaceProvider,
  useAgentComponent,
  useAgentConfirmations,
  useAgentSurface,
  type AgentComponentState,
  type AgentComponentStatus,
} from "@agent-surface/react";
import { counterContract, itemContract, resetProcedure } from "../app/src/contracts.js";

declare const authority: CapabilityAuthority;

function Good({ value }: { value: number }) {
  const state: AgentComponentState = useAgentComponent(counterContract, {
    instanceId: "main",
    enabled: value >= 0,
    observations: { value: { read: () => ({ value }) } },
    actions: {
      increment: { execute: () => ({ value: value + 1 }) },
      setTo: { execute: (input) => ({ value: input.value }), when: () => value < 10, unavailableReason: () => "full" },
      slow: { execute: async (_input, ctx) => void ctx.signal.aborted },
    },
    procedures: [resetProcedure.bind({ execute: () => ({ value: 0 }) })],
  });
  const status: AgentComponentStatus = state.status;
  const id: string | undefined = state.registrationId;
  const snapshot: AgentSurfaceSnapshot = useAgentSurface({ scope: ["demo"], consumer: { id: "a", kind: "embedded" } });
  const { pending, approve, deny } = useAgentConfirmations();
  const first: PendingConfirmation | undefined = pending[0];
  approve("cnf_x");
  deny("cnf_x", "no");
  deny("cnf_x");
  return [status, id, snapshot, first];
}

function Bad({ value }: { value: number }) {
  useAgentComponent(itemContract, {
    // @ts-expect-error read returns the output schema's type
    observations: { label: { read: () => ({ label: value }) } },
  });
  // @ts-expect-error every observation needs a binding
  useAgentComponent(itemContract, { observations: {} });
  useAgentComponent(itemContract, {
    // @ts-expect-error a capability the contract does not declare
    observations: { label: { read: () => ({ label: "x" }) }, other: { read: () => ({}) } },
  });
  useAgentComponent(counterContract, {
    observations: { value: { read: () => ({ value }) } },
    actions: {
      increment: { execute: () => ({ value }) },
      // @ts-expect-error setTo's input is { value: number }
      setTo: { execute: (input: { value: string }) => ({ value: 1 }) },
      slow: { execute: () => {} },
    },
  });
  // @ts-expect-error the provider needs a registry
  AgentSurfaceProvider({});
}

export const elements = [Good, Bad, AgentSurfaceProvider({ registry: createAgentSurfaceRegistry({ authority }) })];
