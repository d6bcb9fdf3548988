// Type tests (tsc --noEmit, `npm run test:types`): the contracts of examples/devices-app/src as
// that app writes them (shared `as const` schema pieces, spreads of `as const` tuples, a schema
// constant passed as is, zod through fromStandardSchema), and its handlers written with NO
// annotation and NO cast: every parameter is typed from the schemas. `useAgentComponent` takes
// the same handlers as `contract.bind`. Nothing here runs.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  fromStandardSchema,
  observationContract,
  type JsonSchema,
  type StandardSchemaV1,
} from "@agent-surface/core";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

// ---- src/schemas (shared pieces, `as const` as the app writes them)

const DEVICE_ID = { type: "string", pattern: "^dev_[a-z0-9]{6,}$", description: "A device id such as dev_8f3k2a" } as const;
const DeviceStatus = { enum: ["online", "offline", "maintenance"], description: "Connectivity status" } as const;
const DeviceRow = {
  type: "object",
  properties: {
    id: DEVICE_ID,
    name: { type: "string", maxLength: 120 },
    status: DeviceStatus,
    lastSeen: { type: ["string", "null"], format: "date-time" },
  },
  required: ["id", "name", "status", "lastSeen"],
  additionalProperties: false,
} as const;
const SORTABLE_COLUMNS = ["name", "status", "lastSeen"] as const;
const reportFormats = ["csv", "pdf", "xlsx"] as const;
const ROUTES = ["/devices", "/devices/:id", "/reports", "/settings"] as const;
const NavigateInput = {
  type: "object",
  properties: {
    to: { enum: [...ROUTES], description: "Route to open" },
    params: { type: "object", properties: { id: { type: "string" } }, additionalProperties: false },
  },
  required: ["to"],
  additionalProperties: false,
} as const;

// zod schemas (src/schemas/zod.ts) stand here as Standard Schemas of the same output types.
declare const SortInput: StandardSchemaV1<unknown, { column: (typeof SORTABLE_COLUMNS)[number]; direction: "asc" | "desc" }>;
declare const FilterInput: StandardSchemaV1<unknown, { text: string; status?: "online" | "offline" | "maintenance" | undefined }>;
declare const RebootInput: StandardSchemaV1<unknown, { ids: string[]; reason?: string | undefined; notifyOwners: boolean }>;
declare const ExportJob: StandardSchemaV1<unknown, { jobId: string; queuedAt: string }>;
declare function toJSONSchema(schema: unknown): JsonSchema;

// src/lib/types.ts
type Device = { id: string; name: string; status: "online" | "offline" | "maintenance"; lastSeen: string | null };

// ---- src/domain/devices.ts

const DeviceIdsInput = fromJsonSchema({
  type: "object",
  properties: { ids: { type: "array", items: DEVICE_ID, minItems: 1, maxItems: 50 } },
  required: ["ids"],
  additionalProperties: false,
});

const rebootDevices = defineAgentProcedureContract({
  id: "domain:devices.reboot",
  description: "Reboot devices. They are offline for about a minute.",
  input: fromStandardSchema(RebootInput, { jsonSchema: toJSONSchema(RebootInput) }),
  output: fromJsonSchema({
    type: "object",
    properties: { scheduled: { type: "integer", minimum: 0 } },
    required: ["scheduled"],
    additionalProperties: false,
  }),
  effect: "mutation",
  tags: ["devices"],
});

const decommissionDevices = defineAgentProcedureContract({
  id: "domain:devices.decommission",
  description: "Permanently remove devices from management. Cannot be undone.",
  input: DeviceIdsInput,
  effect: "destructive",
  audit: "full",
  policies: [{ name: "role", requires: "admin" }],
});

// ---- src/external/reports.ts

const exportReport = defineExternalAgentToolContract({
  id: "external:reports.export",
  description: "Export the devices report and email it to the signed-in user.",
  input: fromJsonSchema({
    type: "object",
    properties: {
      format: { enum: [...reportFormats], default: "csv" },
      since: { type: "string", format: "date" },
    },
    additionalProperties: false,
  }),
  output: fromStandardSchema(ExportJob, { jsonSchema: toJSONSchema(ExportJob) }),
  effect: "external-side-effect",
  confirmation: "required",
});

// ---- src/components/DevicesTable.tsx

const MAX_SELECTION = 50;

const selectionSchema = fromJsonSchema({
  type: "object",
  properties: {
    ids: { type: "array", items: DEVICE_ID, maxItems: MAX_SELECTION, uniqueItems: true },
  },
  required: ["ids"],
  additionalProperties: false,
});

const devicesTableContract = defineAgentComponentContract({
  type: "devices.table",
  description: "The table of managed devices. Read what is visible and selected; select rows, sort and filter the view.",
  priority: 10,
  tags: ["devices", "table"],
  meta: { columns: [...SORTABLE_COLUMNS] },
  observations: {
    readState: observationContract({
      description: "Visible rows, in display order, with the current sort and filter.",
      output: fromJsonSchema({
        type: "object",
        properties: {
          rows: { type: "array", items: DeviceRow, maxItems: 200 },
          sort: { enum: [...SORTABLE_COLUMNS] },
          filter: { type: "string" },
        },
        required: ["rows", "sort", "filter"],
        additionalProperties: false,
      }),
    }),
    readSelection: observationContract({ description: "Ids of the selected devices.", output: selectionSchema }),
  },
  actions: {
    selectRows: actionContract({
      description: `Select up to ${MAX_SELECTION} devices by id, replacing the selection.`,
      input: selectionSchema,
      effect: "local-state",
      idempotent: true,
    }),
    clearSelection: actionContract({ description: "Clear the selection.", input: emptyObjectSchema, effect: "local-state", idempotent: true }),
    sortBy: actionContract({
      description: "Sort the table by a column.",
      input: fromStandardSchema(SortInput, { jsonSchema: toJSONSchema(SortInput) }),
      effect: "local-state",
    }),
    filter: actionContract({
      description: "Show only devices whose name contains the text, optionally with one status.",
      input: fromStandardSchema(FilterInput, { jsonSchema: toJSONSchema(FilterInput) }),
      effect: "local-state",
      audit: "full",
    }),
  },
});

