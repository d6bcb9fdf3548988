// The devices API as an oRPC contract router (zod 4 schemas), built with the `oc` of either oRPC
// major (contract.js: 1.16.1, contract-v2.js: 2.0.0-beta). The server (../server.js) implements
// it; orpc.config.js generates the page's procedure contracts (src/procedures.ts) from it.
import * as z from "zod";

export const DeviceId = z.string().regex(/^dev_[a-z0-9]{6,}$/).describe("A device id such as dev_cam001");
const DeviceIds = z.object({ ids: z.array(DeviceId).min(1).max(50) });
const One = z.object({ id: DeviceId });

export function defineDevicesContract(oc) {
  return {
    devices: {
      decommission: oc.input(DeviceIds),
      reboot: oc.input(DeviceIds).output(z.object({ scheduled: z.number().int().min(0) })),
      status: oc.input(One).output(z.object({ id: DeviceId, online: z.boolean(), note: z.string().nullable(), tags: z.array(z.string()) })),
      lastSeen: oc.input(One).output(z.object({ id: DeviceId, at: z.date() })),
      counts: oc.output(z.object({ total: z.bigint() })),
      sparse: oc.output(z.object({ list: z.array(z.number().optional()) })),
      crash: oc,
      conflict: oc.errors({ BUSY: { status: 409, data: z.object({ retryAfter: z.number() }) } }),
      firmware: oc,
      watch: oc,
      slow: oc.output(z.object({ done: z.boolean() })),
    },
  };
}
