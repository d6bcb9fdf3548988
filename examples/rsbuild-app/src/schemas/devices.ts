// Schemas shared by the devices table and the domain procedures.

export const DEVICE_ID = {
  type: "string",
  pattern: "^dev_[a-z0-9]{6,}$",
  description: "A device id such as dev_8f3k2a",
} as const;

export const DeviceStatus = {
  enum: ["online", "offline", "maintenance"],
  description: "Connectivity status",
} as const;

export const DeviceRow = {
  type: "object",
  properties: {
    id: DEVICE_ID,
    name: { type: "string", maxLength: 120 },
    status: DeviceStatus,
    lastSeen: { type: ["string", "null"], format: "date-time" },
  },
  required: ["id", "name", "status", "lastSeen"],
  additionalProperties: false,
} as const;

export const SORTABLE_COLUMNS = ["name", "status", "lastSeen"] as const;
