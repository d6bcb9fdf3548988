// The compiler child process lives in @agent-surface/unplugin (shared by every bundler).
export * from "@agent-surface/unplugin/child";
