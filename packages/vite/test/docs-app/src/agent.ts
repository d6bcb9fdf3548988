// src/agent.ts
import { createAgentToolset } from "@agent-surface/core";
import { registry } from "./main";

const toolset = createAgentToolset(registry, { consumer: { id: "assistant", kind: "embedded" }, topology: "embedded" });
const [increment, read] = toolset.tools();
console.log(increment.name, read.name); // view_demo_counter_increment view_demo_counter_value
console.log(await read.execute({}, { toolCallId: "call_1" })); // { status: "ok", output: { value: 42 }, … }
console.log(await increment.execute({ by: 2 }, { toolCallId: "call_2" })); // { status: "ok", output: { value: 44 }, … }
console.log(await increment.execute({ by: 2 }, { toolCallId: "call_2" })); // the same result: a redelivered call runs once
