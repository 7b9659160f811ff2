/*
 * Parsers for public long-term conversational memory datasets (this file holds no data):
 * - LoCoMo: Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
 *   ACL 2024 (github.com/snap-research/LoCoMo). Data licence: CC BY-NC 4.0.
 * - LongMemEval: Wu et al., "LongMemEval: Benchmarking Chat Assistants on Long-Term Interactive
 *   Memory", ICLR 2025 (github.com/xiaowu0162/LongMemEval). Data licence: MIT.
 */

/**
 * Pure parsers that turn a LoCoMo or LongMemEval JSON document into a flat list of turns ready
 * for import. No I/O and no database: the caller reads and `JSON.parse`s the file.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { ENGLISH_MONTHS } from '@keel/language';
import { z } from 'zod';

/** The dataset formats {@link parseImport} understands. */
export type ImportFormat = 'locomo' | 'longmemeval';

/** One conversation turn, flattened out of a dataset for import. */
export interface ImportedTurn {
  /** Document the turn came from. LoCoMo: `locomo:${sample_id}`; LongMemEval: `'longmemeval'`. */
  sourceDoc: string;
  /**
   * Id of the turn, unique within {@link ImportedTurn.sourceDoc}. LoCoMo: the `dia_id` (e.g.
   * `"D1:3"`); a `dia_id` that repeats inside one sample gets `"#2"`, `"#3"`, ... appended.
   * LongMemEval: `${session_id}#${turnIndex}`, turn index 0-based within the session.
   */
  sourceId: string;
  /** Session the turn belongs to. LoCoMo: `${sample_id}/session_${N}`; LongMemEval: the haystack session id. */
  sessionKey: string;
  /** Who spoke. LoCoMo: the speaker's name; LongMemEval: `'user'` or `'assistant'`. */
  speaker: string;
  /** LoCoMo: always `'other'`. LongMemEval: `user` → `'owner'`, `assistant` → `'assistant'`. */
  role: 'owner' | 'assistant' | 'other';
  /**
   * The turn text, verbatim. A LoCoMo turn with a `blip_caption` gets
   * `` ` [shared an image: ${blip_caption}]` `` appended.
   */
  text: string;
  /**
   * When the turn happened, in milliseconds since the Unix epoch (UTC): the session's date/time
   * (the datasets carry no time zone; read as UTC) plus the turn's 0-based index in its session,
   * in milliseconds, so turns of one session are strictly ordered.
   */
  occurredAt: number;
  /**
   * Extra dataset fields kept verbatim, absent when there are none. LoCoMo: `img_url`,
   * `blip_caption`, `query`, and `dia_id` (the original id, only when it was suffixed with `#N`).
   * LongMemEval: `has_answer` (boolean, when the turn has it).
   */
  meta?: Record<string, unknown>;
}

/** The result of {@link parseImport}. */
export interface ParsedImport {
  /** The format that was parsed. */
  format: ImportFormat;
  /** Distinct {@link ImportedTurn.sourceDoc} values, in input order (one per LoCoMo sample; `['longmemeval']`). */
  docs: string[];
  /** Every imported turn, in input order (sample/question, then session, then turn). */
  turns: ImportedTurn[];
  /**
   * Input left out, with why and where (`where` is a session key, optionally with a `[turnIndex]`
   * suffix, 0-based; LongMemEval locations are prefixed with `${question_id}/`).
   */
  skipped: { reason: string; where: string }[];
}

// ---------------------------------------------------------------------------------------------
// Dates: two fixed formats, parsed explicitly and checked by round-tripping through Date.UTC.

const MONTHS = ENGLISH_MONTHS;

/** "1:56 pm on 8 May, 2023" */
const LOCOMO_DATE = /^\s*(\d{1,2}):(\d{2})\s*([ap])m\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$/i;

/** "2023/05/20 (Sat) 02:21" (the weekday is decoration; the numeric date decides). */
const LONGMEMEVAL_DATE =
  /^\s*(\d{4})\/(\d{1,2})\/(\d{1,2})\s*(?:\((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\))?\s*(\d{1,2}):(\d{2})\s*$/i;

/** Date.UTC, or NaN when a field is out of range (e.g. 31 June, 24:00). `month` is 1-based. */
function utc(year: number, month: number, day: number, hour: number, minute: number): number {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59) return Number.NaN;
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  return new Date(ms).getUTCDate() === day ? ms : Number.NaN;
}

