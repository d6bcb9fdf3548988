export type Device = {
  id: string;
  name: string;
  status: "online" | "offline" | "maintenance";
  lastSeen: string | null;
};
