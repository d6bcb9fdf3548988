// The devices contract router of oRPC 2.0.0-beta (@orpc/contract-v2, an npm alias of @orpc/contract).
import { oc } from "@orpc/contract-v2";
import { defineDevicesContract } from "./devices-contract.js";

export const devicesContract = defineDevicesContract(oc);
