// The page without any agent library: one React component, rendered. Every other entry is this
// page plus one library's way of giving an agent one component with one action.
import { useState } from "react";
import { createRoot } from "react-dom/client";

export function Counter() {
  const [value, setValue] = useState(0);
  return <button onClick={() => setValue(value + 1)}>{value}</button>;
}

createRoot(document.getElementById("root")).render(<Counter />);
