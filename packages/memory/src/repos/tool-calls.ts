/**
 * The tool log (`tool_calls`) and the owner's standing grants (`tool_grants`), step 16.
 *
 * Every call the model asks for is recorded, run or not: what it asked (the arguments as JSON,
 * capped at {@link TOOL_ARGUMENTS_CHARS}, every credential withheld: `withholdSecrets`, so a field
 * named `password` counts as the subject of its string), how it was decided (the policy, the
 * approval, by whom) and what came back: a SHA-256 digest of the whole result (to tell whether two
 * results were the same without keeping them) and an excerpt of at most {@link TOOL_EXCERPT_CHARS}
 * characters, credentials withheld ({@link storedText}). Both texts can hold the owner's words, so
 * a purge reaches them ({@link ToolCallsRepo.holder}); a grant's exact key too
 * ({@link ToolGrantsRepo.holder}). A tool's result is a record of what happened, never a belief.
 *
 * @module
 */

import { sha256, wellFormed, withholdSecrets } from '@keel/language';
import { countRows, type StoreContext, stmt } from '../context.js';
import { columnHolder, type OwnerTextHolder, storedText } from '../redaction.js';

/** The most characters of a call's arguments (as JSON) the log keeps. */
export const TOOL_ARGUMENTS_CHARS = 4000;
/** The most characters of a call's result the log keeps as its excerpt. */
export const TOOL_EXCERPT_CHARS = 1000;

/**
 * How a call was decided:
 * - `allowed`: the policy allows it (no one was asked);
 * - `asked-yes` / `asked-no`: the owner was asked and said yes / no;
 * - `always`: an "always" answer allowed it (given now, or a grant given before);
 * - `denied`: the policy denies it, or keel refused it (no such tool, invalid input);
 * - `timeout`: the owner was asked and did not answer in time;
 * - `no-approver`: the policy asks and the door could not ask.
 */
export const TOOL_APPROVALS = [
  'allowed',
  'asked-yes',
  'asked-no',
  'always',
  'denied',
  'timeout',
  'no-approver',
] as const;
/** One of {@link TOOL_APPROVALS}. */
export type ToolApproval = (typeof TOOL_APPROVALS)[number];

/** One call, as the toolbox records it. */
export interface ToolCallInput {
  /** The turn it was part of (`turns.id`), or null outside a turn. */
  turnId: number | null;
  /** The door (`terminal`, `discord`, `cli`). */
  channel: string;
  /** The tool's name as the model called it. */
  tool: string;
  /** `memory`, `builtin`, `mcp`; null when no tool has the name. */
  origin: string | null;
  /** The tool's effect (`read` … `message`); null when no tool has the name. */
  effect: string | null;
  /** The arguments as the model sent them (any JSON value). */
  arguments: unknown;
  /** The policy that applied (`allow`, `ask`, `deny`); null when no tool has the name. */
  policy: string | null;
  approval: ToolApproval;
  /** Who decided, e.g. `owner (terminal)`, `policy`, `grant`, `keel`. */
  approvedBy: string | null;
  /** ms since epoch. */
  startedAt: number;
  /** How long it ran, ms (0 when it did not run). */
  durationMs: number;
  /** A short outcome: an exit code, an HTTP status, `timeout`, `denied`. */
  exit: string | null;
  isError: boolean;
  /** The whole result as the tool returned it, or null when it did not run. */
  result: string | null;
}

/** One row of the tool log. */
export interface ToolCallRow {
  id: number;
  turn_id: number | null;
  channel: string;
  tool: string;
  origin: string | null;
  effect: string | null;
  /** JSON (or its first {@link TOOL_ARGUMENTS_CHARS} characters), credentials withheld. */
  arguments: string;
  policy: string | null;
  approval: ToolApproval;
  approved_by: string | null;
  started_at: number;
  duration_ms: number;
  exit: string | null;
  is_error: 0 | 1;
  /** SHA-256 (hex) of the whole result, or null when it did not run. */
  result_sha256: string | null;
  excerpt: string | null;
}

