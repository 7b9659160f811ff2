// Tests run against real public data in tests/fixtures/data (see its README for attribution):
// LoCoMo (Maharana et al., ACL 2024, CC BY-NC 4.0) and LongMemEval (Wu et al., ICLR 2025, MIT).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import {
  type ImportedTurn,
  type ParsedImport,
  parseImport,
  parseLocomoDate,
  parseLongMemEvalDate,
} from './parsers.js';

const DATA = fileURLToPath(new URL('../../../../tests/fixtures/data', import.meta.url));
const readJson = (path: string): unknown => JSON.parse(readFileSync(`${DATA}/${path}`, 'utf8'));

/** A fresh, mutable copy of conv-26 (array of one sample). */
const conv26 = () =>
  readJson('locomo/conv-26.json') as { sample_id: string; conversation: Record<string, unknown> }[];
const conv26Conversation = () => {
  const sample = conv26()[0];
  if (!sample) throw new Error('conv-26.json holds no sample');
  return sample;
};

interface LmeTurn {
  role: string;
  content: string;
  has_answer?: boolean;
}
interface LmeQuestion {
  question_id: string;
  haystack_dates: string[];
  haystack_session_ids: string[];
  haystack_sessions: LmeTurn[][];
}
const lme = (name: string) => readJson(`longmemeval/${name}.json`) as LmeQuestion;

/** The error thrown by `fn`, asserted to be a KeelError with code IMPORT_FORMAT. */
function importFormatError(fn: () => unknown): KeelError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(KeelError);
  const error = caught as KeelError;
  expect(error.code).toBe('IMPORT_FORMAT');
  return error;
}

function bySession(turns: ImportedTurn[]): Map<string, ImportedTurn[]> {
  const map = new Map<string, ImportedTurn[]>();
  for (const t of turns) map.set(t.sessionKey, [...(map.get(t.sessionKey) ?? []), t]);
  return map;
}

function expectStrictlyOrderedWithinSessions(parsed: ParsedImport): void {
  for (const [session, turns] of bySession(parsed.turns)) {
    for (let i = 1; i < turns.length; i++) {
      const prev = turns[i - 1] as ImportedTurn;
      const cur = turns[i] as ImportedTurn;
      expect(cur.occurredAt, `${session}: ${prev.sourceId} -> ${cur.sourceId}`).toBeGreaterThan(
        prev.occurredAt,
      );
    }
  }
}

const find = (parsed: ParsedImport, sourceId: string): ImportedTurn => {
  const turn = parsed.turns.find((t) => t.sourceId === sourceId);
  if (!turn) throw new Error(`no turn ${sourceId}`);
  return turn;
};

describe('parseLocomoDate', () => {
  it('reads the LoCoMo 12-hour form as UTC milliseconds', async () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe(Date.parse('2023-05-08T13:56:00Z'));
    expect(parseLocomoDate('12:09 am on 13 September, 2023')).toBe(
      Date.parse('2023-09-13T00:09:00Z'),
    );
    expect(parseLocomoDate('12:30 pm on 1 January, 2024')).toBe(Date.parse('2024-01-01T12:30:00Z'));
    expect(parseLocomoDate('10:37 AM on 27 june, 2023')).toBe(Date.parse('2023-06-27T10:37:00Z'));
  });

  it.each([
    '',
    'garbage',
    '13:00 pm on 8 May, 2023',
    '0:15 am on 8 May, 2023',
    '1:60 pm on 8 May, 2023',
    '1:56 pm on 31 June, 2023',
    '1:56 pm on 8 Mayo, 2023',
    '2023-05-08T13:56:00Z',
  ])('rejects %j with IMPORT_FORMAT', (s) => {
    importFormatError(() => parseLocomoDate(s));
  });
});

describe('parseLongMemEvalDate', () => {
  it('reads the LongMemEval 24-hour form as UTC milliseconds', async () => {
    expect(parseLongMemEvalDate('2023/05/20 (Sat) 02:21')).toBe(Date.parse('2023-05-20T02:21:00Z'));
    expect(parseLongMemEvalDate('2023/03/27 (Mon) 23:35')).toBe(Date.parse('2023-03-27T23:35:00Z'));
  });

  it.each([
    '',
    '2023/02/29 (Wed) 10:00',
    '2023/05/20 (Sat) 24:00',
    '20 May 2023',
    '2023-05-20 02:21',
  ])('rejects %j with IMPORT_FORMAT', (s) => {
    importFormatError(() => parseLongMemEvalDate(s));
  });
});

