// Start-up of the UI framework, for scale: import React DOM and render one component.
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";

function Hello({ name }) {
  return <p>Hello, {name}</p>;
}

export function start(container) {
  const root = createRoot(container);
  flushSync(() => root.render(<Hello name="agent" />));
  return container.textContent;
}