/** `text` cut to `max` characters, with `…` when it was longer. */
function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The tool log. */
export class ToolCallsRepo {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Records one call.
   *
   * @returns the row's id.
   */
  record(call: ToolCallInput): number {
    const args = JSON.stringify(withholdSecrets(call.arguments ?? null, this.ctx.ledger)) ?? 'null';
    return Number(
      stmt(
        this.ctx.db,
        `INSERT INTO tool_calls (turn_id, channel, tool, origin, effect, arguments, policy, approval,
             approved_by, started_at, duration_ms, exit, is_error, result_sha256, excerpt)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        call.turnId,
        call.channel,
        call.tool,
        call.origin,
        call.effect,
        // Withheld field by field above: a second scan of the JSON text would read `"key":"wifi"`
        // as a credential named key, and withhold the word everywhere after it in the turn.
        wellFormed(capped(args, TOOL_ARGUMENTS_CHARS)),
        call.policy,
        call.approval,
        call.approvedBy,
        call.startedAt,
        Math.max(0, Math.round(call.durationMs)),
        call.exit,
        call.isError ? 1 : 0,
        call.result === null ? null : sha256(call.result),
        call.result === null
          ? null
          : storedText(capped(call.result, TOOL_EXCERPT_CHARS), this.ctx.ledger),
      ).lastInsertRowid,
    );
  }

  /**
   * Logged calls, newest first.
   *
   * @param options.turnId - only this turn's calls.
   * @param options.tool - only this tool's calls.
   * @param options.limit - at most this many (default 100).
   */
  list(options: { turnId?: number; tool?: string; limit?: number } = {}): ToolCallRow[] {
    return stmt(
      this.ctx.db,
      `SELECT * FROM tool_calls
         WHERE (@turn IS NULL OR turn_id = @turn) AND (@tool IS NULL OR tool = @tool)
         ORDER BY id DESC LIMIT @limit`,
    ).all({
      turn: options.turnId ?? null,
      tool: options.tool ?? null,
      limit: options.limit ?? 100,
    }) as ToolCallRow[];
  }

  /** How many calls are logged. */
  count(): number {
    return countRows(this.ctx.db, 'SELECT count(*) AS n FROM tool_calls');
  }

  /** The log as a holder of the owner's words: the arguments (JSON) and the result's excerpt. */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'tool_calls', [
      { column: 'arguments', json: true },
      { column: 'excerpt' },
    ]);
  }
}

/** What an "always" answer covers: the whole tool, or one exact call of it. */
export type GrantScope = 'tool' | 'exact';

/** One standing grant. */
export interface ToolGrantRow {
  id: number;
  tool: string;
  scope: GrantScope;
  /** The exact key shown (credentials withheld); `''` for a whole-tool grant. */
  exact: string;
  /** ms since epoch. */
  granted_at: number;
  /** The door the owner answered on. */
  channel: string;
}

/** The owner's standing "always" grants. */
export class ToolGrantsRepo {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Records a grant (once: a second identical grant keeps the first).
   *
   * @param grant.exact - the exact key (`scope = 'exact'`); ignored for a whole-tool grant.
   * @returns true when it is new.
   */
  add(grant: {
    tool: string;
    scope: GrantScope;
    exact?: string | null;
    channel: string;
    now: number;
  }): boolean {
    const exact = grant.scope === 'exact' ? (grant.exact ?? '') : '';
    return (
      stmt(
        this.ctx.db,
        `INSERT OR IGNORE INTO tool_grants (tool, scope, exact, exact_sha256, granted_at, channel)
           VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(
        grant.tool,
        grant.scope,
        grant.scope === 'exact' ? storedText(exact, this.ctx.ledger) : '',
        grant.scope === 'exact' ? sha256(exact) : '',
        grant.now,
        grant.channel,
      ).changes === 1
    );
  }

  /** Every grant, oldest first; only `tool`'s when given. */
  list(tool?: string): ToolGrantRow[] {
    return stmt(
      this.ctx.db,
      `SELECT id, tool, scope, exact, granted_at, channel FROM tool_grants
         WHERE (@tool IS NULL OR tool = @tool) ORDER BY id`,
    ).all({ tool: tool ?? null }) as ToolGrantRow[];
  }

  /**
   * Revokes grants: one by id, or every grant of a tool.
   *
   * @returns how many were revoked.
   */
  revoke(which: { id: number } | { tool: string }): number {
    if ('id' in which) {
      return stmt(this.ctx.db, 'DELETE FROM tool_grants WHERE id = ?').run(which.id).changes;
    }
    return stmt(this.ctx.db, 'DELETE FROM tool_grants WHERE tool = ?').run(which.tool).changes;
  }

  /**
   * The grant that covers a call: the tool's whole-tool grant, else the exact grant whose key is
   * `exact` (compared by its SHA-256, so a key holding a credential matches only itself).
   *
   * @returns the grant, or null when none covers it.
   */
  matches(tool: string, exact: string | null): ToolGrantRow | null {
    const row = stmt(
      this.ctx.db,
      `SELECT id, tool, scope, exact, granted_at, channel FROM tool_grants
         WHERE tool = @tool
           AND (scope = 'tool' OR (scope = 'exact' AND @hash IS NOT NULL AND exact_sha256 = @hash))
         ORDER BY scope = 'tool' DESC, id LIMIT 1`,
    ).get({ tool, hash: exact === null ? null : sha256(exact) }) as ToolGrantRow | undefined;
    return row ?? null;
  }

  /** The grants as a holder of the owner's words: an exact key (a command, a path, a URL). */
  holder(): OwnerTextHolder {
    return columnHolder(this.ctx, 'tool_grants', [{ column: 'exact' }]);
  }
}
