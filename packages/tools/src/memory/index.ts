/**
 * The memory tools the model may call: remember, recall, history, why, forget and review_pending,
 * as {@link Tool}s of origin `memory`. Reads (`recall`, `history`, `why`, `review_pending`) answer
 * at once;
 * writes (`remember`, `forget`) are staged ({@link StagedWrite}) and applied through the store's
 * write review when the turn completes, so a failed turn never becomes memory. The model writes as
 * `inferred` and cannot force past the evidence gate.
 *
 * `remember` and `forget` have effect `write` but `defaultPolicy: 'allow'`: they change nothing
 * themselves. What they stage is decided by keel's own write review (the evidence gate,
 * tombstones, the secret refusal; a model's `forget` only asks the owner, who decides), so asking
 * the owner before staging would ask twice.
 *
 * Their output is keel's own memory written out by `@keel/prompt` (every line already
 * neutralised and flagged), so the toolbox does not fence it again.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { supportsValue } from '@keel/language';
import { type Fact, KINDS, parseFactId, parseSlot, REFUSED_UNSAID, type Slot } from '@keel/memory';
import { formatFactLine, formatResultLine } from '@keel/prompt';
import { z } from 'zod';
import type { AnyTool, StagedWrite, Tool, ToolContext, ToolResult } from '../contract.js';
import { whyLines } from '../slash/why.js';

const rememberInput = z.object({
  kind: z.enum(KINDS).describe('what sort of belief'),
  key: z
    .string()
    .min(1)
    .max(80)
    .describe(
      'a short stable slug for the subject, reused for the same subject (e.g. "coffee", "sister_name")',
    ),
  value: z.string().min(1).max(4000).describe('the belief, in a few words'),
  valid_from: z.string().optional().describe('ISO date the belief has been true since, if known'),
});
const recallInput = z.object({
  query: z.string().min(1).max(2000).describe('what to look for'),
  limit: z.number().int().min(1).max(30).optional().describe('results, default 8'),
});
const historyInput = z.object({
  slot: z
    .string()
    .min(1)
    .max(200)
    .describe('kind/key, e.g. preference/coffee, or a belief id, e.g. f42'),
});
const whyInput = z.object({
  id: z.union([z.string(), z.number()]).describe('the fact id, e.g. f42'),
});
const forgetInput = z.object({
  id: z.union([z.string(), z.number()]).describe('the fact id, e.g. f42'),
  reason: z.string().max(500).optional(),
});
const reviewInput = z.object({});

/**
 * Runs a memory tool's body; an error it throws (a malformed slot's `INVALID_INPUT`, a store
 * error) goes back to the model as an error result, `<name> failed: <message>`.
 */
function guarded<I>(
  name: string,
  run: (input: I, context: ToolContext) => Promise<ToolResult> | ToolResult,
): (input: I, context: ToolContext) => Promise<ToolResult> {
  return async (input, context) => {
    try {
      return await run(input, context);
    } catch (err) {
      return {
        content: `${name} failed: ${(err as Error).message}`,
        isError: true,
        factIds: [],
        exit: 'error',
      };
    }
  };
}

/**
 * `remember`: stages a belief as `inferred`. A value the owner's message of this turn
 * (`context.ownerText`) does not mention (`supportsValue`) is answered at once as refused with
 * {@link REFUSED_UNSAID}, so the model reads why; it is still staged, and the store's write review
 * refuses it when the turn completes (the turn's `writes` and the journal carry it).
 */
