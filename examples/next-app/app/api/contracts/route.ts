// A route handler importing contract modules: their ids and the compiler's provenance, on the
// server, without the page runtime in the server's bundle.
import { decommissionDevices, rebootDevices } from "@/domain/devices";
import { exportReport } from "@/external/reports";

type WithProvenance = { id: string; provenance?: { id: string; contractHash: string } };

export function GET() {
  const contracts = [rebootDevices, decommissionDevices, exportReport] as unknown as WithProvenance[];
  return Response.json(contracts.map((c) => ({ id: c.id, provenance: c.provenance ?? null })));
}
