export default ["csv", "pdf", "xlsx"] as const;
