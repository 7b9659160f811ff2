/**
 * `@keel/tools`: what keel's model can do, under one contract.
 *
 * - The contract ({@link Tool}, `contract.ts`): a name, a description, a zod input schema, a
 *   side-effect class ({@link Effect}) and an execute function that takes an abort signal; the
 *   owner's {@link Policy} (`allow`, `ask`, `deny`) and how a door asks ({@link Approver}).
 *
 * @module
 */

// The built-in action tools: shell, the file tools and fetch_url.
export {
  type AddressClass,
  classifyAddress,
  guardedLookup,
  RefusedAddressError,
} from './builtin/address.js';
export {
  FETCH_DEFAULTS,
  type FetchUrlInput,
  type FetchUrlToolOptions,
  fetchUrlTool,
} from './builtin/fetch.js';
export {
  FILE_DEFAULTS,
  type FileToolsOptions,
  fileTools,
  type ListFilesInput,
  type ReadFileInput,
  type WriteFileInput,
} from './builtin/files.js';
export { type PageFormat, type ReadablePage, readablePage } from './builtin/html.js';
export {
  SHELL_DEFAULTS,
  type ShellInput,
  type ShellToolOptions,
  shellTool,
} from './builtin/shell.js';
export { CREDENTIAL_NAME, isCredentialName, strippedEnv } from './builtin/shell-env.js';
export {
  type AnyTool,
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  defaultPolicy,
  EFFECTS,
  type Effect,
  POLICIES,
  type Policy,
  type StagedWrite,
  TOOL_NAME,
  type Tool,
  type ToolContext,
  type ToolOrigin,
  type ToolResult,
  type ToolSpec,
} from './contract.js';
// MCP: the owner's MCP servers (mcp/config.ts) and their tools as keel tools (mcp/hub.ts).
export {
  MCP_SERVER_NAME,
  type McpConfig,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  mcpServerPolicies,
  parseMcpConfig,
  readMcpConfig,
} from './mcp/config.js';
export { McpHub, type McpHubOptions, type McpServerStatus } from './mcp/hub.js';
export type { McpServerState } from './mcp/link.js';
export {
  type McpToolDefinition,
  type McpToolInput,
  mcpEffect,
  mcpResultText,
  mcpTool,
  mcpToolName,
} from './mcp/tool.js';
