/**
 * The Toolbox: the tools a turn offers its model, under the owner's policies.
 *
 * Built from a list of tools and the owner's policies (keyed by policy names: a tool's name, or for
 * an MCP tool `mcp:<server>/<tool>` then `mcp:<server>`), it gives the model the specs of every
 * tool not denied ({@link Toolbox.specs}) and runs one call ({@link Toolbox.call}): the input parsed
 * with the tool's zod schema, the policy decided (the owner's, else the tool's default; a stored
 * "always" grant allows an `ask`), the owner asked on the door the turn came from when the policy
 * asks, the tool run with the turn's abort signal and a time limit, every call recorded in the
 * tool log (allowed, denied, failed), and the result returned as data: credentials withheld
 * (`redactSecrets`), and the output of any tool but memory's fenced (`fenceToolOutput`), so a
 * line that reads like instructions is flagged and cannot close the fence. The memory tools'
 * output is keel's own memory written out by `@keel/prompt` (already neutralised), kept as it is.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { redactSecrets, type SecretKind, scanSecrets } from '@keel/language';
import type { ToolApproval } from '@keel/memory';
import { fenceToolOutput } from '@keel/prompt';
import { z } from 'zod';
import {
  type AnyTool,
  type ApprovalAnswer,
  type Approver,
  defaultPolicy,
  type Policy,
  TOOL_NAME,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from './contract.js';
import { memoryTools } from './memory/index.js';

/**
 * The longest call the owner is asked to approve, in characters of its summary: every door shows
 * it whole (a Discord message holds 2,000 with the question), so nothing the owner approves is
 * cut from their sight.
 */
export const MAX_APPROVAL_CHARS = 1_500;

/** A call's time limit when neither the call, the tool nor the toolbox sets one: two minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/**
 * What the Toolbox adds to a tool's own `timeoutMs` before it cuts the call: 5 s, so the tool's
 * own limit (which says what it stopped) always ends it first.
 */
export const TOOL_TIMEOUT_GRACE_MS = 5_000;

/** Options for {@link Toolbox}. */
export interface ToolboxOptions {
  /** The tools, each name once ({@link TOOL_NAME}). */
  tools: readonly AnyTool[];
  /** The owner's policies by policy name (see {@link Toolbox.policyOf}). Default none. */
  policies?: ReadonlyMap<string, Policy>;
  /**
   * A call's time limit for a tool that sets no `timeoutMs` of its own, ms.
   * Default {@link DEFAULT_TOOL_TIMEOUT_MS}.
   */
  timeoutMs?: number;
  /**
   * Added to a tool's own `timeoutMs` to make the call's limit, ms.
   * Default {@link TOOL_TIMEOUT_GRACE_MS}.
   */
  timeoutGraceMs?: number;
}

/** What one call is given besides its name and input. */
export interface CallOptions {
  /** The turn's context: its abort signal, the store, the owner's zone, the clock, the door. */
  context: ToolContext;
  /** How the door asks its owner; absent when it cannot (a call that asks is then denied). */
  approve?: Approver;
  /** The turn the call is part of (`turns.id`), for the tool log. */
  turnId?: number;
  /** This call's time limit, ms. Default the tool's `timeoutMs` plus the grace, else the toolbox's. */
  timeoutMs?: number;
}

/** What {@link Toolbox.call} returns: the result as the model reads it, and how it was decided. */
export interface CallResult extends ToolResult {
  /** Fact ids the result showed the model (memory tools); empty otherwise. */
  factIds: number[];
  /** How the call was decided, as the tool log records it. */
  approval: ToolApproval;
  /** Whether the tool ran. */
  ran: boolean;
  /** The kinds of credential withheld from the output; empty when there were none. */
  withheld: SecretKind[];
  /** The tool log row's id. */
  logId: number;
}

/** What the decision on a call came to. */
interface Decision {
  approval: ToolApproval;
  approvedBy: string | null;
  /** Null when it may run; else what the model reads. */
  refusal: string | null;
}

