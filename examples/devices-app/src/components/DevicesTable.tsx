import { useEffect, useMemo, useState } from "react";
import { useAgentComponent } from "@agent-surface/react";
import {
  actionContract,
  defineAgentComponentContract,
  emptyObjectSchema,
  fromJsonSchema,
  fromStandardSchema,
  observationContract,
} from "@agent-surface/core";
import { z } from "zod";
import { DEVICE_ID, DeviceRow, SORTABLE_COLUMNS } from "@/schemas";
import { FilterInput, SortInput } from "@/schemas/zod";
import type { Device } from "../lib/types";
import { labelDevice, rebootDevices, tagDevices } from "../domain/devices";
import { decommissionDevices } from "../domain/procedures";
import { pingDevices, renameDevice } from "../domain/maintenance";
import { formatLastSeen } from "../lib/format";
import { onDecommissioned } from "../registry";
import { ran } from "../runs";

const MAX_SELECTION = 50;

const selectionSchema = fromJsonSchema({
  type: "object",
  properties: {
    ids: { type: "array", items: DEVICE_ID, maxItems: MAX_SELECTION, uniqueItems: true },
  },
  required: ["ids"],
  additionalProperties: false,
});

export const devicesTableContract = defineAgentComponentContract({
  type: "devices.table",
  description:
    "The table of managed devices. Read what is visible and selected; select rows, sort and filter the view.",
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
    readSelection: observationContract({
      description: "Ids of the selected devices.",
      output: selectionSchema,
    }),
  },
  actions: {
    selectRows: actionContract({
      description: `Select up to ${MAX_SELECTION} devices by id, replacing the selection.`,
      input: selectionSchema,
      effect: "local-state",
      idempotent: true,
    }),
    clearSelection: actionContract({
      description: "Clear the selection.",
      input: emptyObjectSchema,
      effect: "local-state",
      idempotent: true,
    }),
    sortBy: actionContract({
      description: "Sort the table by a column.",
      input: fromStandardSchema(SortInput, { jsonSchema: z.toJSONSchema(SortInput, { io: "input" }) }),
      effect: "local-state",
    }),
    filter: actionContract({
      description: "Show only devices whose name contains the text, optionally with one status.",
      input: fromStandardSchema(FilterInput, { jsonSchema: z.toJSONSchema(FilterInput, { io: "input" }) }),
      effect: "local-state",
      audit: "full",
    }),
  },
});

type Column = (typeof SORTABLE_COLUMNS)[number];
type Status = Device["status"];

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}

export function DevicesTable({
  devices,
  onRebooted,
  onRenamed,
}: {
  devices: Device[];
  onRebooted: (ids: string[]) => void;
  onRenamed: (id: string, name: string) => void;
}) {
  const [filter, setFilter] = useState("");
  const [status, setStatus] = useState<Status | "">("");
  const [sort, setSort] = useState<{ column: Column; direction: "asc" | "desc" }>({ column: "name", direction: "asc" });
  const [selection, setSelection] = useState<string[]>([]);
  const [rebooting, setRebooting] = useState<string[]>([]);
  // A decommissioned device leaves the selection once the server acknowledged it.
  useEffect(() => onDecommissioned((ids) => setSelection((s) => s.filter((id) => !ids.includes(id)))), []);

  const visible = useMemo(() => {
    const rows = devices.filter((d) => d.name.includes(filter) && (status === "" || d.status === status));
    const key = (d: Device) => (sort.column === "lastSeen" ? (d.lastSeen ?? "") : d[sort.column]);
    rows.sort((a, b) => key(a).localeCompare(key(b)) * (sort.direction === "asc" ? 1 : -1));
    return rows;
  }, [devices, filter, status, sort]);

  const { status: agentStatus } = useAgentComponent(devicesTableContract, {
    instanceId: "main",
    observations: {
      readState: { read: () => ({ rows: visible, sort: sort.column, filter }) },
      readSelection: { read: () => ({ ids: selection }) },
    },
    actions: {
      selectRows: { execute: (input) => setSelection((input as { ids: string[] }).ids) },
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
      // No `execute`: the registry forwards it to the oRPC server (../registry.ts); the table
      // learns of a decommission the server acknowledged through onDecommissioned.
      decommissionDevices.bind({}),
      rebootDevices.bind({
        // Scheduling a reboot takes a moment; unmounting the table aborts it (ctx.signal).
        execute: async (input, ctx) => {
          const { ids } = input as { ids: string[] };
          setRebooting(ids);
          try {
            await sleep(1500, ctx.signal);
          } finally {
            setRebooting([]);
          }
          ran("reboot", ids.join(","));
          onRebooted(ids);
          return { scheduled: ids.length };
        },
      }),
      // Valibot validates the input after the JSON Schema (fromStandardSchema).
      renameDevice.bind({
        execute: (input) => {
          const { id, name } = input as { id: string; name: string };
          ran("rename", `${id}=${name}`);
          onRenamed(id, name);
        },
      }),
      // TypeBox: a read, answered from the devices the table holds.
      pingDevices.bind({
        execute: (input) => {
          const { ids } = input as { ids: string[] };
          ran("ping", ids.join(","));
          const up = new Set(devices.filter((d) => d.status !== "offline").map((d) => d.id));
          return { reachable: ids.filter((id) => up.has(id)), unreachable: ids.filter((id) => !up.has(id)) };
        },
      }),
      // zod 3 through zod-to-json-schema.
      tagDevices.bind({
        execute: (input) => {
          const { ids, tag } = input as { ids: string[]; tag: string };
          ran("tag", `${ids.join(",")}:${tag}`);
        },
      }),
      // ArkType.
      labelDevice.bind({
        execute: (input) => {
          const { id, label } = input as { id: string; label: string };
          ran("label", `${id}:${label}`);
        },
      }),
    ],
  });

  const toggle = (id: string) => setSelection((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const header = (column: Column, label: string) => (
    <th
      aria-sort={sort.column === column ? (sort.direction === "asc" ? "ascending" : "descending") : "none"}
      onClick={() => setSort((s) => ({ column, direction: s.column === column && s.direction === "asc" ? "desc" : "asc" }))}
    >
      {label} {sort.column === column ? (sort.direction === "asc" ? "▲" : "▼") : ""}
    </th>
  );

  return (
    <section className="devices" data-agent-status={agentStatus}>
      <div className="toolbar">
        <input aria-label="Filter by name" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Filter by name" />
        <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value as Status | "")}>
          <option value="">any status</option>
          <option value="online">online</option>
          <option value="offline">offline</option>
          <option value="maintenance">maintenance</option>
        </select>
        <span className="selected">{selection.length} selected</span>
        {rebooting.length > 0 && <span className="busy">Rebooting {rebooting.join(", ")}…</span>}
      </div>
      <table>
        <thead>
          <tr>
            <th />
            {header("name", "Name")}
            {header("status", "Status")}
            {header("lastSeen", "Last seen")}
          </tr>
        </thead>
        <tbody>
          {visible.map((d) => (
            <tr key={d.id} data-id={d.id} className={selection.includes(d.id) ? "sel" : undefined}>
              <td>
                <input type="checkbox" aria-label={`Select ${d.name}`} checked={selection.includes(d.id)} onChange={() => toggle(d.id)} />
              </td>
              <td>
                {d.name} <code>{d.id}</code>
              </td>
              <td className={`st-${d.status}`}>{d.status}</td>
              <td>{formatLastSeen(d.lastSeen)}</td>
            </tr>
          ))}
          {visible.length === 0 && (
            <tr>
              <td colSpan={4}>No devices match.</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
