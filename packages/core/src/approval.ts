// @agent-surface/core/approval: a host policy for the page's confirmation dialog, which
// refuses the approvals a page-driving agent could produce itself.
//
// The pipeline holds a call that needs confirmation until `registry.confirmations.resolve()`,
// and no tool resolves confirmations: an agent that only calls tools cannot approve. An agent
// that also drives the browser (Playwright MCP's browser_click / browser_evaluate, Puppeteer,
// any DevTools protocol client) can click the dialog's Approve button, and clicks sent through
// the DevTools protocol are trusted events: the page cannot tell them from the user's. This
// guard sits between the dialog's Approve button and `resolve()`:
// - while the browser reports automation (`navigator.webdriver`, true in a browser launched or
//   driven for automation: `--enable-automation`, headless, a remote debugging pipe), an
//   in-page approval is refused unless the host opts in (`underAutomation: "allow"`);
// - `secondChannel`, when given, is asked for every approval (automation or not): a check the
//   agent cannot operate from the page (a prompt on the user's other device, a user
//   verification checked by the host's server). Under automation it is the only way to approve.
// Denials always go through: refusing to run something is never dangerous.
//
// It is a page-side policy: it closes the path an agent takes through the page's UI. An agent
// that runs its own script in the page can reach anything the page's scripts can (see the
// threat model in docs/webmcp.md): against it, only a second channel verified outside the
// browser holds.

import type { AgentSurfaceRegistry, PendingConfirmation } from "./types.js";

export interface ApprovalGuardOptions {
  /**
   * What an in-page approval does while the browser reports automation: "refuse" (default) or
   * "allow" (the host opts in, e.g. for its own end-to-end tests, which play the user through
   * automation).
   */
  underAutomation?: "refuse" | "allow";
  /**
   * Asked for every approval; the call runs only when it resolves true. Under automation with
   * "refuse" it is the only way to approve.
   */
  secondChannel?: (request: PendingConfirmation) => Promise<boolean> | boolean;
  /**
   * Whether the browser is under automation. Default: `navigator.webdriver === true`, read when
   * the guard is created and again at each approval (either reading counts, so a script that
   * redefines the property later does not turn the guard off).
   */
  automation?: () => boolean;
}

/** Why an approval did not go through. */
export type ApprovalRefusal = "automation" | "second-channel" | "settled";

export type ApprovalOutcome = { approved: true } | { approved: false; refused: ApprovalRefusal; message: string };

export interface ApprovalGuard {
  /** Whether automation was detected (at creation or at any approval since). */
  readonly automated: boolean;
  /** Whether an in-page approval can go through without the second channel right now. */
  readonly inPageApprovals: boolean;
  /**
   * The user's Approve: resolves the confirmation (the held call runs once) unless the policy
   * refuses, in which case the confirmation stays pending (it can still be denied, or expires at
   * its TTL) and the outcome says why.
   */
  approve(confirmationId: string): Promise<ApprovalOutcome>;
  /** The user's Deny: always goes through. */
  deny(confirmationId: string, reason?: string): void;
}

const KEYS = new Set(["underAutomation", "secondChannel", "automation"]);

function navigatorWebdriver(): boolean {
  const nav = (globalThis as { navigator?: { webdriver?: unknown } }).navigator;
  return nav?.webdriver === true;
}

/** Creates the guard for one registry's confirmations. Create it once, at page start. */
export function createApprovalGuard(registry: AgentSurfaceRegistry, options: ApprovalGuardOptions = {}): ApprovalGuard {
  if (options === null || typeof options !== "object") throw new TypeError("createApprovalGuard: pass { underAutomation?, secondChannel?, automation? }");
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw new TypeError(`createApprovalGuard: unknown option "${key}" (allowed: ${[...KEYS].join(", ")})`);
  }
  const underAutomation = options.underAutomation ?? "refuse";
  if (underAutomation !== "refuse" && underAutomation !== "allow") throw new TypeError('createApprovalGuard: underAutomation must be "refuse" or "allow"');
  if (options.secondChannel !== undefined && typeof options.secondChannel !== "function") throw new TypeError("createApprovalGuard: secondChannel must be a function");
  if (options.automation !== undefined && typeof options.automation !== "function") throw new TypeError("createApprovalGuard: automation must be a function");
  const detect = options.automation ?? navigatorWebdriver;
  const secondChannel = options.secondChannel;
  let automated = detect() === true;
  const refusesInPage = () => underAutomation === "refuse" && automated;

  return Object.freeze({
    get automated() {
      return automated;
    },
    get inPageApprovals() {
      return secondChannel === undefined && !refusesInPage();
    },
    async approve(confirmationId: string): Promise<ApprovalOutcome> {
      if (detect() === true) automated = true;
      const request = registry.confirmations.pending().find((p) => p.confirmationId === confirmationId);
      if (request === undefined) return { approved: false, refused: "settled", message: "this confirmation is no longer pending" };
      if (secondChannel === undefined) {
        if (refusesInPage()) {
          return {
            approved: false,
            refused: "automation",
            message: "approvals in this page are refused while the browser is under automation: an agent driving the browser could approve its own call",
          };
        }
      } else {
        let confirmed = false;
        try {
          confirmed = (await secondChannel(request)) === true;
        } catch {
          confirmed = false;
        }
        if (!confirmed) return { approved: false, refused: "second-channel", message: "the approval was not confirmed on the second channel" };
        // The call may have settled (denied, expired) while the second channel was asked.
        if (!registry.confirmations.pending().some((p) => p.confirmationId === confirmationId)) {
          return { approved: false, refused: "settled", message: "this confirmation is no longer pending" };
        }
      }
      registry.confirmations.resolve(confirmationId, { approved: true });
      return { approved: true };
    },
    deny(confirmationId: string, reason?: string) {
      registry.confirmations.resolve(confirmationId, reason === undefined ? { approved: false } : { approved: false, reason });
    },
  });
}