/** The words the model reads when the owner's approval was needed and not given. */
export function refusalText(
  tool: string,
  approval: ToolApproval,
  /** The name `keel tools allow` takes for it (an MCP tool's `mcp:<server>/<tool>`). */
  policyName: string = tool,
): string {
  switch (approval) {
    case 'asked-no':
      return `The owner declined this call of ${tool}; nothing ran. Do not try it again unless they ask.`;
    case 'timeout':
      return `The owner did not answer the request to run ${tool} in time; nothing ran. Ask them whether to try again.`;
    case 'no-approver':
      return `${tool} needs the owner's approval and this door cannot ask; nothing ran. Ask the owner to run it themselves or allow the tool with \`keel tools allow ${policyName}\`.`;
    default:
      return `${tool} is denied by the owner's policy; nothing ran. Tell the owner if they want it: \`keel tools allow ${policyName}\`.`;
  }
}

/**
 * The words the model reads when the door failed to put the call to the owner (its message could
 * not be sent): nothing ran, and the owner was never asked. The door's error is quoted (its first
 * 200 characters, credentials withheld).
 */
export function askFailedText(tool: string, err: unknown): string {
  const said = redactSecrets(String((err as Error)?.message ?? err)).replace(/\s+/g, ' ');
  const why = said.length <= 200 ? said : `${said.slice(0, 199)}…`;
  return `keel could not ask the owner to approve this call of ${tool} (${why}); nothing ran, and the owner has not seen the request. Tell them, and ask whether to try again.`;
}

/** The tools a turn may call, under the owner's policies. */
export class Toolbox {
  readonly #tools = new Map<string, AnyTool>();
  readonly #policies: ReadonlyMap<string, Policy>;
  readonly #timeoutMs: number;
  readonly #timeoutGraceMs: number;
  #specs: ToolSpec[] | null = null;

  /**
   * @throws KeelError `INVALID_INPUT` for a tool name outside {@link TOOL_NAME} or given twice.
   */
  constructor(options: ToolboxOptions) {
    for (const tool of options.tools) {
      if (!TOOL_NAME.test(tool.name)) {
        throw new KeelError('INVALID_INPUT', `tool name "${tool.name}" is not ${TOOL_NAME}`);
      }
      if (this.#tools.has(tool.name)) {
        throw new KeelError('INVALID_INPUT', `two tools are named "${tool.name}"`);
      }
      this.#tools.set(tool.name, tool);
    }
    this.#policies = options.policies ?? new Map();
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    this.#timeoutGraceMs = options.timeoutGraceMs ?? TOOL_TIMEOUT_GRACE_MS;
  }

  /** Every tool, denied ones included, in the order given. */
  get tools(): AnyTool[] {
    return [...this.#tools.values()];
  }

  /** The tool named `name`, or undefined. */
  tool(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  /**
   * The policy of `tool`: the owner's policy under its first policy name that has one
   * (`policyNames`, most specific first; default `[name]`), else the tool's default
   * ({@link defaultPolicy}); a `deny` under its offered name denies too. Stored "always" grants are
   * not part of it (they allow an `ask` call).
   */
  policyOf(tool: AnyTool): Policy {
    // A deny the owner wrote under the name the model is offered (as for an MCP tool before its
    // policies named mcp:<server>/<tool>) still denies: it can only over-block, never loosen.
    if (tool.policyNames && this.#policies.get(tool.name) === 'deny') return 'deny';
    for (const name of tool.policyNames ?? [tool.name]) {
      const policy = this.#policies.get(name);
      if (policy) return policy;
    }
    return defaultPolicy(tool);
  }

  /** The specs the model is offered: every tool whose policy is not `deny`. */
  specs(): ToolSpec[] {
    this.#specs ??= this.tools
      .filter((t) => this.policyOf(t) !== 'deny')
      .map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema ?? (z.toJSONSchema(t.input) as Record<string, unknown>),
      }));
    return this.#specs;
  }

