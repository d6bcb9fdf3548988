import { createApprovalGuard } from "@agent-surface/core/approval";
import { registry } from "./registry";

// The host's approval policy, from the page's <meta name="agent-surface-approvals"> (set by the
// server that serves the page; read once, at start, before any agent can act in the page):
// "allow" lets the dialog's Approve through under automation too; anything else (and no meta)
// is the guard's default: while the browser is under automation (navigator.webdriver), an
// approval clicked in the page is refused, because an agent driving the browser could click it
// itself (docs/webmcp.md, "Self-approval"). A denial always goes through.
const policy = document.querySelector<HTMLMetaElement>('meta[name="agent-surface-approvals"]')?.content ?? "refuse-under-automation";

export const approvalPolicy = policy === "allow" ? "allow" : "refuse-under-automation";
export const approvalGuard = createApprovalGuard(registry, { underAutomation: approvalPolicy === "allow" ? "allow" : "refuse" });
