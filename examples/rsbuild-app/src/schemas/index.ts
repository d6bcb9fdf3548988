// Barrel: contracts import schemas from "@/schemas".
export * from "./devices";
export * from "./routes";
export { default as reportFormats } from "./report-formats";
