export * from "./geo";
export * from "./units";
