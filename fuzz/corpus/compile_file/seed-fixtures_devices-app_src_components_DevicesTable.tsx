import { useMemo, useState } from "react";
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

export function DevicesTable({ devices }: { devices: Device[] }) {
  const [filter, setFilter] = useState("");
  const visible = useMemo(() => devices.filter((d) => d.name.includes(filter)), [devices, filter]);
  return (
    <table>
      <caption>
        <input value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Filter" />
      </caption>
      <tbody>
        {visible.map((d) => (
          <tr key={d.id}>
            <td>{d.name}</td>
            <td>{d.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