export const rememberTool: Tool<z.infer<typeof rememberInput>> = {
  name: 'remember',
  description:
    "Keep a belief about the owner. It is stored as inferred (a guess, confidence at most 0.70 at first) through keel's write review when this turn completes. Use a stable key per subject so repeats corroborate and corrections supersede. A new belief must rest on the owner's words in this turn: a value the owner's message does not mention is refused.",
  input: rememberInput,
  effect: 'write',
  origin: 'memory',
  defaultPolicy: 'allow',
  summary: (input) => `remember ${input.kind}/${input.key}: ${input.value}`,
  execute: guarded('remember', (input, context) => {
    const validFrom = input.valid_from ? Date.parse(input.valid_from) : null;
    if (validFrom !== null && Number.isNaN(validFrom)) {
      return {
        content: 'valid_from must be an ISO date',
        isError: true,
        factIds: [],
        exit: 'error',
      };
    }
    const slot = parseSlot(`${input.kind}/${input.key}`);
    const staged: StagedWrite = {
      tool: 'remember',
      kind: slot.kind,
      key: slot.key,
      value: input.value,
      validFrom,
    };
    if (context.ownerText !== undefined && !supportsValue(context.ownerText, input.value)) {
      // Still staged: the store's write review refuses it too, journaled as the model's.
      return {
        content: JSON.stringify({
          status: 'refused',
          slot: `${slot.kind}/${slot.key}`,
          reason: REFUSED_UNSAID,
        }),
        isError: true,
        factIds: [],
        staged,
        exit: 'refused',
      };
    }
    return {
      content: JSON.stringify({
        status: 'staged',
        slot: `${slot.kind}/${slot.key}`,
        note: 'will be written as inferred through the write review when this turn completes',
      }),
      isError: false,
      factIds: [],
      staged,
      exit: 'staged',
    };
  }),
};

/** `recall`: the store's one recall (hybrid when an embedder is bound), days in the owner's zone. */
export const recallTool: Tool<z.infer<typeof recallInput>> = {
  name: 'recall',
  description:
    'Search memory (beliefs and past conversation). Each line carries id, kind/key, value, confidence, evidence count, source and age.',
  input: recallInput,
  effect: 'read',
  origin: 'memory',
  summary: (input) => `recall "${input.query}"`,
  execute: guarded('recall', async (input, context) => {
    const tz = context.tz;
    const r = await context.store.recall(input.query, { limit: input.limit ?? 8, tz });
    const lines = r.results.map((x) => formatResultLine(x, tz));
    return {
      content: [`recall: ${r.mode}`, ...(lines.length ? lines : ['nothing found'])].join('\n'),
      isError: false,
      factIds: r.results.filter((x) => x.type === 'fact').map((x) => x.id),
      exit: 'ok',
    };
  }),
};

/**
 * The slot a history is asked for: `kind/key`, or a belief id (`f42`, `42`) standing for its
 * belief's slot.
 *
 * @throws KeelError `INVALID_INPUT` (neither), `NOT_FOUND` (no such belief).
 */
function historySlot(store: ToolContext['store'], ref: string): Slot {
  if (!/^f?\d+$/i.test(ref.trim())) return parseSlot(ref);
  const id = parseFactId(ref);
  const fact = store.fact(id);
  if (!fact) throw new KeelError('NOT_FOUND', `no belief f${id}`, { details: { id } });
  return { scope: fact.scope, kind: fact.kind, key: fact.key };
}

/** `history`: every version of one belief's slot, newest first. */
export const historyTool: Tool<z.infer<typeof historyInput>> = historyToolWith(false);

/**
 * `history` as an outside agent reads it (`keel mcp`): the same versions, but one the owner forgot
 * (retracted) or rejected shows `[forgotten]` or `[rejected]` in place of its value.
 */
export const outsideHistoryTool: Tool<z.infer<typeof historyInput>> = historyToolWith(true);

/** The placeholder of a version's value an outside agent never reads, by status. */
const WITHHELD_VALUE: Partial<Record<Fact['status'], string>> = {
  retracted: '[forgotten]',
  rejected: '[rejected]',
};

/** The `history` tool; with `withhold`, forgotten and rejected values are left out. */
function historyToolWith(withhold: boolean): Tool<z.infer<typeof historyInput>> {
  return {
    name: 'history',
    description:
      'Every version of one belief (by kind/key or by a belief id such as f42), newest first, with its status (active, superseded, retracted…).',
    input: historyInput,
    effect: 'read',
    origin: 'memory',
    summary: (input) => `history of ${input.slot}`,
    execute: guarded('history', (input, context) => {
      const rows = context.store.history(historySlot(context.store, input.slot));
      const shown = (f: Fact) => {
        const withheld = withhold ? WITHHELD_VALUE[f.status] : undefined;
        return withheld === undefined ? f : { ...f, value: withheld };
      };
      return {
        content: rows.length
          ? rows.map((f) => `${formatFactLine(shown(f))} [${f.status}]`).join('\n')
          : `no history for ${input.slot}`,
        isError: false,
        factIds: rows.map((f) => f.id),
        exit: 'ok',
      };
    }),
  };
}

