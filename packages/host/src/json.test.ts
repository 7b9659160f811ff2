import { describe, expect, it } from 'vitest';
import {
  contractProblems,
  formatJson,
  ISO_TIME,
  isoTime,
  isTimeField,
  snakeKey,
  toJsonContract,
} from './json.js';

const T = Date.parse('2026-12-01T22:30:00.000Z');

describe('the --json contract', () => {
  it('makes lowerCamel keys snake_case at every depth and leaves snake_case keys alone', () => {
    expect(
      toJsonContract({ runId: 1, night: { summaryEpisode: 2, deep: [{ fileSha256: 'x' }] } }),
    ).toEqual({ run_id: 1, night: { summary_episode: 2, deep: [{ file_sha256: 'x' }] } });
    expect(snakeKey('evidence_count')).toBe('evidence_count');
    expect(snakeKey('schemaVersion')).toBe('schema_version');
  });

  it('writes epoch milliseconds in a time field, and any Date, as ISO 8601 with Z', () => {
    expect(
      toJsonContract({
        created_at: T,
        lastSeenAt: T,
        valid_from: null,
        valid_to: T,
        since: new Date(T),
        other: new Date(T),
        at: T,
      }),
    ).toEqual({
      created_at: '2026-12-01T22:30:00.000Z',
      last_seen_at: '2026-12-01T22:30:00.000Z',
      valid_from: null,
      valid_to: '2026-12-01T22:30:00.000Z',
      since: '2026-12-01T22:30:00.000Z',
      other: '2026-12-01T22:30:00.000Z',
      at: '2026-12-01T22:30:00.000Z',
    });
    // A duration or a count is a number whatever it is called, unless it is named as an instant.
    expect(toJsonContract({ copy_ms: 22, age_ms: T, episodes: 3 })).toEqual({
      copy_ms: 22,
      age_ms: T,
      episodes: 3,
    });
  });

  it('names time fields: at, *_at, since, until, valid_from, valid_to', () => {
    for (const k of [
      'at',
      'created_at',
      'requested_at',
      'since',
      'until',
      'valid_from',
      'valid_to',
    ])
      expect(isTimeField(k), k).toBe(true);
    for (const k of ['night', 'week', 'age_ms', 'copy_ms', 'format', 'data']) {
      expect(isTimeField(k), k).toBe(false);
    }
  });

  it('accepts ISO instants with Z or an offset, and nothing without one', () => {
    expect(ISO_TIME.test('2026-12-01T22:30:00.000Z')).toBe(true);
    expect(ISO_TIME.test('2026-12-01T22:30:00.000+00:00')).toBe(true);
    expect(ISO_TIME.test('2026-12-01T23:30:00+01:00')).toBe(true);
    expect(ISO_TIME.test('2026-12-01T22:30:00.000')).toBe(false);
    expect(ISO_TIME.test('2026-12-01')).toBe(false);
    expect(isoTime(null)).toBeNull();
    expect(isoTime(Number.NaN)).toBeNull();
  });

  it('finds what it cannot fix: keys that are not snake_case, text in a time field', () => {
    expect(contractProblems({ ok: { fine_key: 1, list: [{ created_at: T }] } })).toEqual([
      '$.ok.list[0].created_at is a time field but holds 1796164200000, not an ISO instant',
    ]);
    expect(
      contractProblems(toJsonContract({ KEEL_HOME: '/x', 'a-b': 1, last_night_at: '2026-11-30' })),
    ).toEqual([
      '$.KEEL_HOME: the key is not snake_case',
      '$.a-b: the key is not snake_case',
      '$.last_night_at is a time field but holds "2026-11-30", not an ISO instant',
    ]);
  });

  it('formatJson prints one line (or indented) and throws on what breaks the contract', () => {
    expect(formatJson({ runId: 1, at: T })).toBe('{"run_id":1,"at":"2026-12-01T22:30:00.000Z"}');
    expect(formatJson({ a: 1 }, { pretty: true })).toBe('{\n  "a": 1\n}');
    expect(() => formatJson({ curate_at: 'three' })).toThrow(/curate_at is a time field/);
    expect(() => formatJson({ Settings: {} })).toThrow(/not snake_case/);
  });
});
