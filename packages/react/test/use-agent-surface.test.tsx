// useAgentSurface: the snapshot through useSyncExternalStore, re-rendering on surface-changed,
// one cached snapshot per (version, context).
import type { AgentSurfaceSnapshot, SnapshotContext } from "@agent-surface/core";
import { describe, expect, test } from "vitest";
import { useState } from "react";
import { useAgentComponent, useAgentSurface, useAgentSurfaceRegistry } from "../dist/index.js";
import { itemContract } from "./app/src/contracts";
import { createRegistry, flush, renderWith } from "./helpers";

function Item({ id }: { id: string }) {
  useAgentComponent(itemContract, { instanceId: id, observations: { label: { read: () => ({ label: id }) } } });
  return null;
}

function Surface({ ctx, seen }: { ctx?: SnapshotContext; seen: AgentSurfaceSnapshot[] }) {
  const snapshot = useAgentSurface(ctx);
  seen.push(snapshot);
  return <p>{snapshot.components.map((c) => c.instanceId).join(",")}</p>;
}

describe.each([
  { strict: false, mode: "plain" },
  { strict: true, mode: "StrictMode" },
])("useAgentSurface ($mode)", ({ strict }) => {
  test("re-renders when the surface changes, with the registry's snapshot", async () => {
    const registry = createRegistry();
    const seen: AgentSurfaceSnapshot[] = [];
    function App({ ids }: { ids: string[] }) {
      return (
        <>
          <Surface seen={seen} />
          {ids.map((id) => (
            <Item key={id} id={id} />
          ))}
        </>
      );
    }
    const { container, rerender } = renderWith(registry, <App ids={[]} />, { strict });
    expect(seen[0]!.components).toEqual([]);
    expect(seen[0]!.surfaceId).toBe(registry.surfaceId);

    rerender(<App ids={["a", "b"]} />);
    await flush();
    expect(container.textContent).toBe("a,b");
    const last = seen.at(-1)!;
    expect(last.surfaceVersion).toBe(registry.getVersion());
    expect(last.components.map((c) => c.registrationId)).toEqual(registry.snapshot().components.map((c) => c.registrationId));

    rerender(<App ids={["b"]} />);
    await flush();
    expect(container.textContent).toBe("b");
  });

  test("the snapshot is cached per version: an unrelated render gets the same object", async () => {
    const registry = createRegistry();
    const seen: AgentSurfaceSnapshot[] = [];
    let bump!: () => void;
    function App() {
      const [n, setN] = useState(0);
      bump = () => setN(n + 1);
      return (
        <>
          <Surface seen={seen} ctx={{ includeUnavailable: true }} />
          <Item id="a" />
          <span>{n}</span>
        </>
      );
    }
    const { container } = renderWith(registry, <App />, { strict });
    await flush();
    const before = seen.at(-1)!;
    const renders = seen.length;
    const { act } = await import("@testing-library/react");
    act(() => bump());
    act(() => bump());
    expect(container.querySelector("span")!.textContent).toBe("2");
    expect(seen.length).toBeGreaterThan(renders);
    // A new context object with the same value, a new render: the same snapshot.
    for (const s of seen.slice(renders)) expect(s).toBe(before);
  });

  test("the context scopes the snapshot, and a different context gets its own", async () => {
    const registry = createRegistry();
    const seen: AgentSurfaceSnapshot[] = [];
    let setScope!: (s: string[]) => void;
    function App() {
      const [scope, set] = useState(["demo.item"]);
      setScope = set;
      const registryOfProvider = useAgentSurfaceRegistry();
      expect(registryOfProvider).toBe(registry);
      return (
        <>
          <Surface seen={seen} ctx={{ scope }} />
          <Item id="x" />
        </>
      );
    }
    const { container } = renderWith(registry, <App />, { strict });
    await flush();
    expect(container.textContent).toBe("x");
    const { act } = await import("@testing-library/react");
    act(() => setScope(["demo.counter"]));
    expect(container.textContent).toBe("");
    expect(seen.at(-1)!.components).toEqual([]);
  });
});