/**
 * `why`: why keel holds a belief: every version of its slot (former values labelled), each
 * version's evidence episodes (the door, when, what was said) and who changed it when, as the
 * owner reads it from `keel why` (`whyLines`).
 */
export const whyTool: Tool<z.infer<typeof whyInput>> = {
  name: 'why',
  description:
    'Why keel believes something: the belief, its former values, the conversations that are its evidence (door, time, what was said) and who changed it when. Use when the owner asks why you believe or remember something.',
  input: whyInput,
  effect: 'read',
  origin: 'memory',
  summary: (input) => `why ${String(input.id)}`,
  execute: guarded('why', (input, context) => {
    const id = parseFactId(input.id);
    const why = context.store.why(id);
    if (!why) return { content: `no fact f${id}`, isError: true, factIds: [], exit: 'not_found' };
    return {
      // A value the journal does not explain is withheld from the model, as recall withholds it.
      content: whyLines(why, context.tz, { withholdUnexplained: true }).join('\n'),
      isError: false,
      factIds: why.chain.map((f) => f.id),
      exit: 'ok',
    };
  }),
};

/** `forget`: stages a request to forget a belief; the owner decides (nothing is forgotten here). */
export const forgetTool: Tool<z.infer<typeof forgetInput>> = {
  name: 'forget',
  description:
    'Ask the owner to forget a belief: keel records the request and the owner decides (keel asks them; nothing is forgotten until they say so). Use only when the owner asks to forget something; give the reason in their words.',
  input: forgetInput,
  effect: 'write',
  origin: 'memory',
  defaultPolicy: 'allow',
  summary: (input) => `ask to forget ${String(input.id)}`,
  execute: guarded('forget', (input, context) => {
    const id = parseFactId(input.id);
    const fact = context.store.fact(id);
    if (!fact) return { content: `no fact f${id}`, isError: true, factIds: [], exit: 'not_found' };
    return {
      content: JSON.stringify({
        status: 'staged',
        id: `f${id}`,
        note: 'the owner will be asked to confirm; nothing is forgotten until they do',
      }),
      isError: false,
      factIds: [id],
      staged: { tool: 'forget', id, reason: input.reason ?? null },
      exit: 'staged',
    };
  }),
};

/** `review_pending`: what waits for the owner (conflicts, questions, forget requests, weak and stale beliefs). */
export const reviewPendingTool: Tool<z.infer<typeof reviewInput>> = {
  name: 'review_pending',
  description:
    'List what waits for the owner: conflicts, open questions, requests to forget, weakly evidenced guesses and beliefs without evidence for a long time (stale).',
  input: reviewInput,
  effect: 'read',
  origin: 'memory',
  summary: () => 'list beliefs waiting for review',
  execute: guarded('review_pending', (_input, context) => {
    const q = context.store.review();
    const lines = [
      ...q.pending.map(
        (p) =>
          `pending ${formatFactLine(p.fact)}${p.current ? ` contradicts f${p.current.id}` : ''}`,
      ),
      ...q.questions.map((x) => `question q${x.id} about ${formatFactLine(x.fact)}`),
      ...q.forget.map((r) => `forget? ${formatFactLine(r.fact)}`),
      ...q.weak.map((f) => `weak ${formatFactLine(f)}`),
      ...q.stale.map((f) => `stale ${formatFactLine(f)}`),
    ];
    const shown = [
      ...q.pending.map((p) => p.fact),
      ...q.questions.map((x) => x.fact),
      ...q.forget.map((r) => r.fact),
      ...q.weak,
      ...q.stale,
    ];
    return {
      content: lines.length ? lines.join('\n') : 'nothing waiting for review',
      isError: false,
      factIds: [...new Set(shown.map((f) => f.id))],
      exit: 'ok',
    };
  }),
};

/** The memory tools in the order the model is offered them. */
export function memoryTools(): AnyTool[] {
  return [rememberTool, recallTool, historyTool, whyTool, forgetTool, reviewPendingTool];
}
