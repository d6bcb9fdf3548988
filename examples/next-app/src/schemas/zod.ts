// zod schemas: validated at run time by zod, translated to JSON Schema by the compiler exactly
// as z.toJSONSchema would.
import { z } from "zod";
import { SORTABLE_COLUMNS } from "./devices";

export const DeviceIdZ = z.string().regex(/^dev_[a-z0-9]{6,}$/).describe("A device id such as dev_8f3k2a");

export const SortInput = z.object({
  column: z.enum(SORTABLE_COLUMNS),
  direction: z.enum(["asc", "desc"]).default("asc"),
});

export const FilterInput = z.strictObject({
  text: z.string().max(80).describe("Text the device name must contain; empty shows all"),
  status: z.enum(["online", "offline", "maintenance"]).optional(),
});

export const RebootInput = z.object({
  ids: z.array(DeviceIdZ).min(1).max(50),
  reason: z.string().max(200).optional(),
  notifyOwners: z.boolean().default(true),
});

export const ExportJob = z.object({
  jobId: z.uuid(),
  queuedAt: z.iso.datetime(),
});
