"use client";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { AgentSurfaceProvider } from "@agent-surface/react";
import { exposeToWebMCP } from "@agent-surface/core/webmcp";
import { DevicesTable } from "./components/DevicesTable";
import { ConfirmDialog } from "./ConfirmDialog";
import { INITIAL_DEVICES } from "./lib/devices-data";
import type { Device } from "./lib/types";
import authority from "@agent-surface/next/authority";
import { registry } from "./registry";
import { runLog, runs, subscribeRuns } from "./runs";

function RunCounters() {
  const log = useSyncExternalStore(subscribeRuns, () => runLog.length, () => 0);
  return (
    <footer>
      Handlers run: decommission <b data-runs="decommission">{runs.decommission}</b> · reboot <b data-runs="reboot">{runs.reboot}</b> <small>({log} total)</small>
    </footer>
  );
}

export function App() {
  const [devices, setDevices] = useState<Device[]>(INITIAL_DEVICES);
  const onDecommission = useCallback((ids: string[]) => setDevices((ds) => ds.filter((d) => !ids.includes(d.id))), []);
  const onRebooted = useCallback((ids: string[]) => setDevices((ds) => ds.map((d) => (ids.includes(d.id) ? { ...d, status: "offline" } : d))), []);

  // A browser agent that speaks WebMCP (document.modelContext, feature-detected) gets the page's
  // tools; its calls wait for the same dialog.
  useEffect(() => {
    const webmcp = exposeToWebMCP(registry, { consumerId: "browser-agent" });
    Object.assign(window, { __devicesApp: { registry, runs, webmcp: webmcp.supported, manifestHash: authority.manifest.manifestHash } });
    return () => webmcp.close();
  }, []);

  return (
    <AgentSurfaceProvider registry={registry}>
      <main>
        <h1>Devices</h1>
        <DevicesTable devices={devices} onDecommission={onDecommission} onRebooted={onRebooted} />
      </main>
      <RunCounters />
      <ConfirmDialog />
    </AgentSurfaceProvider>
  );
}
