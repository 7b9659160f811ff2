/**
 * One round of the model's tool calls in a turn: each call run through the turn's
 * {@link Toolbox} (policy, the owner's approval on the door of the turn, the tool log with the
 * turn's id), the results cut to their budgets (`budgetToolResults`: per result and per round),
 * the memory writes the calls staged kept for the turn's completion, and the facts a result
 * showed the model counted only when their line reached it.
 *
 * @module
 */
import type { Approver, StagedWrite, Toolbox, ToolContext } from '@keel/tools';
import { budgetToolResults, type RawToolResult } from './budget.js';
import type { ToolResultBlock, ToolUseBlock } from './model/types.js';

/** What a tool round needs. */
export interface ToolRoundInput {
  toolbox: Toolbox;
  /** The calls of one model response, in order. */
  uses: readonly ToolUseBlock[];
  /** The turn's context for every call (its signal, the store, the zone, the door, the owner's words). */
  context: ToolContext;
  /** How the door asks its owner; absent when it cannot. */
  approve?: Approver;
  /** The turn (`turns.id`), for the tool log. */
  turnId: number;
  /** Most tokens of one result. */
  resultTokens: number;
  /** Most tokens of the round's results together. */
  room: number;
}

/** What a tool round produced. */
export interface ToolRound {
  /** One result block per call, in order, within the budgets. */
  blocks: ToolResultBlock[];
  /** The memory writes the calls staged, in order. */
  staged: StagedWrite[];
  /** Facts whose line reached the model. */
  factIds: number[];
}

/**
 * Runs one round of tool calls, one after another (an approval is asked one call at a time).
 *
 * @throws what the store throws when the tool log cannot be written.
 */
export async function runToolRound(input: ToolRoundInput): Promise<ToolRound> {
  const raw: RawToolResult[] = [];
  const staged: StagedWrite[] = [];
  const shownBy = new Map<string, number[]>();
  for (const u of input.uses) {
    const outcome = await input.toolbox.call(u.name, u.input, {
      context: input.context,
      turnId: input.turnId,
      ...(input.approve ? { approve: input.approve } : {}),
    });
    if (outcome.staged) staged.push(outcome.staged);
    shownBy.set(u.id, outcome.factIds);
    raw.push({ toolUseId: u.id, content: outcome.content, isError: outcome.isError });
  }
  const round = budgetToolResults(raw, input.resultTokens, input.room);
  // Facts count as used only when their line reached the model.
  const factIds = new Set<number>();
  round.blocks.forEach((block, i) => {
    for (const id of shownBy.get(block.tool_use_id) ?? []) {
      if (round.whole[i] || block.content.includes(`[f${id}]`)) factIds.add(id);
    }
  });
  return { blocks: round.blocks, staged, factIds: [...factIds] };
}
