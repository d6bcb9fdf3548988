export { default as IncidentPriority } from "./priority";
export { Service as ServiceRef } from "./service";