function badDate(kind: string, s: string, expected: string): KeelError {
  return new KeelError('IMPORT_FORMAT', `not a ${kind} date/time: ${JSON.stringify(s)}`, {
    details: { input: s, expected },
  });
}

/**
 * Parses a LoCoMo session date/time such as `"1:56 pm on 8 May, 2023"` (12-hour clock, full
 * English month name, case-insensitive).
 *
 * @param s - the `session_N_date_time` string.
 * @returns milliseconds since the Unix epoch, reading the time as UTC (the data has no zone).
 * @throws KeelError `IMPORT_FORMAT` when `s` is not in that form or names an impossible date.
 */
export function parseLocomoDate(s: string): number {
  const expected = 'h:mm am|pm on D Month, YYYY';
  const m = LOCOMO_DATE.exec(s);
  if (!m) throw badDate('LoCoMo', s, expected);
  const [, h, min, ampm, d, monthName, y] = m;
  const month = MONTHS.indexOf((monthName ?? '').toLowerCase() as (typeof MONTHS)[number]) + 1;
  const hour12 = Number(h);
  if (month === 0 || hour12 < 1 || hour12 > 12) throw badDate('LoCoMo', s, expected);
  const hour = (hour12 % 12) + (ampm?.toLowerCase() === 'p' ? 12 : 0);
  const ms = utc(Number(y), month, Number(d), hour, Number(min));
  if (Number.isNaN(ms)) throw badDate('LoCoMo', s, expected);
  return ms;
}

/**
 * Parses a LongMemEval date/time such as `"2023/05/20 (Sat) 02:21"` (24-hour clock). The
 * weekday in parentheses is optional and not checked against the date.
 *
 * @param s - a `haystack_dates` (or `question_date`) string.
 * @returns milliseconds since the Unix epoch, reading the time as UTC (the data has no zone).
 * @throws KeelError `IMPORT_FORMAT` when `s` is not in that form or names an impossible date.
 */
export function parseLongMemEvalDate(s: string): number {
  const expected = 'YYYY/MM/DD (Ddd) HH:mm';
  const m = LONGMEMEVAL_DATE.exec(s);
  if (!m) throw badDate('LongMemEval', s, expected);
  const [, y, mo, d, h, min] = m;
  const ms = utc(Number(y), Number(mo), Number(d), Number(h), Number(min));
  if (Number.isNaN(ms)) throw badDate('LongMemEval', s, expected);
  return ms;
}

// ---------------------------------------------------------------------------------------------
// Shapes.

const nonEmptyText = (field: string) =>
  z
    .string({
      error: (iss) => (iss.input === undefined ? `missing ${field}` : `${field} is not a string`),
    })
    .refine((t) => t.trim() !== '', { error: `${field} is empty` });

const LocomoSample = z.object({
  sample_id: z
    .string({ error: 'missing or non-string sample_id' })
    .min(1, { error: 'empty sample_id' }),
  conversation: z.record(z.string(), z.unknown(), { error: 'missing or non-object conversation' }),
});

const LocomoTurn = z.object({
  speaker: nonEmptyText('speaker'),
  dia_id: nonEmptyText('dia_id'),
  text: nonEmptyText('text'),
});

const LongMemEvalQuestion = z.object({
  question_id: z.string({ error: 'missing or non-string question_id' }),
  haystack_dates: z.array(z.string(), { error: 'missing or non-array haystack_dates' }),
  haystack_session_ids: z.array(z.string().min(1), {
    error: 'missing or non-array haystack_session_ids',
  }),
  haystack_sessions: z.array(z.array(z.unknown()), {
    error: 'missing or non-array haystack_sessions',
  }),
});

const LongMemEvalTurn = z.object({
  role: z.enum(['user', 'assistant'], { error: 'role is not "user" or "assistant"' }),
  content: nonEmptyText('content'),
});

/** A short, printable summary of zod issues (first few only, so details stay small). */
function summarize(error: z.ZodError): string[] {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
}

function formatError(
  message: string,
  details: Record<string, unknown>,
  cause?: unknown,
): KeelError {
  return new KeelError(
    'IMPORT_FORMAT',
    message,
    cause === undefined ? { details } : { details, cause },
  );
}

