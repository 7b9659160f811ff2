/**
 * `keel why <id>` from the bundled CLI against a real KEEL_HOME: a corrected belief's versions
 * (the former one labelled), each version's evidence (door, time, the words with their controls
 * shown, never obeyed), who changed it; `--json` in its documented shape; a row changed outside
 * keel is named as not explained by the journal; an unknown id fails with NOT_FOUND and its fix.
 */
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

let home: string;
let cleanup: () => void;
const ids: Record<string, number> = {};

beforeAll(() => {
  ({ home, cleanup } = tempHome());
  const store = MemoryStore.open(join(home, 'keel.db'));
  const said = (text: string, channel: string) =>
    store.addEpisode({ kind: 'conversation', channel, role: 'owner', text }).id;
  ids.former = store.remember({
    kind: 'profile',
    key: 'dentist',
    value: 'Dr. Ortiz',
    source: 'owner_stated',
    episodeId: said('my dentist is Dr. Ortiz \u001b[31mnow\u001b[0m', 'discord'),
  }).fact!.id;
  ids.current = store.remember({
    kind: 'profile',
    key: 'dentist',
    value: 'Dr. Park',
    source: 'owner_stated',
    episodeId: said('I switched my dentist to Dr. Park', 'terminal'),
  }).fact!.id;
  store.close();
});
afterAll(() => cleanup());

describe('keel why', () => {
  it('prints the current and former values, their evidence by door, and who changed them', () => {
    const r = keel(home, ['why', `f${ids.former}`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`why keel believes f${ids.former}:`);
    expect(r.stdout).toMatch(
      new RegExp(`^current \\[f${ids.current}\\] profile/dentist: Dr\\. Park`, 'm'),
    );
    expect(r.stdout).toMatch(
      new RegExp(`^former \\[f${ids.former}\\] profile/dentist: Dr\\. Ortiz`, 'm'),
    );
    expect(r.stdout).toMatch(/evidence via discord at \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    expect(r.stdout).toMatch(/evidence via terminal at .*I switched my dentist to Dr\. Park/);
    expect(r.stdout).toContain('owner: replaced the former value');
    // The stored ESC is shown, never sent to the terminal.
    expect(r.stdout).toContain('␛[31mnow');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('--json: the belief, its chain newest first, evidence, changes', () => {
    const r = keel(home, ['why', String(ids.current), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const why = r.json<{
      fact: { id: number };
      chain: { id: number; former: boolean }[];
      evidence: { fact_id: number; episode: { channel: string; text: string } }[];
      changes: { actor: string; op: string; fact_id: number; at: string }[];
      unexplained: number[];
    }>();
    expect(why.fact.id).toBe(ids.current);
    expect(why.chain.map((f) => [f.id, f.former])).toEqual([
      [ids.current, false],
      [ids.former, true],
    ]);
    expect(why.evidence.map((e) => [e.fact_id, e.episode.channel])).toEqual([
      [ids.current, 'terminal'],
      [ids.former, 'discord'],
    ]);
    expect(why.changes.map((c) => [c.op, c.fact_id, c.actor])).toEqual([
      ['create', ids.former, 'owner'],
      ['update', ids.current, 'owner'],
    ]);
    expect(why.unexplained).toEqual([]);
  });

  it('an unknown id fails with NOT_FOUND and its fix (a known one answers: control)', () => {
    const r = keel(home, ['why', 'f99999']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('NOT_FOUND');
    expect(r.stderr).toContain('fix:');
    expect(keel(home, ['why', String(ids.current)]).status).toBe(0);
  });

  it('names a version changed outside keel as not explained by the journal (an untouched one is not)', () => {
    const other = tempHome();
    try {
      const store = MemoryStore.open(join(other.home, 'keel.db'));
      const touched = store.remember({
        kind: 'preference',
        key: 'tea',
        value: 'green tea',
        source: 'inferred',
      }).fact!.id;
      const untouched = store.remember({
        kind: 'preference',
        key: 'juice',
        value: 'orange juice',
        source: 'owner_stated',
      }).fact!.id;
      store.close();
      const db = new Database(join(other.home, 'keel.db'));
      db.prepare(`UPDATE facts SET source = 'owner_stated', confidence = 1.0 WHERE id = ?`).run(
        touched,
      );
      db.close();
      const r = keel(other.home, ['why', String(touched)]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        `not explained by the journal: f${touched} was changed outside keel`,
      );
      const json = keel(other.home, ['why', String(touched), '--json']).json<{
        unexplained: number[];
      }>();
      expect(json.unexplained).toEqual([touched]);
      const clean = keel(other.home, ['why', String(untouched)]);
      expect(clean.stdout).toContain('orange juice');
      expect(clean.stdout).not.toContain('not explained by the journal');
    } finally {
      other.cleanup();
    }
  });
});
