// useAgentComponent: registration lifecycle, live handlers, availability pushes, structural
// changes. Every behaviour runs twice: plain, and under <StrictMode> (double render, and the
// simulated unmount + remount of every effect on mount).
import { createAgentToolset, type AgentActionContext, type AgentSurfaceRegistry, type AgentTool } from "@agent-surface/core";
import { act } from "@testing-library/react";
import { Component, Suspense, useEffect, useState, type ReactNode } from "react";
import { describe, expect, test, vi } from "vitest";
import { useAgentComponent, type AgentComponentState } from "../dist/index.js";
import { counterContract, itemContract } from "./app/src/contracts";
import { components, createRegistry, flush, record, renderWith } from "./helpers";

interface CounterProps {
  instanceId?: string;
  enabled?: boolean;
  limit?: number;
  label?: string;
  /** Called by read and execute with the render's label: which closure ran. */
  spy?: (label: string) => void;
  onState?: (s: AgentComponentState) => void;
  onSlow?: (ctx: AgentActionContext) => void;
}

function Counter({ instanceId, enabled, limit = 5, label = "first", spy = () => {}, onState, onSlow }: CounterProps) {
  const [value, setValue] = useState(0);
  const state = useAgentComponent(counterContract, {
    instanceId,
    enabled,
    observations: {
      value: {
        read: () => {
          spy(label);
          return { value };
        },
      },
    },
    actions: {
      increment: {
        execute: () => {
          spy(label);
          setValue(value + 1);
          return { value: value + 1 };
        },
      },
      setTo: {
        execute: ({ value: next }) => {
          setValue(next);
          return { value: next };
        },
        when: () => value < limit,
        unavailableReason: "at the limit",
      },
      slow: {
        execute: (_input, ctx) =>
          new Promise<void>((resolve) => {
            onSlow?.(ctx);
            ctx.signal.addEventListener("abort", () => resolve());
          }),
      },
    },
  });
  onState?.(state);
  return (
    <output data-status={state.status} data-registration={state.registrationId}>
      {value}
    </output>
  );
}

async function invoke(registry: AgentSurfaceRegistry, capabilityId: string, extra: Record<string, unknown> = {}) {
  let result!: Awaited<ReturnType<AgentSurfaceRegistry["invoke"]>>;
  await act(async () => {
    result = await registry.invoke({ capabilityId, input: {}, ...extra } as never);
  });
  return result;
}

const ofType = (events: { type: string }[], type: string) => events.filter((e) => e.type === type);

