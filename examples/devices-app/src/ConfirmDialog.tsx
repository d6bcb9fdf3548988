import { useState } from "react";
import { useAgentConfirmations } from "@agent-surface/react";
import { approvalGuard } from "./approvals";
import { useGatewayConfirmations } from "./confirmations";

// The page's own confirmation dialog: the registry holds the agent's call until the user answers
// here. Nothing the agent can call approves anything. Approve goes through the host's approval
// guard (src/approvals.ts): under its policy an approval made in the page while the browser is
// under automation is refused, and the dialog says so; the call keeps waiting (Deny still works).
export function ConfirmDialog() {
  const { pending, deny } = useAgentConfirmations();
  const external = useGatewayConfirmations();
  const [refusal, setRefusal] = useState<{ id: string; message: string }>();
  const request = pending[0];
  if (request) {
    return (
      <dialog open className="confirm" aria-label="Confirm">
        <h3>The assistant asks to run {request.capabilityId}</h3>
        <p>{request.summary}</p>
        <p>
          Effect: <b>{request.effect}</b>
        </p>
        <pre>{JSON.stringify(request.input, null, 2)}</pre>
        {refusal?.id === request.confirmationId && (
          <p className="refused" role="alert">
            Approval refused: {refusal.message}
          </p>
        )}
        <div className="buttons">
          <button
            className="approve"
            onClick={() => {
              const id = request.confirmationId;
              void approvalGuard.approve(id).then((outcome) => setRefusal(outcome.approved ? undefined : { id, message: outcome.message }));
            }}
          >
            Approve
          </button>
          <button className="deny" onClick={() => deny(request.confirmationId, "declined in the dialog")}>
            Deny
          </button>
        </div>
      </dialog>
    );
  }
  const ext = external[0];
  if (!ext) return null;
  return (
    <dialog open className="confirm" aria-label="Confirm">
      <h3>The assistant asks to run {ext.capabilityId}</h3>
      <p>This sends data outside the app.</p>
      <pre>{JSON.stringify(ext.input, null, 2)}</pre>
      {refusal?.id === ext.id && (
        <p className="refused" role="alert">
          Approval refused: {refusal.message}
        </p>
      )}
      <div className="buttons">
        <button
          className="approve"
          onClick={() =>
            // The gateway's question is not a registry confirmation: the same policy, asked directly.
            approvalGuard.inPageApprovals ? ext.answer(true) : setRefusal({ id: ext.id, message: "approvals in this page are refused while the browser is under automation" })
          }
        >
          Approve
        </button>
        <button className="deny" onClick={() => ext.answer(false)}>
          Deny
        </button>
      </div>
    </dialog>
  );
}
