// The devices contract router of oRPC 1.16.1 (@orpc/contract).
import { oc } from "@orpc/contract";
import { defineDevicesContract } from "./devices-contract.js";

export const devicesContract = defineDevicesContract(oc);
