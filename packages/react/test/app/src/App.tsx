// docs/react.md's example, quoted there verbatim below this comment (test/docs.test.tsx checks
// the quote and runs the page and the agent).
import { AgentSurfaceProvider } from "@agent-surface/react";
import { CartCounter } from "./CartCounter";
import { ConfirmDialog } from "./ConfirmDialog";
import { registry } from "./registry";

export function App() {
  return (
    <AgentSurfaceProvider registry={registry}>
      <CartCounter cartId="main" />
      <ConfirmDialog />
    </AgentSurfaceProvider>
  );
}
