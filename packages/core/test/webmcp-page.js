// The devices page the WebMCP tests publish (test/webmcp.test.js under happy-dom, and
// test/webmcp-browser.test.js in headless Chromium): a registry from the example app's
// manifest, the table bound to live state with the two domain procedures, and the navigation.
// Plain ES module with no Node or vitest dependency.
import { contractsOf } from "./scenarios/runner.js";

export function createDevicesPage(core, manifest) {
  const contracts = contractsOf(core, manifest);
  const state = {
    rows: [
      { id: "dev_aaaaaa", name: "router", status: "online", lastSeen: null },
      { id: "dev_bbbbbb", name: "printer", status: "offline", lastSeen: "2026-11-30T10:00:00Z" },
    ],
    selection: [],
    sort: "name",
    filter: "",
    path: "/devices",
    decommissioned: [],
    decommissionCalls: 0,
    rebooted: [],
    /** Whether the table's `clearSelection` is available (its `when`). */
    canClear: true,
  };
  const registry = core.createAgentSurfaceRegistry({ authority: core.createCapabilityAuthority(manifest), environment: "development" });
  const bindTable = (instanceId) =>
    contracts.get("view:devices.table").bind({
      ...(instanceId === undefined ? {} : { instanceId }),
      observations: {
        readState: { read: () => ({ rows: state.rows, sort: state.sort, filter: state.filter }) },
        readSelection: { read: () => ({ ids: state.selection }) },
      },
      actions: {
        selectRows: {
          execute: ({ ids }) => {
            state.selection = ids;
          },
        },
        clearSelection: {
          execute: () => {
            state.selection = [];
          },
          when: () => state.canClear,
          unavailableReason: "nothing is selected",
        },
        sortBy: {
          execute: ({ column }) => {
            state.sort = column;
          },
        },
        filter: {
          execute: ({ text }) => {
            state.filter = text;
          },
        },
      },
      procedures: [
        contracts.get("domain:devices.decommission").bind({
          execute: async ({ ids }, ctx) => {
            state.decommissionCalls += 1;
            if (ctx.confirmation === undefined) throw new Error("ran without confirmation evidence");
            state.decommissioned.push(...ids);
            state.rows = state.rows.filter((r) => !ids.includes(r.id));
            return null;
          },
        }),
        contracts.get("domain:devices.reboot").bind({
          execute: ({ ids }) => {
            state.rebooted.push(...ids);
            return { scheduled: ids.length };
          },
        }),
      ],
    });
  const bindNav = () =>
    contracts.get("view:app.nav").bind({
      observations: { currentRoute: { read: () => ({ path: state.path }) } },
      actions: {
        navigate: {
          execute: ({ to }) => {
            state.path = to;
          },
        },
      },
    });
  const handles = { table: registry.register(bindTable()), nav: registry.register(bindNav()) };
  return { registry, state, handles, bindTable, bindNav };
}

/** Lets queued tasks (the draft's "queue a global task") and promise chains run. */
export async function settle(turns = 3) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}
