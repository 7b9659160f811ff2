/**
 * `@keel/tools`: what keel's model can do, under one contract.
 *
 * - The contract ({@link Tool}, `contract.ts`): a name, a description, a zod input schema, a
 *   side-effect class ({@link Effect}) and an execute function that takes an abort signal; the
 *   owner's {@link Policy} (`allow`, `ask`, `deny`) and how a door asks ({@link Approver}).
 * - The toolbox ({@link Toolbox}, `toolbox.ts`): the tools a turn offers its model under the
 *   owner's policies; one call parsed, decided (policy, grant, the owner's answer), run with a time
 *   limit, logged, and returned as data (credentials withheld, outside output fenced).
 * - The memory tools (`memory/`: remember, recall, history, why, forget, review_pending;
 *   {@link memoryTools}): reads answer at once, writes are staged for keel's write review.
 * - The slash commands every door shares (`slash/`: {@link runSlashCommand}), the owner's purge,
 *   one way for every door, the CLI's verbs included ({@link purgeText}, {@link forgetAndPurge}:
 *   the store, then keel's backups, both in the receipt), and what a line produced
 *   ({@link TurnReply}, {@link historyLine}).
 *
 * - `remind` (`builtin/remind.ts`): the owner's reminders, set, listed and cancelled, and how
 *   every door words a reminder ({@link reminderSetLine}, {@link reminderListLine}).
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
  cancelCommand,
  cancelWords,
  type RemindInput,
  type RemindToolOptions,
  reminderListLine,
  reminderSetLine,
  reminderWords,
  remindInput,
  remindTool,
} from './builtin/remind.js';
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
export {
  type AppliedWrite,
  applyStagedWrite,
  type ForgetRequestWrite,
  type StagedWriter,
} from './memory/apply.js';
export {
  forgetTool,
  historyTool,
  memoryTools,
  outsideHistoryTool,
  recallTool,
  rememberTool,
  reviewPendingTool,
  whyTool,
} from './memory/index.js';
export {
  MEMORY_COMMANDS,
  runSlashCommand,
  SLASH_BELIEFS_MAX,
  SLASH_HELP,
  type SlashContext,
} from './slash/commands.js';
export {
  backupsLine,
  type ForgetPurgeDone,
  type ForgetPurgeTarget,
  forgetAndPurge,
  forgetPurgeTarget,
  type PurgeDone,
  purgeText,
} from './slash/purge.js';
export { historyLine, type TurnReply } from './slash/reply.js';
export { explained, WHY_EPISODE_CHARS, whyLines, whyText } from './slash/why.js';
export {
  askFailedText,
  type CallOptions,
  type CallResult,
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_APPROVAL_CHARS,
  memoryToolbox,
  refusalText,
  TOOL_TIMEOUT_GRACE_MS,
  Toolbox,
  type ToolboxOptions,
} from './toolbox.js';
