/**
 * `@keel/tools`: what keel's model can do, under one contract.
 *
 * - The contract ({@link Tool}, `contract.ts`): a name, a description, a zod input schema, a
 *   side-effect class ({@link Effect}) and an execute function that takes an abort signal; the
 *   owner's {@link Policy} (`allow`, `ask`, `deny`) and how a door asks ({@link Approver}).
 *
 * - `remind` (`builtin/remind.ts`): the owner's reminders, set, listed and cancelled, and how
 *   every door words a reminder ({@link reminderSetLine}, {@link reminderListLine}).
 *
 * @module
 */
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
