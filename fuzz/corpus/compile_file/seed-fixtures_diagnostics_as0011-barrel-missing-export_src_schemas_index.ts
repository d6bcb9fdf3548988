export * from "./money";
export * from "./dates";
