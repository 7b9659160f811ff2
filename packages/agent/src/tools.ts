/**
 * The memory tools the model may call: remember, recall, history, forget and review_pending, with
 * zod-validated input. Reads answer at once; writes are staged and applied through the store's
 * write review when the turn completes, so a failed turn never becomes memory. The model writes as
 * `inferred` and cannot force past the evidence gate.
 *
 * @module
 */
import { supportsValue } from '@keel/language';
import { KINDS, type MemoryStore, parseFactId, parseSlot, REFUSED_UNSAID } from '@keel/memory';
import { formatFactLine, formatResultLine } from '@keel/prompt';
import { z } from 'zod';
import type { ToolSpec } from './model/types.js';

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
const historyInput = z.object({ slot: z.string().describe('kind/key, e.g. preference/coffee') });
const forgetInput = z.object({
  id: z.union([z.string(), z.number()]).describe('the fact id, e.g. f42'),
  reason: z.string().max(500).optional(),
});
const reviewInput = z.object({});

/** A write the model asked for, applied when the turn completes. */
export type StagedWrite =
  | {
      tool: 'remember';
      kind: (typeof KINDS)[number];
      key: string;
      value: string;
      validFrom: number | null;
    }
  | { tool: 'forget'; id: number; reason: string | null };

/** The result of one tool call. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Fact ids the tool showed the model. */
  factIds: number[];
  staged?: StagedWrite;
}

const SPECS: ToolSpec[] = [
  {
    name: 'remember',
    description:
      "Keep a belief about the owner. It is stored as inferred (a guess, confidence at most 0.70 at first) through keel's write review when this turn completes. Use a stable key per subject so repeats corroborate and corrections supersede. A new belief must rest on the owner's words in this turn: a value the owner's message does not mention is refused.",
    inputSchema: z.toJSONSchema(rememberInput) as Record<string, unknown>,
  },
  {
    name: 'recall',
    description:
      'Search memory (beliefs and past conversation). Each line carries id, kind/key, value, confidence, evidence count, source and age.',
    inputSchema: z.toJSONSchema(recallInput) as Record<string, unknown>,
  },
  {
    name: 'history',
    description:
      'Every version of one belief, newest first, with its status (active, superseded, retracted…).',
    inputSchema: z.toJSONSchema(historyInput) as Record<string, unknown>,
  },
  {
    name: 'forget',
    description:
      'Ask the owner to forget a belief: keel records the request and the owner decides (keel asks them; nothing is forgotten until they say so). Use only when the owner asks to forget something; give the reason in their words.',
    inputSchema: z.toJSONSchema(forgetInput) as Record<string, unknown>,
  },
  {
    name: 'review_pending',
    description: 'List beliefs waiting for the owner: conflicts and weakly evidenced guesses.',
    inputSchema: z.toJSONSchema(reviewInput) as Record<string, unknown>,
  },
];

/** The tool specs sent to the model. */
export function memoryToolSpecs(): ToolSpec[] {
  return SPECS;
}

function invalid(name: string, error: z.ZodError): ToolOutcome {
  return {
    content: `invalid input for ${name}: ${z.prettifyError(error)}`,
    isError: true,
    factIds: [],
  };
}

/**
 * Runs one tool call. Never throws for bad input: the error goes back to the model as an error
 * result. `recall` is the store's one recall: hybrid when an embedder is bound.
 *
 * @param options.tz - the owner's IANA zone: recall reads dates in the query in it and shows days
 *   in it (default UTC).
 * @param options.ownerText - the owner's message of this turn (as the model read it): a `remember`
 *   whose value it does not mention (`supportsValue`) is answered at once as refused with
 *   {@link REFUSED_UNSAID}, so the model reads why; it is still staged, and the store's write
 *   review refuses it when the turn completes (the turn's `writes` and the journal carry it).
 */
export async function runMemoryTool(
  store: MemoryStore,
  name: string,
  input: unknown,
  options: { tz?: string; ownerText?: string } = {},
): Promise<ToolOutcome> {
  try {
    switch (name) {
      case 'remember': {
        const p = rememberInput.safeParse(input);
        if (!p.success) return invalid(name, p.error);
        const validFrom = p.data.valid_from ? Date.parse(p.data.valid_from) : null;
        if (validFrom !== null && Number.isNaN(validFrom)) {
          return { content: 'valid_from must be an ISO date', isError: true, factIds: [] };
        }
        const slot = parseSlot(`${p.data.kind}/${p.data.key}`);
        const staged: StagedWrite = {
          tool: 'remember',
          kind: slot.kind,
          key: slot.key,
          value: p.data.value,
          validFrom,
        };
        if (options.ownerText !== undefined && !supportsValue(options.ownerText, p.data.value)) {
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
        };
      }
      case 'recall': {
        const p = recallInput.safeParse(input);
        if (!p.success) return invalid(name, p.error);
        const tz = options.tz ?? 'UTC';
        const r = await store.recall(p.data.query, { limit: p.data.limit ?? 8, tz });
        const lines = r.results.map((x) => formatResultLine(x, tz));
        return {
          content: [`recall: ${r.mode}`, ...(lines.length ? lines : ['nothing found'])].join('\n'),
          isError: false,
          factIds: r.results.filter((x) => x.type === 'fact').map((x) => x.id),
        };
      }
      case 'history': {
        const p = historyInput.safeParse(input);
        if (!p.success) return invalid(name, p.error);
        const rows = store.history(parseSlot(p.data.slot));
        return {
          content: rows.length
            ? rows.map((f) => `${formatFactLine(f)} [${f.status}]`).join('\n')
            : `no history for ${p.data.slot}`,
          isError: false,
          factIds: rows.map((f) => f.id),
        };
      }
      case 'forget': {
        const p = forgetInput.safeParse(input);
        if (!p.success) return invalid(name, p.error);
        const id = parseFactId(p.data.id);
        const fact = store.fact(id);
        if (!fact) return { content: `no fact f${id}`, isError: true, factIds: [] };
        return {
          content: JSON.stringify({
            status: 'staged',
            id: `f${id}`,
            note: 'the owner will be asked to confirm; nothing is forgotten until they do',
          }),
          isError: false,
          factIds: [id],
          staged: { tool: 'forget', id, reason: p.data.reason ?? null },
        };
      }
      case 'review_pending': {
        const q = store.review();
        const lines = [
          ...q.pending.map(
            (p) =>
              `pending ${formatFactLine(p.fact)}${p.current ? ` contradicts f${p.current.id}` : ''}`,
          ),
          ...q.weak.map((f) => `weak ${formatFactLine(f)}`),
        ];
        return {
          content: lines.length ? lines.join('\n') : 'nothing waiting for review',
          isError: false,
          factIds: [...q.pending.map((p) => p.fact.id), ...q.weak.map((f) => f.id)],
        };
      }
      default:
        return { content: `unknown tool ${name}`, isError: true, factIds: [] };
    }
  } catch (err) {
    return { content: `${name} failed: ${(err as Error).message}`, isError: true, factIds: [] };
  }
}
