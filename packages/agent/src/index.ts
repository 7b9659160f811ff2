/**
 * `@keel/agent`: the one owner session every front door hands its messages to.
 *
 * - The turn ({@link Agent}, `agent.ts`): the session lock, recall, the prompt's memory blocks, the
 *   model with streaming and the memory tools, and everything a completed turn stores, in one
 *   transaction (`complete-turn.ts`). What a door passes and gets back, and the notes it shows,
 *   are in `turn.ts`; the steps of one turn's loop in `turn-run.ts`; fitting a request to the
 *   model's window in `fit.ts`; folding the history into the anchor in `compaction.ts`.
 * - The turn's token budgets (`budget.ts`): every request counted before it is sent and kept
 *   within the model's window ({@link requestBudget}, {@link requestTokens}), tool results cut per
 *   result and per round ({@link budgetToolResults}).
 * - The model contract (`model/types.ts`) and its providers: Anthropic ({@link AnthropicChatModel}),
 *   any OpenAI-compatible server ({@link OpenAIChatModel}: OpenAI, OpenRouter, LM Studio, vLLM,
 *   llama.cpp; its client loads on first use), Ollama ({@link OllamaChatModel});
 *   {@link chooseChatModel} picks one from typed options; each probes itself with one cheap request
 *   (`ChatModel.probe`: the key, the server and the model, for `keel doctor`;
 *   {@link listOllamaModels} lists what Ollama has pulled); a recording fake and the conformance
 *   suite live on `@keel/agent/test`.
 * - The tools the model may call: a `Toolbox` of `@keel/tools` (`AgentOptions.tools`; default the
 *   memory tools), run one round at a time ({@link runToolRound}), asking the owner through the
 *   door's `Approver` (`TurnInput.approve`).
 * - The session history as the model sees it ({@link SessionStore}) and the cross-process turn
 *   lock ({@link acquireTurnLock}).
 * - Without a model: the offline session ({@link OfflineSession}); the slash commands every
 *   door shares and the owner's purge live in `@keel/tools`.
 * - What a turn kept, in plain words, the same at every door and in both modes ({@link keptLines}:
 *   `Kept: sister name — Ada [f12] (/forget 12 to undo).`), and memory's counts in a status line
 *   ({@link memoryCounts}).
 * - What the owner said while keel was away: {@link UnansweredRecorder}, which both sessions
 *   implement, stores it as their turn, unanswered.
 *
 * @module
 */
export { Agent } from './agent.js';
export {
  type BudgetedRound,
  budgetToolResults,
  CLOSING_RESERVE_TOKENS,
  CONTEXT_MARGIN,
  type FittedResult,
  fitToolResult,
  LEFT_OUT_NOTE,
  MIN_INPUT_BUDGET,
  MIN_ROUND_TOKENS,
  type RawToolResult,
  type RequestBudget,
  requestBudget,
  requestTokens,
  systemTokens,
  TOOL_RESULT_TOKENS,
  TOOL_ROUND_TOKENS,
  toolSpecTokens,
} from './budget.js';
export { type CaptureError, captureErrorNote } from './capture.js';
export {
  beliefWords,
  type CommandStyle,
  KEPT_VALUE_CHARS,
  keptLines,
  WITHHELD_LINE,
} from './kept.js';
export {
  acquireTurnLock,
  pidAlive,
  readTurnLockHolder,
  type TurnLockHolder,
  type TurnLockOptions,
  turnUnderWay,
} from './lock.js';
export {
  AnthropicChatModel,
  type AnthropicChatModelOptions,
  CLAUDE_CONTEXT_TOKENS,
  claudeMaxOutputTokens,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
} from './model/anthropic.js';
export {
  DEFAULT_OLLAMA_CHAT_MODEL,
  listOllamaModels,
  OLLAMA_CONTEXT_CAP,
  OLLAMA_FALLBACK_CONTEXT,
  OllamaChatModel,
  type OllamaChatOptions,
  type OllamaListOptions,
  ollamaHasModel,
  ollamaMaxOutputTokens,
} from './model/ollama.js';
export {
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  OPENAI_MAX_TOKENS_PARAMS,
  OpenAIChatModel,
  type OpenAIChatModelOptions,
  type OpenAIMaxTokensParam,
} from './model/openai.js';
export { PROBE_TIMEOUT_MS } from './model/probe.js';
export type { RetryOptions } from './model/retry.js';
export type * from './model/types.js';
export { OFFLINE_NOTICE, OfflineSession, type OfflineSessionOptions } from './offline.js';
export {
  CHAT_DEFAULTS,
  type ChatChoice,
  type ChatOptions,
  type ChatProvider,
  chooseChatModel,
  ollamaReachable,
} from './providers.js';
export {
  captureReminder,
  type ReminderNote,
  type ReminderOutcome,
  reminderContext,
  reminderLine,
} from './reminders.js';
export {
  messageTokens,
  type SessionHistory,
  SessionStore,
  type StoredMessage,
  type TurnRow,
  type UnansweredRecorder,
  type UnansweredTurn,
} from './session.js';
export { type MemoryCounts, memoryCounts } from './status.js';
export { runToolRound, type ToolRound, type ToolRoundInput } from './tool-round.js';
export {
  type AgentOptions,
  CONTINUE_PROMPT,
  type ForgetRequestWrite,
  HISTORY_BUDGET_TOKENS,
  MAX_CONTINUATIONS,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGE_TOKENS,
  MAX_REFUSALS,
  MAX_TOOL_ROUNDS,
  RECALL_LEFT_OUT,
  STANDING_LEFT_OUT,
  STOPPED_NOTE,
  secretNotice,
  TRUNCATED_NOTE,
  type TurnInput,
  type TurnResult,
  type TurnWait,
  type TurnWrite,
  waitNotice,
} from './turn.js';
export { actedLines, cappedLine, cappedLines, underReply } from './under-reply.js';