describe('parseImport: LoCoMo (conv-26)', () => {
  const raw = conv26Conversation();
  const sessionLists = Object.entries(raw.conversation).filter(([key]) =>
    /^session_\d+$/.test(key),
  ) as [string, unknown[]][];
  const parsed = parseImport(conv26(), 'locomo');

  it('imports one turn per entry of every session_N list', async () => {
    const expected = sessionLists.reduce((sum, [, list]) => sum + list.length, 0);
    expect(expected).toBeGreaterThan(0);
    expect(parsed.format).toBe('locomo');
    expect(parsed.docs).toEqual(['locomo:conv-26']);
    expect(parsed.turns).toHaveLength(expected);
    expect(parsed.skipped).toEqual([]);
    expect(new Set(parsed.turns.map((t) => t.sourceId)).size).toBe(expected);
  });

  it('keeps dia_id, speaker and text (D1:3)', async () => {
    const turn = find(parsed, 'D1:3');
    expect(turn).toEqual({
      sourceDoc: 'locomo:conv-26',
      sourceId: 'D1:3',
      sessionKey: 'conv-26/session_1',
      speaker: 'Caroline',
      role: 'other',
      text: 'I went to a LGBTQ support group yesterday and it was so powerful.',
      occurredAt: Date.parse('2023-05-08T13:56:00Z') + 2,
    });
  });

  it('dates session 1 at 2023-05-08T13:56Z, offset by turn index', async () => {
    const session1 = parsed.turns.filter((t) => t.sessionKey === 'conv-26/session_1');
    expect(session1[0]?.sourceId).toBe('D1:1');
    expect(new Date(session1[0]?.occurredAt ?? 0).toISOString()).toBe('2023-05-08T13:56:00.000Z');
    session1.forEach((t, i) => {
      expect(t.occurredAt).toBe(Date.parse('2023-05-08T13:56:00Z') + i);
    });
  });

  it('orders turns strictly in time within each session', async () => {
    expectStrictlyOrderedWithinSessions(parsed);
  });

  it('produces nothing for sessions that have a date but no turns', async () => {
    const dated = Object.keys(raw.conversation).filter((k) => /^session_\d+_date_time$/.test(k));
    const withTurns = sessionLists
      .filter(([, list]) => list.length > 0)
      .map(([key]) => `conv-26/${key}`);
    expect(dated.length).toBeGreaterThan(withTurns.length); // the quirk: sessions 20-35 are empty
    expect(new Set(parsed.turns.map((t) => t.sessionKey))).toEqual(new Set(withTurns));
    expect(parsed.turns.some((t) => t.sessionKey === 'conv-26/session_20')).toBe(false);
  });

  it('appends the image caption and keeps img_url in meta (D1:5)', async () => {
    const turn = find(parsed, 'D1:5');
    expect(turn.text).toBe(
      'The transgender stories were so inspiring! I was so happy and thankful for all the support.' +
        ' [shared an image: a photo of a dog walking past a wall with a painting of a woman]',
    );
    expect(turn.meta).toMatchObject({ img_url: ['https://i.redd.it/l7hozpetnhlb1.jpg'] });
  });

  it('accepts a file of several samples, one doc per sample', async () => {
    const a = conv26Conversation();
    const b = { ...conv26Conversation(), sample_id: 'conv-26-copy' };
    const both = parseImport([a, b], 'locomo');
    expect(both.docs).toEqual(['locomo:conv-26', 'locomo:conv-26-copy']);
    expect(both.turns).toHaveLength(parsed.turns.length * 2);
    expect(find(both, 'D1:3').sourceDoc).toBe('locomo:conv-26');
    expect(both.turns.at(-1)?.sessionKey).toMatch(/^conv-26-copy\/session_\d+$/);
  });

  it('suffixes a dia_id that repeats inside one sample with #2, #3', async () => {
    const sample = conv26Conversation();
    const s1 = sample.conversation.session_1 as { dia_id: string }[];
    for (const i of [3, 4]) (s1[i] as { dia_id: string }).dia_id = 'D1:3';
    const result = parseImport([sample], 'locomo');
    const ids = result.turns
      .filter((t) => t.sessionKey === 'conv-26/session_1')
      .map((t) => t.sourceId);
    expect(ids.slice(0, 6)).toEqual(['D1:1', 'D1:2', 'D1:3', 'D1:3#2', 'D1:3#3', 'D1:6']);
    expect(find(result, 'D1:3#3').meta).toMatchObject({ dia_id: 'D1:3' });
  });

  it('skips and reports malformed turns without losing the rest', async () => {
    const sample = conv26Conversation();
    const s1 = sample.conversation.session_1 as Record<string, unknown>[];
    delete (s1[2] as Record<string, unknown>).text; // D1:3: missing text
    (s1[3] as Record<string, unknown>).text = 42; // D1:4: non-string text
    (s1[5] as Record<string, unknown>).text = '   '; // D1:6: empty text
    s1[6] = 'not a turn' as unknown as Record<string, unknown>; // D1:7
    const result = parseImport([sample], 'locomo');
    expect(result.turns).toHaveLength(parsed.turns.length - 4);
    expect(result.turns.map((t) => t.sourceId)).not.toContain('D1:3');
    expect(find(result, 'D1:5').occurredAt).toBe(find(parsed, 'D1:5').occurredAt);
    expect(result.skipped.map((s) => s.where)).toEqual([
      'conv-26/session_1[2]',
      'conv-26/session_1[3]',
      'conv-26/session_1[5]',
      'conv-26/session_1[6]',
    ]);
    expect(result.skipped[0]?.reason).toMatch(/missing text/);
    expect(result.skipped[1]?.reason).toMatch(/text is not a string/);
    expect(result.skipped[2]?.reason).toMatch(/text is empty/);
  });

  it('rejects an unparseable session date, naming the session', async () => {
    const sample = conv26Conversation();
    sample.conversation.session_2_date_time = 'sometime in May';
    const error = importFormatError(() => parseImport([sample], 'locomo'));
    expect(error.message).toContain('conv-26/session_2');
    expect(error.details).toMatchObject({ session: 'conv-26/session_2' });

    const missing = conv26Conversation();
    delete missing.conversation.session_3_date_time;
    expect(importFormatError(() => parseImport([missing], 'locomo')).message).toContain(
      'conv-26/session_3',
    );
  });

  it('rejects input that is not LoCoMo', async () => {
    importFormatError(() => parseImport(lme('44_d6233ab6'), 'locomo'));
    importFormatError(() => parseImport([lme('44_d6233ab6')], 'locomo'));
    importFormatError(() => parseImport([{ sample_id: 'x' }], 'locomo')); // no conversation
    importFormatError(() =>
      parseImport([{ sample_id: 'x', conversation: { session_1: 'hi' } }], 'locomo'),
    );
    importFormatError(() => parseImport([conv26Conversation(), conv26Conversation()], 'locomo')); // same id twice
    for (const bad of [null, 'text', 42, []]) importFormatError(() => parseImport(bad, 'locomo'));
  });
});

