/**
 * `@keel/tools`: what keel's model can do, under one contract.
 *
 * - The contract ({@link Tool}, `contract.ts`): a name, a description, a zod input schema, a
 *   side-effect class ({@link Effect}) and an execute function that takes an abort signal; the
 *   owner's {@link Policy} (`allow`, `ask`, `deny`) and how a door asks ({@link Approver}).
 * - The toolbox ({@link Toolbox}, `toolbox.ts`): the tools a turn offers its model under the
 *   owner's policies; one call parsed, decided (policy, grant, the owner's answer), run with a time
 *   limit, logged, and returned as data (credentials withheld, outside output fenced).
 * - The memory tools (`memory/`: remember, recall, history, forget, review_pending;
 *   {@link memoryTools}): reads answer at once, writes are staged for keel's write review.
 * - The slash commands every door shares (`slash/`: {@link runSlashCommand}), the owner's purge,
 *   one way for every door, the CLI's verbs included ({@link purgeText}, {@link forgetAndPurge}:
 *   the store, then keel's backups, both in the receipt), and what a line produced
 *   ({@link TurnReply}, {@link historyLine}).
 *
 * @module
 */
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
export {
  forgetTool,
  historyTool,
  memoryTools,
  recallTool,
  rememberTool,
  reviewPendingTool,
} from './memory/index.js';
export {
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
export {
  type CallOptions,
  type CallResult,
  DEFAULT_TOOL_TIMEOUT_MS,
  memoryToolbox,
  refusalText,
  Toolbox,
  type ToolboxOptions,
} from './toolbox.js';
