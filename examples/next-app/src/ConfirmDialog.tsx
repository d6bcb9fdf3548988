import { useAgentConfirmations } from "@agent-surface/react";
import { useGatewayConfirmations } from "./confirmations";

// The page's own confirmation dialog: the registry holds the agent's call until the user answers
// here. Nothing the agent can call approves anything.
export function ConfirmDialog() {
  const { pending, approve, deny } = useAgentConfirmations();
  const external = useGatewayConfirmations();
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
        <div className="buttons">
          <button className="approve" onClick={() => approve(request.confirmationId)}>
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
      <div className="buttons">
        <button className="approve" onClick={() => ext.answer(true)}>
          Approve
        </button>
        <button className="deny" onClick={() => ext.answer(false)}>
          Deny
        </button>
      </div>
    </dialog>
  );
}
