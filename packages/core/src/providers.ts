// @agent-surface/core/providers: the provider tool-block renderings (OpenAI strict mode,
// Anthropic, Gemini, MCP with annotations) for hosts that render a catalog themselves.
export { mcpAnnotations, strictInputToOriginal, toolBlock, MAX_TOOLS } from "./expose/providers.js";
export type { McpAnnotations, ProviderTool, ToolProvider, ToolTraits } from "./expose/providers.js";