describe.each([
  { strict: false, mode: "plain" },
  { strict: true, mode: "StrictMode" },
])("useAgentComponent ($mode)", ({ strict }) => {
  test("registers on mount, reports the live handle, unregisters on unmount", async () => {
    const registry = createRegistry();
    const events = record(registry);
    const states: AgentComponentState[] = [];
    const { container, unmount } = renderWith(registry, <Counter onState={(s) => states.push(s)} />, { strict });

    expect(states[0]).toEqual({ status: "pending", registrationId: undefined });
    const live = components(registry, "demo.counter");
    expect(live).toHaveLength(1);
    expect(live[0]!.instanceId).toBe("default");
    const out = container.querySelector("output")!;
    expect(out.dataset.status).toBe("active");
    expect(out.dataset.registration).toBe(live[0]!.registrationId);
    // StrictMode's simulated unmount registered and unregistered once before the live registration.
    expect(ofType(events, "component-registered")).toHaveLength(strict ? 2 : 1);
    expect(ofType(events, "component-unregistered")).toHaveLength(strict ? 1 : 0);

    const ok = await invoke(registry, "view:demo.counter.increment", { registrationId: live[0]!.registrationId });
    expect(ok).toMatchObject({ status: "ok", output: { value: 1 } });
    expect(container.querySelector("output")!.textContent).toBe("1");

    unmount();
    expect(components(registry)).toHaveLength(0);
    const late = await invoke(registry, "view:demo.counter.increment", { registrationId: live[0]!.registrationId });
    expect(late).toMatchObject({ status: "error", error: { code: "COMPONENT_UNMOUNTED" } });
  });

  test("a new closure every render runs live: same registration, same version", async () => {
    const registry = createRegistry();
    const first = vi.fn();
    const second = vi.fn();
    const { rerender } = renderWith(registry, <Counter label="first" spy={first} />, { strict });
    await flush();
    const [before] = components(registry);
    const version = registry.getVersion();
    const events = record(registry);

    rerender(<Counter label="second" spy={second} />);
    await flush();
    expect(registry.getVersion()).toBe(version);
    expect(events).toEqual([]);
    expect(components(registry)[0]!.registrationId).toBe(before!.registrationId);

    const read = await invoke(registry, "view:demo.counter.value", { registrationId: before!.registrationId });
    expect(read).toMatchObject({ status: "ok", output: { value: 0 } });
    const inc = await invoke(registry, "view:demo.counter.increment");
    expect(inc).toMatchObject({ status: "ok", output: { value: 1 } });
    expect(first).not.toHaveBeenCalled();
    expect(second.mock.calls).toEqual([["second"], ["second"]]);

    // The state the handler set is the state the next handler closes over.
    const again = await invoke(registry, "view:demo.counter.increment");
    expect(again).toMatchObject({ status: "ok", output: { value: 2 } });
    expect(registry.getVersion()).toBe(version);
  });

  test("each tool call runs the handler once, re-renders and redeliveries included", async () => {
    // CopilotKit ran a handler 24 times for 9 calls (CopilotKit/CopilotKit#2310).
    const registry = createRegistry();
    const spy = vi.fn();
    const { container } = renderWith(registry, <Counter spy={spy} limit={100} />, { strict });
    const toolset = createAgentToolset(registry, { consumer: { id: "assistant", kind: "embedded" }, topology: "embedded" });
    toolset.tools(); // wireNameMap describes the catalog tools() last built
    const name = [...toolset.wireNameMap()].find(([, id]) => id === "view:demo.counter.increment")![0];
    const version = registry.getVersion();
    const delivered: AgentTool[] = [];
    for (let i = 1; i <= 9; i++) {
      const tool = toolset.tools().find((t) => t.name === name)!;
      delivered.push(tool);
      let r: unknown;
      await act(async () => {
        r = await tool.execute({}, { toolCallId: `call-${i}` });
      });
      expect(r).toMatchObject({ status: "ok", output: { value: i } });
    }
    // A transport delivers every call a second time, exactly as first sent: the cached result.
    for (let i = 1; i <= 9; i++) {
      const again = await delivered[i - 1]!.execute({}, { toolCallId: `call-${i}` });
      expect(again).toMatchObject({ status: "ok", output: { value: i } });
    }
    expect(spy).toHaveBeenCalledTimes(9);
    expect(container.textContent).toBe("9");
    expect(registry.getVersion()).toBe(version);
    toolset.dispose();
  });

  test("parallel calls see each other's updates: an action's state updates commit before the next call", async () => {
    // The engine runs a component's actions one at a time, the next as soon as one settles;
    // the next must run the closure of a render that has seen the previous update.
    const registry = createRegistry();
    const { container } = renderWith(registry, <Counter limit={100} />, { strict });
    const results = await Promise.all([1, 2, 3].map(() => registry.invoke({ capabilityId: "view:demo.counter.increment", input: {} })));
    expect(results.map((r) => (r.status === "ok" ? r.output : r.error.code))).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
    expect(container.textContent).toBe("3");
    const read = await registry.invoke({ capabilityId: "view:demo.counter.value" });
    expect(read).toMatchObject({ status: "ok", output: { value: 3 } });
  });

  test("unmount while an action runs: the call settles COMPONENT_UNMOUNTED and its signal aborts", async () => {
    const registry = createRegistry();
    let ctx: AgentActionContext | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const { unmount } = renderWith(
      registry,
      <Counter
        onSlow={(c) => {
          ctx = c;
          started();
        }}
      />,
      { strict },
    );
    const pending = registry.invoke({ capabilityId: "view:demo.counter.slow", input: {} });
    await running;
    expect(ctx!.signal.aborted).toBe(false);
    const logged = vi.spyOn(console, "warn").mockImplementation(() => {});
    unmount();
    const result = await pending;
    expect(result).toMatchObject({ status: "error", error: { code: "COMPONENT_UNMOUNTED" } });
    expect(ctx!.signal.aborted).toBe(true);
    // The handler resolved when it saw the abort: too late, and the registry says so.
    await flush();
    expect(logged.mock.calls.flat().join("\n")).toMatch(/view:demo\.counter\.slow .* settled COMPONENT_UNMOUNTED; the late settlement is ignored/);
    logged.mockRestore();
  });

  test("when() is re-evaluated after each render and pushed once per change", async () => {
    const registry = createRegistry();
    const { rerender } = renderWith(registry, <Counter limit={5} />, { strict });
    await flush();
    const registrationId = components(registry)[0]!.registrationId;
    const setTo = () => components(registry)[0]!.actions.find((a) => a.name === "setTo")!;
    expect(setTo()).toMatchObject({ available: true });
    const v0 = Number(registry.getVersion());
    const events = record(registry);

    rerender(<Counter limit={0} />); // 0 < 0 is false: unavailable
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 1);
    expect(ofType(events, "availability-changed")).toEqual([
      { type: "availability-changed", registrationId, capabilityId: "view:demo.counter.setTo", available: false },
    ]);
    expect(setTo()).toMatchObject({ available: false, unavailableReason: "at the limit" });
    const refused = await invoke(registry, "view:demo.counter.setTo", { input: { value: 3 } });
    expect(refused).toMatchObject({ status: "error", error: { code: "CAPABILITY_NOT_AVAILABLE" } });

    // Still unavailable, or an unrelated render: nothing to push.
    rerender(<Counter limit={-1} />);
    rerender(<Counter limit={-1} label="other" />);
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 1);

    rerender(<Counter limit={10} />);
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 2);
    expect(setTo()).toMatchObject({ available: true });
    expect(ofType(events, "availability-changed")).toHaveLength(2);
    expect(ofType(events, "component-registered")).toHaveLength(0);
    expect(components(registry)[0]!.registrationId).toBe(registrationId);
    const ok = await invoke(registry, "view:demo.counter.setTo", { input: { value: 3 } });
    expect(ok).toMatchObject({ status: "ok", output: { value: 3 } });
  });

  test("enabled is pushed with update({ enabled }), keeping the registration", async () => {
    const registry = createRegistry();
    const { rerender } = renderWith(registry, <Counter />, { strict });
    await flush();
    const registrationId = components(registry)[0]!.registrationId;
    const v0 = Number(registry.getVersion());

    rerender(<Counter enabled={false} />);
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 1);
    const [disabled] = components(registry);
    expect(disabled!.registrationId).toBe(registrationId);
    expect([...disabled!.observations, ...disabled!.actions].map((c) => [c.available, c.unavailableReason])).toEqual(
      Array(4).fill([false, "component-disabled"]),
    );
    const refused = await invoke(registry, "view:demo.counter.increment");
    expect(refused).toMatchObject({ status: "error", error: { code: "CAPABILITY_NOT_AVAILABLE" } });

    rerender(<Counter enabled />);
    await flush();
    expect(Number(registry.getVersion())).toBe(v0 + 2);
    expect(components(registry)[0]!.actions.every((a) => a.available)).toBe(true);
  });

  test("a component mounted disabled registers disabled", () => {
    const registry = createRegistry();
    renderWith(registry, <Counter enabled={false} />, { strict });
    expect(components(registry)[0]!.actions.every((a) => a.unavailableReason === "component-disabled")).toBe(true);
  });

  test("an instanceId change re-registers: a new registrationId, the old one a tombstone", async () => {
    const registry = createRegistry();
    const states: AgentComponentState[] = [];
    const { rerender } = renderWith(registry, <Counter instanceId="a" onState={(s) => states.push(s)} />, { strict });
    const old = components(registry)[0]!;
    expect(old.instanceId).toBe("a");

    rerender(<Counter instanceId="b" onState={(s) => states.push(s)} />);
    await flush();
    const live = components(registry);
    expect(live.map((c) => c.instanceId)).toEqual(["b"]);
    expect(live[0]!.registrationId).not.toBe(old.registrationId);
    expect(states.at(-1)).toEqual({ status: "active", registrationId: live[0]!.registrationId });

    const stale = await invoke(registry, "view:demo.counter.increment", { registrationId: old.registrationId, instanceId: "a" });
    expect(stale).toMatchObject({ status: "error", error: { code: "COMPONENT_UNMOUNTED" } });
    const ok = await invoke(registry, "view:demo.counter.increment", { registrationId: live[0]!.registrationId, instanceId: "b" });
    expect(ok).toMatchObject({ status: "ok" });
  });

  test("adding a handler is structural: it re-registers rather than being ignored", async () => {
    function Item({ id, guarded }: { id: string; guarded: boolean }) {
      useAgentComponent(itemContract, {
        instanceId: id,
        observations: { label: guarded ? { read: () => ({ label: id }), when: () => false } : { read: () => ({ label: id }) } },
      });
      return null;
    }
    const registry = createRegistry();
    const { rerender } = renderWith(registry, <Item id="x" guarded={false} />, { strict });
    const before = components(registry)[0]!;
    expect(before.observations[0]!.available).toBe(true);
    rerender(<Item id="x" guarded />);
    await flush();
    const after = components(registry)[0]!;
    expect(after.registrationId).not.toBe(before.registrationId);
    expect(after.observations[0]!.available).toBe(false);
  });

  test("one registration per data item, keyed by instanceId; removing an item unregisters only it", async () => {
    function Item({ id }: { id: string }) {
      useAgentComponent(itemContract, { instanceId: id, observations: { label: { read: () => ({ label: `item ${id}` }) } } });
      return <li>{id}</li>;
    }
    function List({ ids }: { ids: string[] }) {
      return (
        <ul>
          {ids.map((id) => (
            <Item key={id} id={id} />
          ))}
        </ul>
      );
    }
    const registry = createRegistry();
    const { rerender } = renderWith(registry, <List ids={["a", "b", "c"]} />, { strict });
    const before = new Map(components(registry, "demo.item").map((c) => [c.instanceId, c.registrationId]));
    expect([...before.keys()]).toEqual(["a", "b", "c"]);

    rerender(<List ids={["c", "a"]} />);
    await flush();
    const after = components(registry, "demo.item");
    expect(after.map((c) => [c.instanceId, c.registrationId])).toEqual([
      ["a", before.get("a")],
      ["c", before.get("c")],
    ]);
    const read = await invoke(registry, "view:demo.item.label", { instanceId: "c" });
    expect(read).toMatchObject({ status: "ok", output: { label: "item c" } });
    const ambiguous = await invoke(registry, "view:demo.item.label");
    expect(ambiguous).toMatchObject({ status: "error", error: { code: "AMBIGUOUS_INSTANCE" } });
  });

  test("a duplicate instance is rejected (no visible duplicate) and says so", () => {
    const registry = createRegistry();
    const states: Record<string, AgentComponentState> = {};
    renderWith(
      registry,
      <>
        <Counter label="one" onState={(s) => (states.one = s)} />
        <Counter label="two" onState={(s) => (states.two = s)} />
      </>,
      { strict },
    );
    expect(components(registry)).toHaveLength(1);
    expect(states.one!.status).toBe("active");
    expect(states.one!.registrationId).toBe(components(registry)[0]!.registrationId);
    expect(states.two!.status).toBe("rejected");
  });

  test("replaced by a newcomer (onDuplicateInstance: replace): the old hook reports unregistered", () => {
    const registry = createRegistry({ onDuplicateInstance: "replace" });
    const states: Record<string, AgentComponentState> = {};
    const Both = ({ two }: { two: boolean }) => (
      <>
        <Counter label="one" onState={(s) => (states.one = s)} />
        {two && <Counter label="two" onState={(s) => (states.two = s)} />}
      </>
    );
    const { rerender } = renderWith(registry, <Both two={false} />, { strict });
    const first = states.one!.registrationId;
    rerender(<Both two />);
    expect(states.one!.registrationId).toBe(first);
    expect(states.one!.status).toBe("unregistered");
    expect(states.two!.status).toBe("active");
    expect(components(registry).map((c) => c.registrationId)).toEqual([states.two!.registrationId]);
  });

  test("a sibling's passive effect in the same commit already sees the registration (navigation)", () => {
    // The page an agent loop starts on: its effect runs before the counter's own effects would.
    const registry = createRegistry();
    const seen: string[][] = [];
    function Assistant() {
      useEffect(() => {
        seen.push(registry.snapshot().components.map((c) => c.type));
      }, []);
      return null;
    }
    function Page({ page }: { page: "home" | "counter" }) {
      return page === "home" ? (
        <p>home</p>
      ) : (
        <>
          <Assistant />
          <Counter />
        </>
      );
    }
    const { rerender } = renderWith(registry, <Page page="home" />, { strict });
    rerender(<Page page="counter" />);
    expect(seen[0]).toEqual(["demo.counter"]);
    rerender(<Page page="home" />);
    expect(components(registry)).toEqual([]);
  });

  test("a subtree Suspense hides behind its fallback is unregistered until it shows again", async () => {
    const registry = createRegistry();
    let resolve!: () => void;
    const gate = { done: false, promise: new Promise<void>((r) => (resolve = r)).then(() => void (gate.done = true)) };
    function Gate({ wait }: { wait: boolean }) {
      if (wait && !gate.done) throw gate.promise;
      return null;
    }
    function Page({ wait }: { wait: boolean }) {
      return (
        <Suspense fallback={<p>loading</p>}>
          <Counter />
          <Gate wait={wait} />
        </Suspense>
      );
    }
    const { rerender } = renderWith(registry, <Page wait={false} />, { strict });
    const before = components(registry)[0]!.registrationId;
    // A transition would keep the old UI; a plain update re-suspends and shows the fallback.
    rerender(<Page wait />);
    expect(components(registry)).toEqual([]);
    await act(async () => {
      resolve();
      await gate.promise;
    });
    const after = components(registry);
    expect(after).toHaveLength(1);
    expect(after[0]!.registrationId).not.toBe(before);
  });

  test("the registry comes from the provider; a different registry re-registers there", async () => {
    const a = createRegistry();
    const b = createRegistry();
    const { rerender } = renderWith(a, <Counter />, { strict });
    expect(components(a)).toHaveLength(1);
    // renderWith's wrapper is fixed per render call: re-render under b's provider.
    const { AgentSurfaceProvider } = await import("../dist/index.js");
    rerender(<AgentSurfaceProvider registry={b}>{<Counter />}</AgentSurfaceProvider>);
    await flush();
    expect(components(b)).toHaveLength(1);
    expect(components(a)).toHaveLength(0);
  });
});

test("without a provider the hook says what is missing", () => {
  function Orphan() {
    useAgentComponent(itemContract, { observations: { label: { read: () => ({ label: "x" }) } } });
    return null;
  }
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  return import("@testing-library/react").then(({ render }) => {
    expect(() => render(<Orphan />)).toThrow(/no <AgentSurfaceProvider/);
    spy.mockRestore();
  });
});

class Boundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    return this.state.error ? <p role="alert">{this.state.error.message}</p> : this.props.children;
  }
}

test("a binding the contract refuses reaches the error boundary with the contract's own error", () => {
  function Broken() {
    // Missing the read handler of "label".
    useAgentComponent(itemContract, { observations: { label: {} } } as never);
    return null;
  }
  const registry = createRegistry();
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  const { getByRole } = renderWith(
    registry,
    <Boundary>
      <Broken />
    </Boundary>,
  );
  spy.mockRestore();
  expect(getByRole("alert").textContent).toMatch(/observation "label" of "view:demo.item" has no read handler/);
  expect(components(registry)).toHaveLength(0);
});
