/**
 * The one contract every tool keel offers its model implements: the memory tools, the built-ins
 * (shell, files, fetch_url, remind) and every configured MCP server's tools. A tool is a name, a
 * description, a zod input schema, a side-effect class ({@link Effect}) and an execute function
 * that takes an abort signal; what the owner allows is decided from the effect and the owner's
 * policies ({@link Policy}), never by the tool itself.
 *
 * @module
 */
import type { Kind, MemoryStore } from '@keel/memory';
import type { z } from 'zod';

/**
 * What a call can do, from least to most reach:
 * - `read`: reads only (memory, a file inside the allowed roots, a listing);
 * - `write`: changes something (a file, keel's own reminders);
 * - `run`: runs code (a shell command);
 * - `network`: reaches the network (an HTTP request);
 * - `message`: messages someone.
 */
export const EFFECTS = ['read', 'write', 'run', 'network', 'message'] as const;
/** One of {@link EFFECTS}. */
export type Effect = (typeof EFFECTS)[number];

/**
 * What the owner allows a tool: `allow` runs it, `ask` asks the owner on the door the turn came
 * from first (offline or from a door that cannot ask: denied, with the reason the model reads),
 * `deny` never runs it.
 */
export const POLICIES = ['allow', 'ask', 'deny'] as const;
/** One of {@link POLICIES}. */
export type Policy = (typeof POLICIES)[number];

/** Where a tool comes from. */
export type ToolOrigin = 'memory' | 'builtin' | 'mcp';

/**
 * A tool as it is declared to the model (the Anthropic Messages API's tool shape, which every
 * provider maps to): `inputSchema` is a JSON Schema object.
 */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The characters a tool name may hold as the model sees it (Anthropic's rule,
 * `^[a-zA-Z0-9_-]{1,64}$`; OpenAI's is the same): MCP tools are offered as `<server>__<tool>`.
 */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** What a call is given besides its input. */
export interface ToolContext {
  /** Cancels the call: the turn's signal (Ctrl-C, shutdown) or the tool's own time limit. */
  signal: AbortSignal;
  /** The owner's memory: the memory tools and `remind` read and stage through it. */
  store: MemoryStore;
  /** The owner's IANA time zone (e.g. `Europe/Paris`). */
  tz: string;
  /** The clock, ms since the epoch (injected in tests). */
  now: () => number;
  /** The door the turn came from: `terminal`, `discord`, `cli`. */
  channel: string;
  /** The owner's message of this turn as the model read it (credentials withheld). */
  ownerText?: string;
}

/**
 * A write to memory a memory tool asked for, applied through the store's write review when the
 * turn completes (so a failed turn never becomes memory).
 */
export type StagedWrite =
  | {
      tool: 'remember';
      kind: Kind;
      key: string;
      value: string;
      validFrom: number | null;
    }
  | { tool: 'forget'; id: number; reason: string | null };

/** What one call returned. */
export interface ToolResult {
  /** What the model reads (text; JSON for structured results). Outside data is fenced by the caller. */
  content: string;
  isError: boolean;
  /** Fact ids the result showed the model (memory tools). */
  factIds?: number[];
  /** A memory write to apply when the turn completes (memory tools). */
  staged?: StagedWrite;
  /** A short outcome for the tool log: an exit code (`0`, `1`), an HTTP status (`200`), `timeout`. */
  exit?: string;
}

/**
 * One tool. `I` is its parsed input.
 *
 * Implementations never throw for bad input or a failure of the world (a missing file, a command
 * that exits 1, a refused request): they return `isError: true` with what the model should read.
 * They honour `context.signal` (a cancelled call ends promptly; `exit: 'cancelled'`).
 */
export interface Tool<I = unknown> {
  /** The name the model calls ({@link TOOL_NAME}). */
  name: string;
  /** What the model reads about it. */
  description: string;
  /** The input schema; the caller parses the model's arguments with it before `execute`. */
  input: z.ZodType<I>;
  /** The JSON Schema sent to the model; default `z.toJSONSchema(input)` (MCP tools bring their own). */
  inputSchema?: Record<string, unknown>;
  /** What it can do. */
  effect: Effect;
  origin: ToolOrigin;
  /**
   * The policy when the owner set none. Default: `allow` for `read`, `ask` for everything else
   * ({@link defaultPolicy}).
   */
  defaultPolicy?: Policy;
  /**
   * The names an owner's policy may give it, most specific first. Default `[name]`; an MCP tool
   * gives `['mcp:<server>/<tool>', 'mcp:<server>']`.
   */
  policyNames?: readonly string[];
  /**
   * The name the owner's standing answers ("always") are stored and matched under. Default
   * `name`; an MCP tool gives `mcp:<server>/<tool>`: its `name` is the model-facing
   * `<server>__<tool>`, mangled and numbered in the order tools are found, so two servers' tools
   * could share it.
   */
  grantName?: string;
  /**
   * What "always for this exact …" remembers of a call (the shell command, the URL, the path);
   * absent: only "always for this tool" is offered.
   */
  exactKey?: (input: I) => string;
  /**
   * The longest one call may run, ms, with the tool's own limits and their clean-up counted (the
   * shell's time limit, kill grace and output drain; an MCP server's call limit). The Toolbox's
   * limit for the call is this plus a grace (the Toolbox's `timeoutGraceMs`), so the tool's
   * own limit ends it first and says so; absent: the Toolbox's default.
   */
  timeoutMs?: number;
  /** One line the owner reads when asked, e.g. "run `echo hi > out.txt` in ~/.keel/workspace". */
  summary: (input: I) => string;
  execute: (input: I, context: ToolContext) => Promise<ToolResult>;
}

/** A tool of any input, as a list holds it. */
// biome-ignore lint/suspicious/noExplicitAny: a list of tools holds tools of different inputs.
export type AnyTool = Tool<any>;

/** The policy a tool has when the owner set none: `allow` for a read-only tool, `ask` otherwise. */
export function defaultPolicy(tool: Pick<AnyTool, 'effect' | 'defaultPolicy'>): Policy {
  return tool.defaultPolicy ?? (tool.effect === 'read' ? 'allow' : 'ask');
}

/** What the owner is asked before a call runs. */
export interface ApprovalRequest {
  /** The tool's name as the model called it. */
  tool: string;
  effect: Effect;
  /** The call in one line ({@link Tool.summary}). */
  summary: string;
  /** What "always for this exact …" would remember, or null when only "always for this tool" is offered. */
  exact: string | null;
}

/**
 * The owner's answer: `yes` runs this call; `no` does not; `always_tool` runs it and every later
 * call of the tool; `always_exact` runs it and every later call with the same {@link
 * ApprovalRequest.exact}; `timeout` (no answer in time) does not run it.
 */
export type ApprovalAnswer = 'yes' | 'no' | 'always_tool' | 'always_exact' | 'timeout';

/**
 * How a door asks its owner. It resolves with the answer, `timeout` when the owner does not answer
 * within the door's time limit, or `no` when `signal` aborts.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;
