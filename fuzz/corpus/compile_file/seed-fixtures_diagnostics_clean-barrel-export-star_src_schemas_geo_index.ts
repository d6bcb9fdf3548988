export * from "./point";
