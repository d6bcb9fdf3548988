// The fixture's entry: what the verified authority says about the bundled contracts.
import authority from "virtual:agent-surface/authority";
import { rebootDevices } from "./domain/devices";
import { exportReport } from "./external/reports";

const contracts = [rebootDevices, exportReport];
const provenance = contracts.map((c) => (c as { provenance?: { id: string; contractHash: string } }).provenance ?? null);
const verified = provenance.every((p) => p !== null && authority.contract(p.id)?.contractHash === p.contractHash);
const report: string = JSON.stringify({ manifestHash: authority.manifest.manifestHash, provenance, verified });
(globalThis as { agentSurfaceReport?: string }).agentSurfaceReport = report;