/** A top-level array's items, or the lone object as a one-item list. */
function topLevelItems(json: unknown, name: string): unknown[] {
  const items = Array.isArray(json)
    ? json
    : typeof json === 'object' && json !== null
      ? [json]
      : null;
  if (items === null) {
    throw formatError(
      `${name}: expected a JSON array or object, got ${json === null ? 'null' : typeof json}`,
      {
        format: name,
      },
    );
  }
  if (items.length === 0) throw formatError(`${name}: the file holds no entries`, { format: name });
  return items;
}

// ---------------------------------------------------------------------------------------------
// LoCoMo.

const SESSION_KEY = /^session_(\d+)$/;

function parseLocomo(json: unknown): ParsedImport {
  const out: ParsedImport = { format: 'locomo', docs: [], turns: [], skipped: [] };
  const seenSamples = new Set<string>();

  topLevelItems(json, 'locomo').forEach((item, index) => {
    const sample = LocomoSample.safeParse(item);
    if (!sample.success) {
      throw formatError(
        `locomo: entry ${index} is not a LoCoMo sample (${summarize(sample.error).join('; ')})`,
        {
          index,
          issues: summarize(sample.error),
        },
      );
    }
    const { sample_id: sampleId, conversation } = sample.data;
    if (seenSamples.has(sampleId)) {
      throw formatError(`locomo: sample_id ${JSON.stringify(sampleId)} appears twice`, {
        index,
        sampleId,
      });
    }
    seenSamples.add(sampleId);
    const sourceDoc = `locomo:${sampleId}`;
    out.docs.push(sourceDoc);

    const sessions = Object.keys(conversation)
      .map((key) => SESSION_KEY.exec(key)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);

    const idCounts = new Map<string, number>();
    const usedIds = new Set<string>();

    for (const n of sessions) {
      const sessionKey = `${sampleId}/session_${n}`;
      const list = conversation[`session_${n}`];
      if (!Array.isArray(list)) {
        throw formatError(`locomo: ${sessionKey} is not a list of turns`, {
          sampleId,
          session: sessionKey,
        });
      }
      if (list.length === 0) continue; // sessions with a date but no turns produce nothing

      const dateKey = `session_${n}_date_time`;
      const rawDate = conversation[dateKey];
      let start: number;
      try {
        if (typeof rawDate !== 'string')
          throw new TypeError(`${dateKey} is missing or not a string`);
        start = parseLocomoDate(rawDate);
      } catch (cause) {
        throw formatError(
          `locomo: ${sessionKey} has no usable date (${dateKey} = ${JSON.stringify(rawDate)})`,
          { sampleId, session: sessionKey, [dateKey]: rawDate },
          cause,
        );
      }

      list.forEach((raw, i) => {
        const where = `${sessionKey}[${i}]`;
        const turn = LocomoTurn.safeParse(raw);
        if (!turn.success) {
          out.skipped.push({ reason: summarize(turn.error).join('; '), where });
          return;
        }
        const { speaker, dia_id: diaId, text } = turn.data;
        const extra = raw as Record<string, unknown>;

        let sourceId = diaId;
        if (usedIds.has(sourceId)) {
          let k = idCounts.get(diaId) ?? 1;
          do sourceId = `${diaId}#${++k}`;
          while (usedIds.has(sourceId));
          idCounts.set(diaId, k);
        }
        usedIds.add(sourceId);

        const meta: Record<string, unknown> = {};
        for (const key of ['img_url', 'blip_caption', 'query'] as const) {
          if (extra[key] !== undefined) meta[key] = extra[key];
        }
        if (sourceId !== diaId) meta.dia_id = diaId;

        const caption = typeof extra.blip_caption === 'string' ? extra.blip_caption.trim() : '';
        out.turns.push({
          sourceDoc,
          sourceId,
          sessionKey,
          speaker,
          role: 'other',
          text: caption ? `${text} [shared an image: ${caption}]` : text,
          occurredAt: start + i,
          ...(Object.keys(meta).length > 0 ? { meta } : {}),
        });
      });
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// LongMemEval.

function parseLongMemEval(json: unknown): ParsedImport {
  const out: ParsedImport = {
    format: 'longmemeval',
    docs: ['longmemeval'],
    turns: [],
    skipped: [],
  };
  /** Sessions already imported: LongMemEval questions share haystack sessions (with different dates). */
  const imported = new Map<string, { questionId: string; session: unknown[] }>();

  topLevelItems(json, 'longmemeval').forEach((item, index) => {
    const parsed = LongMemEvalQuestion.safeParse(item);
    if (!parsed.success) {
      throw formatError(
        `longmemeval: entry ${index} is not a LongMemEval question (${summarize(parsed.error).join('; ')})`,
        { index, issues: summarize(parsed.error) },
      );
    }
    const {
      question_id: questionId,
      haystack_dates,
      haystack_session_ids,
      haystack_sessions,
    } = parsed.data;
    const n = haystack_sessions.length;
    if (haystack_dates.length !== n || haystack_session_ids.length !== n) {
      throw formatError(
        `longmemeval: question ${questionId} has ${n} haystack_sessions but ${haystack_session_ids.length} ids and ${haystack_dates.length} dates`,
        { index, questionId },
      );
    }

    haystack_sessions.forEach((session, s) => {
      // Lengths were checked above, so these indexes exist.
      const sessionId = haystack_session_ids[s] as string;
      const rawDate = haystack_dates[s] as string;
      const here = `${questionId}/${sessionId}`;

      const previous = imported.get(sessionId);
      if (previous) {
        const same = JSON.stringify(previous.session) === JSON.stringify(session);
        out.skipped.push({
          reason: `duplicate session id, already imported from question ${previous.questionId}${
            same ? '' : ' (content differs; the first copy was kept)'
          }`,
          where: here,
        });
        return;
      }

      let start: number;
      try {
        start = parseLongMemEvalDate(rawDate);
      } catch (cause) {
        throw formatError(
          `longmemeval: session ${sessionId} of question ${questionId} has an unparseable date ${JSON.stringify(rawDate)}`,
          { questionId, session: sessionId, date: rawDate },
          cause,
        );
      }
      imported.set(sessionId, { questionId, session });

      session.forEach((raw, i) => {
        const turn = LongMemEvalTurn.safeParse(raw);
        if (!turn.success) {
          out.skipped.push({ reason: summarize(turn.error).join('; '), where: `${here}[${i}]` });
          return;
        }
        const { role, content } = turn.data;
        const hasAnswer = (raw as Record<string, unknown>).has_answer;
        out.turns.push({
          sourceDoc: 'longmemeval',
          sourceId: `${sessionId}#${i}`,
          sessionKey: sessionId,
          speaker: role,
          role: role === 'user' ? 'owner' : 'assistant',
          text: content,
          occurredAt: start + i,
          ...(typeof hasAnswer === 'boolean' ? { meta: { has_answer: hasAnswer } } : {}),
        });
      });
    });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------

/**
 * Flattens a parsed LoCoMo or LongMemEval JSON document into turns.
 *
 * - `locomo`: a JSON array of samples (`locomo10.json`, or one-sample files like `conv-26.json`);
 *   a single sample object is accepted too. Sessions are taken in numeric order; a session with a
 *   date but no turns produces nothing.
 * - `longmemeval`: one question object, or a JSON array of them (the full release). A haystack
 *   session id seen in an earlier question is imported once; later copies are listed in `skipped`.
 *
 * Malformed individual turns (missing, empty or non-string text/speaker/id, unknown role) are
 * left out and listed in `skipped`. All times are in milliseconds since the Unix epoch (UTC).
 *
 * @param json - the value returned by `JSON.parse` on the file.
 * @param format - which dataset format `json` is in.
 * @throws KeelError `IMPORT_FORMAT` when `json` is not in `format` (wrong top-level shape,
 *   missing `conversation` or haystack fields, empty file, duplicate LoCoMo `sample_id`), or a
 *   session that has turns has a missing or unparseable date (the message names the session).
 */
export function parseImport(json: unknown, format: ImportFormat): ParsedImport {
  switch (format) {
    case 'locomo':
      return parseLocomo(json);
    case 'longmemeval':
      return parseLongMemEval(json);
    default:
      throw new KeelError('IMPORT_FORMAT', `unknown import format ${JSON.stringify(format)}`, {
        details: { format, expected: ['locomo', 'longmemeval'] },
      });
  }
}