// The component's state (useState in the app).
declare const visible: Device[];
declare const sort: { column: (typeof SORTABLE_COLUMNS)[number]; direction: "asc" | "desc" };
declare const filterText: string;
declare const selection: string[];
declare function setSelection(next: string[] | ((s: string[]) => string[])): void;
declare function setSort(next: { column: (typeof SORTABLE_COLUMNS)[number]; direction: "asc" | "desc" }): void;
declare function setFilter(text: string): void;
declare function setStatus(status: Device["status"] | ""): void;
declare function setRebooting(ids: string[]): void;
declare function sleep(ms: number, signal: AbortSignal): Promise<void>;
declare function onDecommission(ids: string[]): void;

devicesTableContract.bind({
  instanceId: "main",
  observations: {
    readState: { read: () => ({ rows: visible, sort: sort.column, filter: filterText }) },
    readSelection: { read: () => ({ ids: selection }) },
  },
  actions: {
    // The app casts here today ((input as { ids: string[] }).ids): no longer needed.
    selectRows: {
      execute: (input) => {
        assertType<Equal<typeof input, { ids: string[] }>>(true);
        setSelection(input.ids);
      },
    },
    clearSelection: { execute: () => setSelection([]) },
    sortBy: { execute: ({ column, direction }) => setSort({ column, direction: direction ?? "asc" }) },
    filter: {
      execute: ({ text, status }) => {
        setFilter(text);
        setStatus(status ?? "");
      },
    },
  },
  procedures: [
    decommissionDevices.bind({
      execute: (input) => {
        const { ids } = input;
        assertType<Equal<typeof ids, string[]>>(true);
        onDecommission(ids);
        setSelection((s) => s.filter((id) => !ids.includes(id)));
      },
    }),
    rebootDevices.bind({
      execute: async (input, ctx) => {
        const { ids } = input;
        setRebooting(ids);
        await sleep(1500, ctx.signal);
        return { scheduled: ids.length };
      },
    }),
  ],
});

devicesTableContract.bind({
  observations: {
    // @ts-expect-error a row's status is one of the enum's values, lastSeen is required
    readState: { read: () => ({ rows: [{ id: "dev_1", name: "a", status: "lost" }], sort: "name", filter: "" }) },
    readSelection: { read: () => ({ ids: selection }) },
  },
  actions: {
    selectRows: { execute: () => undefined },
    clearSelection: { execute: () => undefined },
    sortBy: { execute: () => undefined },
    filter: { execute: () => undefined },
  },
});

devicesTableContract.bind({
  observations: {
    // @ts-expect-error sort is a column name from SORTABLE_COLUMNS
    readState: { read: () => ({ rows: visible, sort: "id", filter: "" }) },
    readSelection: { read: () => ({ ids: selection }) },
  },
  actions: {
    selectRows: { execute: () => undefined },
    clearSelection: { execute: () => undefined },
    sortBy: { execute: () => undefined },
    filter: { execute: () => undefined },
  },
});

// @ts-expect-error the reboot procedure returns { scheduled: integer }
rebootDevices.bind({ execute: async () => ({ scheduled: "now" }) });

// ---- src/external/reports.ts's binding (src/assistant/tools.ts binds it)

exportReport.bind({
  execute: (input) => {
    // `format` has a default: always present after parse.
    assertType<Equal<typeof input, { format: "csv" | "pdf" | "xlsx"; since?: string }>>(true);
    return { jobId: `${input.format}-${input.since ?? "all"}`, queuedAt: new Date().toISOString() };
  },
});

// ---- src/routes/AppNav.tsx (the schema constant is passed as is, namespace import)

import * as agent from "@agent-surface/core";

const appNavContract = agent.defineAgentComponentContract({
  type: "app.nav",
  description: "The application's main navigation.",
  observations: {
    currentRoute: agent.observationContract({
      description: "The route currently shown.",
      output: agent.fromJsonSchema({
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
        additionalProperties: false,
      }),
    }),
  },
  actions: {
    navigate: agent.actionContract({ description: "Open a page of the app.", input: agent.fromJsonSchema(NavigateInput), effect: "navigation" }),
  },
});

declare const path: string;
declare function navigate(to: string): void;

appNavContract.bind({
  instanceId: "main",
  observations: { currentRoute: { read: () => ({ path }) } },
  actions: {
    navigate: {
      execute: ({ to, params }) => {
        assertType<Equal<typeof to, "/devices" | "/devices/:id" | "/reports" | "/settings">>(true);
        assertType<Equal<typeof params, { id?: string } | undefined>>(true);
        navigate(to === "/devices/:id" ? `/devices/${params?.id ?? ""}` : to);
      },
    },
  },
});

appNavContract.bind({
  observations: { currentRoute: { read: () => ({ path }) } },
  actions: {
    navigate: {
      // @ts-expect-error "/admin" is not one of the routes
      execute: ({ to }) => navigate(to === "/admin" ? "/" : to),
    },
  },
});
