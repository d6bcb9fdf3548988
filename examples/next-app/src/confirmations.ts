// The gateway asks `confirm(capabilityId, input)` before an external tool whose contract requires
// confirmation runs. This small store turns that question into a pending request the same
// dialog renders next to the registry's confirmations.
import { useSyncExternalStore } from "react";
import type { JsonValue } from "@agent-surface/core";

export interface GatewayRequest {
  id: string;
  capabilityId: string;
  input: JsonValue;
  answer: (approved: boolean) => void;
}

let pending: GatewayRequest[] = [];
const listeners = new Set<() => void>();
let next = 0;

function set(list: GatewayRequest[]) {
  pending = list;
  for (const l of listeners) l();
}

export function askUser(capabilityId: string, input: JsonValue): Promise<boolean> {
  return new Promise((resolve) => {
    const id = `gw-${++next}`;
    const answer = (approved: boolean) => {
      set(pending.filter((r) => r.id !== id));
      resolve(approved);
    };
    set([...pending, { id, capabilityId, input, answer }]);
  });
}

export function useGatewayConfirmations(): GatewayRequest[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => pending,
  );
}
