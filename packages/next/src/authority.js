// Replaced by the project's generated authority module (<root>/.agent-surface/authority.js)
// through the alias withAgentSurface() sets up; imported without it, this says so.
throw new Error("@agent-surface/next/authority is the project's generated authority module: wrap your Next.js config with withAgentSurface() from @agent-surface/next (next.config.mjs)");
