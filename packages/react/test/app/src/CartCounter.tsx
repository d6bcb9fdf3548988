// docs/react.md's example, quoted there verbatim below this comment (test/docs.test.tsx checks
// the quote and runs the page and the agent).
import { useState } from "react";
import { useAgentComponent } from "@agent-surface/react";
import { counter, emptyCart } from "./counter.agent";

export function CartCounter({ cartId }: { cartId: string }) {
  const [count, setCount] = useState(0);
  const { status } = useAgentComponent(counter, {
    instanceId: cartId, // from data, never from render order
    observations: {
      count: { read: () => ({ value: count }) },
    },
    actions: {
      add: {
        execute: ({ by }) => {
          setCount(count + by);
          return { value: count + by };
        },
      },
    },
    procedures: [emptyCart.bind({ execute: () => setCount(0) })],
  });
  return (
    <p>
      <span>{count} items</span> <small>({status})</small>
      <button onClick={() => setCount(count + 1)}>Add one</button>
    </p>
  );
}