describe('parseImport: LongMemEval', () => {
  const question = lme('44_d6233ab6');
  const parsed = parseImport(question, 'longmemeval');

  it('imports one turn per entry of every haystack session', async () => {
    const expected = question.haystack_sessions.reduce((sum, s) => sum + s.length, 0);
    expect(expected).toBeGreaterThan(0);
    expect(parsed.format).toBe('longmemeval');
    expect(parsed.docs).toEqual(['longmemeval']);
    expect(parsed.turns).toHaveLength(expected);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.turns.every((t) => t.sourceDoc === 'longmemeval')).toBe(true);
  });

  it('names turns <session_id>#<turnIndex> and maps roles', async () => {
    let k = 0;
    question.haystack_sessions.forEach((session, s) => {
      const sessionId = question.haystack_session_ids[s] as string;
      session.forEach((rawTurn, i) => {
        const turn = parsed.turns[k++] as ImportedTurn;
        expect(turn.sourceId).toBe(`${sessionId}#${i}`);
        expect(turn.sessionKey).toBe(sessionId);
        expect(turn.speaker).toBe(rawTurn.role);
        expect(turn.role).toBe(rawTurn.role === 'user' ? 'owner' : 'assistant');
        expect(turn.text).toBe(rawTurn.content);
      });
    });
    expect(new Set(parsed.turns.map((t) => t.role))).toEqual(new Set(['owner', 'assistant']));
  });

  it('keeps has_answer in meta', async () => {
    const rawTurns = question.haystack_sessions.flat();
    const withTrue = rawTurns.filter((t) => t.has_answer === true).length;
    const withFlag = rawTurns.filter((t) => typeof t.has_answer === 'boolean').length;
    expect(withTrue).toBeGreaterThan(0);
    expect(parsed.turns.filter((t) => t.meta?.has_answer === true)).toHaveLength(withTrue);
    expect(parsed.turns.filter((t) => t.meta !== undefined)).toHaveLength(withFlag);
  });

  it('dates each session from haystack_dates, turns strictly ordered', async () => {
    question.haystack_session_ids.forEach((sessionId, s) => {
      const first = parsed.turns.find((t) => t.sourceId === `${sessionId}#0`);
      expect(first?.occurredAt).toBe(parseLongMemEvalDate(question.haystack_dates[s] as string));
    });
    // 44_d6233ab6's first session: "2023/05/20 (Sat) 02:31"
    expect(question.haystack_dates[0]).toBe('2023/05/20 (Sat) 02:31');
    expect(parsed.turns[0]?.occurredAt).toBe(Date.parse('2023-05-20T02:31:00Z'));
    expectStrictlyOrderedWithinSessions(parsed);
  });

  it('accepts an array of two questions', async () => {
    const other = lme('50_6f9b354f');
    const shared = question.haystack_session_ids.filter((id) =>
      other.haystack_session_ids.includes(id),
    );
    expect(shared).toEqual([]); // these two share no haystack session
    const both = parseImport([question, other], 'longmemeval');
    const count = (q: LmeQuestion) => q.haystack_sessions.reduce((sum, s) => sum + s.length, 0);
    expect(both.docs).toEqual(['longmemeval']);
    expect(both.turns).toHaveLength(count(question) + count(other));
    expect(both.turns.at(-1)?.sessionKey).toBe(other.haystack_session_ids.at(-1));
    expect(both.skipped).toEqual([]);
  });

  it('imports a haystack session shared by two questions once and reports the copy', async () => {
    const a = lme('49_95228167');
    const b = lme('51_65240037');
    const shared = a.haystack_session_ids.filter((id) => b.haystack_session_ids.includes(id));
    expect(shared).toEqual(['f75238a5_2']);
    const sharedLength =
      a.haystack_sessions[a.haystack_session_ids.indexOf('f75238a5_2')]?.length ?? 0;
    const both = parseImport([a, b], 'longmemeval');
    const count = (q: LmeQuestion) => q.haystack_sessions.reduce((sum, s) => sum + s.length, 0);
    expect(both.turns).toHaveLength(count(a) + count(b) - sharedLength);
    expect(new Set(both.turns.map((t) => t.sourceId)).size).toBe(both.turns.length);
    expect(both.skipped).toEqual([
      {
        reason: 'duplicate session id, already imported from question 95228167',
        where: '65240037/f75238a5_2',
      },
    ]);
  });

  it('skips and reports a turn with missing content or an unknown role', async () => {
    const q = lme('44_d6233ab6');
    const first = q.haystack_sessions[0] as LmeTurn[];
    delete (first[1] as Partial<LmeTurn>).content;
    (first[2] as LmeTurn).role = 'system';
    const result = parseImport(q, 'longmemeval');
    expect(result.turns).toHaveLength(parsed.turns.length - 2);
    const sid = q.haystack_session_ids[0] as string;
    expect(result.skipped).toEqual([
      { reason: 'content: missing content', where: `${q.question_id}/${sid}[1]` },
      { reason: 'role: role is not "user" or "assistant"', where: `${q.question_id}/${sid}[2]` },
    ]);
    // Indexes stay those of the source, so ids of later turns do not shift.
    expect(result.turns.find((t) => t.sourceId === `${sid}#3`)?.text).toBe(
      (first[3] as LmeTurn).content,
    );
  });

  it('rejects an unparseable haystack date, naming the session', async () => {
    const q = lme('44_d6233ab6');
    q.haystack_dates[3] = 'yesterday';
    const error = importFormatError(() => parseImport(q, 'longmemeval'));
    expect(error.message).toContain(q.haystack_session_ids[3]);
    expect(error.details).toMatchObject({ session: q.haystack_session_ids[3] });
  });

  it('rejects input that is not LongMemEval', async () => {
    importFormatError(() => parseImport(conv26(), 'longmemeval'));
    importFormatError(() => parseImport(conv26Conversation(), 'longmemeval'));
    const short = lme('44_d6233ab6');
    short.haystack_dates.pop(); // lengths disagree
    importFormatError(() => parseImport(short, 'longmemeval'));
    for (const bad of [null, 'text', 42, []])
      importFormatError(() => parseImport(bad, 'longmemeval'));
  });

  it('rejects an unknown format name', async () => {
    importFormatError(() => parseImport(question, 'csv' as never));
  });
});
