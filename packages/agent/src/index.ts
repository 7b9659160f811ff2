/**
 * `@keel/agent`: one owner session shared by every front door: the turn loop, the model
 * providers behind the `ChatModel` contract, the memory tools, the session history and its lock,
 * the offline session for when no model is configured, and the `UnansweredRecorder` contract both
 * sessions implement for what the owner said while keel was away.
 *
 * @module
 */
export {
  Agent,
  type AgentOptions,
  HISTORY_BUDGET_TOKENS,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGE_TOKENS,
  MAX_TOOL_ROUNDS,
  type TurnInput,
  type TurnResult,
} from './agent.js';
export { runSlashCommand, SLASH_HELP, type SlashContext } from './commands.js';
export { acquireTurnLock, type TurnLockOptions } from './lock.js';
export {
  AnthropicChatModel,
  type AnthropicChatModelOptions,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
} from './model/anthropic.js';
export {
  DEFAULT_OLLAMA_CHAT_MODEL,
  OllamaChatModel,
  type OllamaChatOptions,
} from './model/ollama.js';
export type * from './model/types.js';
export {
  historyLine,
  OFFLINE_NOTICE,
  OfflineSession,
  type OfflineSessionOptions,
  type TurnReply,
} from './offline.js';
export {
  CHAT_DEFAULTS,
  type ChatChoice,
  type ChatOptions,
  type ChatProvider,
  chooseChatModel,
  ollamaReachable,
} from './providers.js';
export {
  messageTokens,
  type SessionHistory,
  SessionStore,
  type StoredMessage,
  type TurnRow,
  type UnansweredRecorder,
  type UnansweredTurn,
} from './session.js';
export { memoryToolSpecs, runMemoryTool, type StagedWrite, type ToolOutcome } from './tools.js';