  /**
   * Runs one call the model asked for. Never throws for the call itself (no such tool, invalid
   * input, a denial, a tool that fails, throws or runs out of time): the model reads an error
   * result. Every call is recorded in the tool log (`MemoryStore.toolCalls`).
   *
   * @throws what the store throws when the tool log cannot be written (`DB_CORRUPT`, `BUSY`).
   */
  async call(name: string, input: unknown, options: CallOptions): Promise<CallResult> {
    const { context } = options;
    const startedAt = context.now();
    const tool = this.#tools.get(name);
    const log = (decision: Decision, result: ToolResult | null, durationMs: number) =>
      context.store.toolCalls.record({
        turnId: options.turnId ?? null,
        channel: context.channel,
        tool: name,
        origin: tool?.origin ?? null,
        effect: tool?.effect ?? null,
        arguments: input,
        policy: tool ? this.policyOf(tool) : null,
        approval: decision.approval,
        approvedBy: decision.approvedBy,
        startedAt,
        durationMs,
        exit: result?.exit ?? (decision.refusal ? decision.approval : null),
        isError: result ? result.isError : true,
        result: result ? result.content : null,
      });
    const refused = (decision: Decision & { refusal: string }, exit?: string): CallResult => {
      const logId = log(decision, null, 0);
      return {
        content: decision.refusal,
        isError: true,
        factIds: [],
        exit: exit ?? decision.approval,
        approval: decision.approval,
        ran: false,
        withheld: [],
        logId,
      };
    };
    if (!tool) {
      return refused(
        { approval: 'denied', approvedBy: 'keel', refusal: `unknown tool ${name}` },
        'unknown_tool',
      );
    }
    const policy = this.policyOf(tool);
    if (policy === 'deny') {
      return refused({
        approval: 'denied',
        approvedBy: 'policy',
        refusal: refusalText(name, 'denied', tool.policyNames?.[0]),
      });
    }
    const parsed = tool.input.safeParse(input);
    if (!parsed.success) {
      return refused(
        {
          approval: 'denied',
          approvedBy: 'keel',
          refusal: `invalid input for ${name}: ${z.prettifyError(parsed.error)}`,
        },
        'invalid_input',
      );
    }
    const decision = await this.decide(tool, policy, parsed.data, options);
    if (decision.refusal !== null) {
      return refused({ ...decision, refusal: decision.refusal });
    }
    // The log's duration is the run's own, not the time the owner took to answer.
    const ranAt = context.now();
    const result = await this.run(tool, parsed.data, options);
    const logId = log(decision, result, context.now() - ranAt);
    return { ...this.forModel(tool, result), approval: decision.approval, ran: true, logId };
  }

  /** Decides a parsed call: the policy, a stored grant, else the owner's answer. */
  private async decide(
    tool: AnyTool,
    policy: Policy,
    input: unknown,
    options: CallOptions,
  ): Promise<Decision> {
    if (policy === 'allow') return { approval: 'allowed', approvedBy: 'policy', refusal: null };
    const { store, channel, signal } = options.context;
    const exact = tool.exactKey ? tool.exactKey(input) : null;
    // Grants are kept under the tool's unambiguous name. An MCP grant stored under the mangled
    // model-facing name (before `grantName`) is not honoured: which server's tool it meant cannot
    // be told, and not honouring it only asks the owner again (`keel tools` still lists it).
    const grantName = tool.grantName ?? tool.name;
    if (store.toolGrants.matches(grantName, exact)) {
      return { approval: 'always', approvedBy: 'grant', refusal: null };
    }
    if (!options.approve) {
      return {
        approval: 'no-approver',
        approvedBy: null,
        refusal: refusalText(tool.name, 'no-approver', tool.policyNames?.[0]),
      };
    }
    const summary = tool.summary(input);
    if (summary.length > MAX_APPROVAL_CHARS) {
      // The owner approves what they read: a call too long to show whole is never put to them.
      return {
        approval: 'no-approver',
        approvedBy: null,
        refusal: `this call of ${tool.name} is too long to show the owner in full for approval (${summary.length} characters, at most ${MAX_APPROVAL_CHARS}); nothing ran. Split it into shorter calls, or ask the owner to run it themselves.`,
      };
    }
    let answer: ApprovalAnswer;
    try {
      answer = await options.approve(
        { tool: tool.name, effect: tool.effect, summary, exact },
        signal,
      );
    } catch (err) {
      // A door that failed to ask has no yes to give, and the owner said nothing: the log and the
      // model are not told they declined.
      return {
        approval: 'no-approver',
        approvedBy: null,
        refusal: askFailedText(tool.name, err),
      };
    }
    if (signal.aborted) {
      // The turn was cancelled (Ctrl-C, shutdown) while keel waited: the owner did not decline.
      return {
        approval: 'no-approver',
        approvedBy: null,
        refusal: `the turn was cancelled before the owner answered the request to run ${tool.name}; nothing ran.`,
      };
    }
    const owner = `owner (${channel})`;
    switch (answer) {
      case 'yes':
        return { approval: 'asked-yes', approvedBy: owner, refusal: null };
      case 'always_tool':
      case 'always_exact': {
        // "Always for this exact call" of a tool that has no exact key is a yes for this call only:
        // it never widens into a grant for the whole tool.
        if (answer === 'always_exact' && exact === null) {
          return { approval: 'asked-yes', approvedBy: owner, refusal: null };
        }
        const scope = answer === 'always_exact' ? 'exact' : 'tool';
        store.toolGrants.add({
          tool: grantName,
          scope,
          exact,
          channel,
          now: options.context.now(),
        });
        return { approval: 'always', approvedBy: owner, refusal: null };
      }
      case 'timeout':
        return {
          approval: 'timeout',
          approvedBy: null,
          refusal: refusalText(tool.name, 'timeout', tool.policyNames?.[0]),
        };
      default:
        return {
          approval: 'asked-no',
          approvedBy: owner,
          refusal: refusalText(tool.name, 'asked-no', tool.policyNames?.[0]),
        };
    }
  }

