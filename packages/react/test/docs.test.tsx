// docs/react.md's example is test/app/src (counter.agent.ts, registry.ts, CartCounter.tsx,
// ConfirmDialog.tsx, App.tsx, main.tsx, agent.ts): the page quotes each file verbatim, and this
// test mounts main.tsx and runs the agent steps the page shows.
import { readFileSync } from "node:fs";
import { act, fireEvent, screen } from "@testing-library/react";
import { beforeAll, expect, test } from "vitest";

const app = `${import.meta.dirname}/app/src`;
const files = ["counter.agent.ts", "registry.ts", "CartCounter.tsx", "ConfirmDialog.tsx", "App.tsx", "main.tsx", "agent.ts"];
const doc = readFileSync(`${import.meta.dirname}/../../../docs/react.md`, "utf8");

/** A file without its leading comment lines: what the page quotes. */
const quoted = (file: string) =>
  readFileSync(`${app}/${file}`, "utf8")
    .split("\n")
    .filter((line, i, lines) => !(line.startsWith("// ") && lines.slice(0, i).every((l) => l.startsWith("// "))))
    .join("\n")
    .trim();

test.each(files)("docs/react.md quotes test/app/src/%s verbatim", (file) => {
  expect(doc).toContain(quoted(file));
});

let agent: typeof import("./app/src/agent");

beforeAll(async () => {
  document.body.innerHTML = '<div id="root"></div>';
  await act(async () => {
    await import("./app/src/main");
  });
  agent = await import("./app/src/agent");
});

const count = () => screen.getByText(/items$/).textContent;

test("the agent reads and operates the component; the user's edits are live for it", async () => {
  expect(count()).toBe("0 items");
  expect(screen.getByText("(active)")).toBeDefined();
  expect(await agent.call("view:shop.cart.counter.count", {}, "call-1")).toMatchObject({ status: "ok", output: { value: 0 } });

  let added: unknown;
  await act(async () => {
    added = await agent.call("view:shop.cart.counter.add", { by: 2 }, "call-2");
  });
  expect(added).toMatchObject({ status: "ok", output: { value: 2 } });
  expect(count()).toBe("2 items");

  fireEvent.click(screen.getByRole("button", { name: "Add one" }));
  expect(await agent.call("view:shop.cart.counter.count", {}, "call-3")).toMatchObject({ status: "ok", output: { value: 3 } });

  const invalid = await agent.call("view:shop.cart.counter.add", { by: 50 }, "call-4");
  expect(invalid).toMatchObject({ status: "error", error: { code: "INVALID_INPUT" } });
});

test("emptying the cart waits for the page's dialog; Approve runs it once", async () => {
  const emptied = agent.call("domain:shop.cart.empty", {}, "call-5");
  const dialog = await screen.findByRole("dialog", { name: "Confirm" });
  expect(dialog.textContent).toContain("The assistant asks:");
  fireEvent.click(screen.getByRole("button", { name: "Approve" }));
  expect(await emptied).toMatchObject({ status: "ok", capabilityId: "domain:shop.cart.empty" });
  expect(count()).toBe("0 items");
  expect(screen.queryByRole("dialog")).toBeNull();
  // A redelivery of the same call neither runs it again nor asks again.
  fireEvent.click(screen.getByRole("button", { name: "Add one" }));
  await agent.call("domain:shop.cart.empty", {}, "call-5");
  expect(count()).toBe("1 items");
  expect(screen.queryByRole("dialog")).toBeNull();
  fireEvent.click(screen.getByRole("button", { name: "Add one" }));
});

test("a redelivered add returns the cached result; nothing runs twice", async () => {
  const before = count();
  expect(await agent.call("view:shop.cart.counter.add", { by: 2 }, "call-2")).toMatchObject({ status: "ok", output: { value: 2 } });
  expect(count()).toBe(before);
});

// A wait-mode toolset remembers the confirmation a call waited for: a redelivery of the original
// tool call is the confirmed request again, answered from the idempotency window.
test("a redelivered confirmed call returns its cached result", async () => {
  expect(await agent.call("domain:shop.cart.empty", {}, "call-5")).toMatchObject({ status: "ok" });
});

test("Deny: the call settles CONFIRMATION_DENIED and nothing runs", async () => {
  fireEvent.click(screen.getByRole("button", { name: "Add one" }));
  const emptied = agent.call("domain:shop.cart.empty", {}, "call-6");
  fireEvent.click(await screen.findByRole("button", { name: "Deny" }));
  expect(await emptied).toMatchObject({ status: "error", error: { code: "CONFIRMATION_DENIED", details: { reason: "declined in the dialog" } } });
  expect(count()).toBe("3 items");
});
