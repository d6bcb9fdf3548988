import type { Device } from "./types";

// The fleet the page starts with (an app would fetch it).
export const INITIAL_DEVICES: Device[] = [
  { id: "dev_r0ut3r", name: "core-router", status: "online", lastSeen: "2026-12-01T09:12:00Z" },
  { id: "dev_pr1nt1", name: "printer-lobby", status: "offline", lastSeen: "2026-11-28T17:40:00Z" },
  { id: "dev_pr1nt2", name: "printer-3rd-floor", status: "online", lastSeen: "2026-12-01T08:55:00Z" },
  { id: "dev_cam001", name: "camera-entrance", status: "maintenance", lastSeen: "2026-11-30T22:01:00Z" },
  { id: "dev_cam002", name: "camera-parking", status: "online", lastSeen: "2026-12-01T09:10:00Z" },
  { id: "dev_ap0001", name: "wifi-ap-east", status: "online", lastSeen: "2026-12-01T09:11:00Z" },
  { id: "dev_ap0002", name: "wifi-ap-west", status: "offline", lastSeen: null },
  { id: "dev_th3rm0", name: "thermostat-lab", status: "maintenance", lastSeen: "2026-11-29T06:30:00Z" },
];