  /**
   * The time limit of one call of `tool`, ms: the call's own, else the tool's `timeoutMs` plus the
   * grace, else the toolbox's.
   */
  limitOf(tool: AnyTool, callTimeoutMs?: number): number {
    if (callTimeoutMs !== undefined) return callTimeoutMs;
    if (tool.timeoutMs !== undefined) return tool.timeoutMs + this.#timeoutGraceMs;
    return this.#timeoutMs;
  }

  /**
   * Runs the tool with the turn's signal and the time limit ({@link limitOf}), whichever ends
   * first; a tool that throws, or does not end when its signal aborts, is answered with an error
   * result.
   */
  private async run(tool: AnyTool, input: unknown, options: CallOptions): Promise<ToolResult> {
    const limit = this.limitOf(tool, options.timeoutMs);
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), limit);
    const signal = AbortSignal.any([options.context.signal, timer.signal]);
    const ended = (): ToolResult =>
      timer.signal.aborted
        ? {
            content: `${tool.name} ran out of time (${limit} ms); it was stopped.`,
            isError: true,
            exit: 'timeout',
          }
        : { content: `${tool.name} was cancelled.`, isError: true, exit: 'cancelled' };
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<ToolResult>((resolve) => {
      onAbort = () => resolve(ended());
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([
        tool.execute(input, { ...options.context, signal }).catch(
          (err: unknown): ToolResult =>
            signal.aborted
              ? ended()
              : {
                  content: `${tool.name} failed: ${(err as Error)?.message ?? String(err)}`,
                  isError: true,
                  exit: 'error',
                },
        ),
        aborted,
      ]);
    } finally {
      clearTimeout(timeout);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** The result as the model reads it: credentials withheld, outside output fenced. */
  private forModel(
    tool: AnyTool,
    result: ToolResult,
  ): Omit<CallResult, 'approval' | 'ran' | 'logId'> {
    const withheld = [...new Set(scanSecrets(result.content).map((f) => f.kind))];
    const text = withheld.length > 0 ? redactSecrets(result.content) : result.content;
    return {
      ...result,
      content: tool.origin === 'memory' ? text : fenceToolOutput(tool.name, text),
      factIds: result.factIds ?? [],
      withheld,
    };
  }
}

/**
 * A toolbox of the memory tools only, all allowed (reads by their effect; `remember` and `forget`
 * by their default: they stage for keel's own write review): the agent's default.
 */
export function memoryToolbox(): Toolbox {
  return new Toolbox({ tools: memoryTools() });
}
