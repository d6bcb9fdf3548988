// The fixture is the real thing: @agent-surface/vite compiled test/app with the compiler and
// injected provenance into the macro calls; the committed manifest is that compile's output.
import { readFileSync } from "node:fs";
import { isCapabilityAuthority } from "@agent-surface/core";
import { version as reactDomVersion } from "react-dom";
import { expect, test } from "vitest";
import { counterContract, itemContract, resetProcedure } from "./app/src/contracts";
import { authority, reactVersion } from "./helpers";

const committed = JSON.parse(readFileSync(`${import.meta.dirname}/app/agent-surface.manifest.json`, "utf8"));

test("the project runs the React major it is named after, react-dom alike", () => {
  const major = process.env.EXPECTED_REACT_MAJOR;
  expect(major).toMatch(/^1[89]$/);
  expect(reactVersion.split(".")[0]).toBe(major);
  expect(reactDomVersion.split(".")[0]).toBe(major);
});

test("the plugin's authority is the committed manifest (recompile test/app when this fails)", () => {
  expect(isCapabilityAuthority(authority)).toBe(true);
  expect(authority.manifest.manifestHash).toBe(committed.manifestHash);
});

test("every contract carries the compiler's provenance", () => {
  for (const contract of [counterContract, itemContract, resetProcedure]) {
    const entry = committed.contracts.find((c: { id: string }) => c.id === contract.id);
    expect(contract.provenance).toEqual({ id: contract.id, contractHash: entry.contractHash });
  }
});
