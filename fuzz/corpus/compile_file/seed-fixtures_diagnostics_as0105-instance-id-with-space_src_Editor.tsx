// expect: AS0105
import { splitPaneContract } from "./contract";

// Two panes of the same component type, told apart by their instance ids.
export const leftPane = splitPaneContract.bind({
  instanceId: "left-pane",
  execute: { maximize: () => setLayout("left") },
});
export const rightPane = splitPaneContract.bind({
  instanceId: "right pane",
  execute: { maximize: () => setLayout("right") },
});

declare function setLayout(side: "left" | "right"): void;
