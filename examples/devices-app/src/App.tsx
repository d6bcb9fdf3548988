import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { AgentSurfaceProvider } from "@agent-surface/react";
import { AssistantPanel } from "./assistant/AssistantPanel";
import { DevicesTable } from "./components/DevicesTable";
import { ConfirmDialog } from "./ConfirmDialog";
import { INITIAL_DEVICES } from "./lib/devices-data";
import type { Device } from "./lib/types";
import { onDecommissioned, registry } from "./registry";
import { AppNav } from "./routes/AppNav";
import { runLog, runs, subscribeRuns } from "./runs";

function usePath(): [string, (to: string) => void] {
  const [path, setPath] = useState(() => (location.pathname === "/" ? "/devices" : location.pathname));
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  const navigate = useCallback((to: string) => {
    history.pushState(null, "", to);
    setPath(to);
  }, []);
  return [path, navigate];
}

function RunCounters() {
  const log = useSyncExternalStore(subscribeRuns, () => runLog.length);
  return (
    <footer>
      Handlers run: decommission <b data-runs="decommission">{runs.decommission}</b> · reboot <b data-runs="reboot">{runs.reboot}</b> · export{" "}
      <b data-runs="export">{runs.export}</b> <small>({log} total)</small>
    </footer>
  );
}

export function App() {
  const [path, navigate] = usePath();
  const [devices, setDevices] = useState<Device[]>(INITIAL_DEVICES);
  // Decommissioned on the oRPC server (src/registry.ts): the device leaves the list.
  useEffect(() => onDecommissioned((ids) => setDevices((ds) => ds.filter((d) => !ids.includes(d.id)))), []);
  const onRebooted = useCallback((ids: string[]) => setDevices((ds) => ds.map((d) => (ids.includes(d.id) ? { ...d, status: "offline" } : d))), []);
  const onRenamed = useCallback((id: string, name: string) => setDevices((ds) => ds.map((d) => (d.id === id ? { ...d, name } : d))), []);

  let page;
  if (path === "/devices") {
    page = (
      <>
        <h1>Devices</h1>
        <DevicesTable devices={devices} onRebooted={onRebooted} onRenamed={onRenamed} />
      </>
    );
  } else if (path.startsWith("/devices/")) {
    const d = devices.find((x) => x.id === path.slice("/devices/".length));
    page = <h1>{d ? d.name : "Unknown device"}</h1>;
  } else if (path === "/reports") {
    page = (
      <>
        <h1>Reports</h1>
        <p>Ask the assistant to export the devices report (csv, pdf or xlsx); it is emailed to you after you approve.</p>
      </>
    );
  } else {
    page = (
      <>
        <h1>Settings</h1>
        <p>Nothing to configure in this example.</p>
      </>
    );
  }

  return (
    <AgentSurfaceProvider registry={registry}>
      <div className="layout">
        <AppNav path={path} navigate={navigate} />
        <main data-path={path}>{page}</main>
        <AssistantPanel />
      </div>
      <RunCounters />
      <ConfirmDialog />
    </AgentSurfaceProvider>
  );
}
