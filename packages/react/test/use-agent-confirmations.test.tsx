// useAgentConfirmations with the app's own dialog, and procedures bound inline in
// useAgentComponent (live references like the component's own handlers). The agent side is the
// real embedded toolset in wait mode: the tool call waits for the user's answer in the page.
import { createAgentToolset, type AgentSurfaceRegistry, type AgentTool, type PendingConfirmation } from "@agent-surface/core";
import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, test, vi } from "vitest";
import { useAgentComponent, useAgentConfirmations } from "../dist/index.js";
import { itemContract, resetProcedure } from "./app/src/contracts";
import { createRegistry, flush, record, renderWith } from "./helpers";

/** A component that references the destructive procedure with an inline executor. */
function Resettable({ serverValue, spy, allowed = true }: { serverValue: number; spy: (v: number) => void; allowed?: boolean }) {
  useAgentComponent(itemContract, {
    instanceId: "panel",
    observations: { label: { read: () => ({ label: "panel" }) } },
    procedures: [
      resetProcedure.bind({
        execute: () => {
          spy(serverValue);
          return { value: serverValue };
        },
        when: () => allowed,
        unavailableReason: "not allowed now",
        describe: () => `the server has ${serverValue}`,
      }),
    ],
  });
  return null;
}

/** The app's own confirmation dialog. */
function Dialog({ seen }: { seen?: (readonly PendingConfirmation[])[] }) {
  const { pending, approve, deny } = useAgentConfirmations();
  seen?.push(pending);
  return (
    <ul>
      {pending.map((c) => (
        <li key={c.confirmationId}>
          <span>{c.summary}</span>
          <button onClick={() => approve(c.confirmationId)}>Approve</button>
          <button onClick={() => deny(c.confirmationId, "not today")}>Deny</button>
        </li>
      ))}
    </ul>
  );
}

function App({ serverValue, spy, seen, allowed }: { serverValue: number; spy: (v: number) => void; seen?: (readonly PendingConfirmation[])[]; allowed?: boolean }) {
  return (
    <>
      <Resettable serverValue={serverValue} spy={spy} allowed={allowed} />
      <Dialog seen={seen} />
    </>
  );
}

function resetTool(registry: AgentSurfaceRegistry): AgentTool {
  const toolset = createAgentToolset(registry, { consumer: { id: "assistant", kind: "embedded" }, topology: "embedded" });
  const tools = toolset.tools();
  const name = [...toolset.wireNameMap()].find(([, id]) => id === "domain:demo.reset")![0];
  return tools.find((t) => t.name === name)!;
}

describe.each([
  { strict: false, mode: "plain" },
  { strict: true, mode: "StrictMode" },
])("confirmations and inline procedures ($mode)", ({ strict }) => {
  test("approve in the app's dialog: the held call runs once, the latest inline executor", async () => {
    const registry = createRegistry();
    const first = vi.fn();
    const latest = vi.fn();
    const { rerender } = renderWith(registry, <App serverValue={1} spy={first} />, { strict });
    await flush();
    const version = registry.getVersion();
    rerender(<App serverValue={7} spy={latest} />);
    await flush();
    expect(registry.getVersion()).toBe(version); // a new inline bind() is not a new registration

    const call = resetTool(registry).execute({}, { toolCallId: "call-1" });
    const approve = await screen.findByRole("button", { name: "Approve" });
    expect(registry.confirmations.pending()).toHaveLength(1);
    fireEvent.click(approve);
    const result = await call;
    expect(result).toMatchObject({ status: "ok", capabilityId: "domain:demo.reset", output: { value: 7 } });
    expect(first).not.toHaveBeenCalled();
    expect(latest).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Approve" })).toBeNull());
  });

  test("deny in the app's dialog: CONFIRMATION_DENIED with the user's reason, the executor never runs", async () => {
    const registry = createRegistry();
    const spy = vi.fn();
    renderWith(registry, <App serverValue={3} spy={spy} />, { strict });
    const call = resetTool(registry).execute({}, { toolCallId: "call-2" });
    fireEvent.click(await screen.findByRole("button", { name: "Deny" }));
    const result = await call;
    expect(result).toMatchObject({ status: "error", error: { code: "CONFIRMATION_DENIED", details: { reason: "not today" } } });
    expect(spy).not.toHaveBeenCalled();
    expect(registry.confirmations.pending()).toEqual([]);
  });

  test("pending is one stable array per list: re-renders do not make new ones", async () => {
    const registry = createRegistry();
    const seen: (readonly PendingConfirmation[])[] = [];
    const { rerender } = renderWith(registry, <App serverValue={1} spy={() => {}} seen={seen} />, { strict });
    const empty = seen.at(-1)!;
    rerender(<App serverValue={2} spy={() => {}} seen={seen} />);
    expect(seen.at(-1)).toBe(empty);

    const call = resetTool(registry).execute({}, { toolCallId: "call-3" });
    await screen.findByRole("button", { name: "Approve" });
    const one = seen.at(-1)!;
    expect(one.map((c) => c.capabilityId)).toEqual(["domain:demo.reset"]);
    expect(one[0]).toMatchObject({ effect: "destructive", consumerKey: "embedded:assistant", input: {} });
    rerender(<App serverValue={3} spy={() => {}} seen={seen} />);
    expect(seen.at(-1)).toBe(one);
    act(() => registry.confirmations.resolve(one[0]!.confirmationId, { approved: false }));
    await call;
  });

  test("a request made before the dialog subscribed still shows", async () => {
    const registry = createRegistry();
    renderWith(registry, <Resettable serverValue={1} spy={() => {}} />, { strict });
    const first = await registry.invoke({ capabilityId: "domain:demo.reset", input: {} });
    expect(first).toMatchObject({ status: "error", error: { code: "CONFIRMATION_REQUIRED" } });
    const { render } = await import("@testing-library/react");
    const { AgentSurfaceProvider } = await import("../dist/index.js");
    render(
      <AgentSurfaceProvider registry={registry}>
        <Dialog />
      </AgentSurfaceProvider>,
    );
    expect(screen.getAllByRole("button", { name: "Approve" })).toHaveLength(1);
  });

  test("a procedure's when() cannot be pushed as an override: its change bumps the version once (invalidate)", async () => {
    const registry = createRegistry();
    const { rerender } = renderWith(registry, <App serverValue={1} spy={() => {}} allowed />, { strict });
    await flush();
    const procedure = () => registry.snapshot().procedures.find((p) => p.capabilityId === "domain:demo.reset")!;
    expect(procedure()).toMatchObject({ available: true, contextualNote: "the server has 1" });
    const v0 = Number(registry.getVersion());
    const events = record(registry);

    rerender(<App serverValue={2} spy={() => {}} allowed={false} />);
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 1);
    expect(events.filter((e) => e.type === "surface-changed")).toHaveLength(1);
    expect(procedure()).toMatchObject({ available: false, unavailableReason: "not allowed now", contextualNote: "the server has 2" });
    rerender(<App serverValue={3} spy={() => {}} allowed={false} />);
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 1);
  });
});
