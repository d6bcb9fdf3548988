// docs/react.md's example, quoted there verbatim below this comment (test/docs.test.tsx checks
// the quote and runs the page and the agent).
import { useAgentConfirmations } from "@agent-surface/react";

export function ConfirmDialog() {
  const { pending, approve, deny } = useAgentConfirmations();
  const request = pending[0];
  if (!request) return null;
  return (
    <dialog open aria-label="Confirm">
      <p>The assistant asks: {request.summary}</p>
      <button onClick={() => approve(request.confirmationId)}>Approve</button>
      <button onClick={() => deny(request.confirmationId, "declined in the dialog")}>Deny</button>
    </dialog>
  );
}
