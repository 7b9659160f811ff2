/**
 * `keel beliefs` against a real KEEL_HOME: every current belief without guessing a query, the
 * pending conflict marked, never a superseded, forgotten or rejected row; each filter narrows; the
 * text table and `--json`; `/beliefs` in the terminal answers from the same store function.
 */
import { join } from 'node:path';
import { type Fact, MemoryStore } from '@keel/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

let home: string;
let cleanup: () => void;
const seeded: Record<string, Fact> = {};

beforeAll(() => {
  ({ home, cleanup } = tempHome());
  const store = MemoryStore.open(join(home, 'keel.db'));
  const put = (kind: Fact['kind'], key: string, value: string, source: Fact['source']) =>
    store.remember({ kind, key, value, source }).fact!;
  seeded.paris = put('profile', 'home', 'Paris', 'owner_stated');
  seeded.lyon = put('profile', 'home', 'Lyon', 'owner_stated');
  seeded.coffee = put('preference', 'coffee', 'oat flat white', 'owner_stated');
  seeded.black = put('preference', 'coffee', 'black coffee', 'inferred');
  seeded.tea = put('preference', 'tea', 'green tea', 'observed');
  seeded.employer = put('profile', 'employer', 'Acme', 'imported');
  seeded.gym = put('preference', 'gym', 'McFit', 'owner_stated');
  store.forget(seeded.gym.id, { purge: false });
  seeded.band = put('preference', 'band', 'Paper Owls', 'observed');
  store.reject(seeded.band.id);
  store.close();
});
afterAll(() => cleanup());

interface Listing {
  beliefs: {
    id: number;
    kind: string;
    key: string;
    value: string;
    source: string;
    status: string;
    confidence: number;
    created_at: string;
    conflicts_with_id: number | null;
  }[];
  unexplained: number[];
}

const listing = (...args: string[]) => {
  const r = keel(home, ['beliefs', ...args, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return r.json<Listing>();
};
const ids = (l: Listing) => l.beliefs.map((b) => b.id);

describe('keel beliefs', () => {
  it('lists every current belief by kind and key, the conflict marked; never what was superseded, forgotten or rejected', () => {
    const all = listing();
    expect(ids(all)).toEqual([
      seeded.coffee!.id,
      seeded.black!.id,
      seeded.tea!.id,
      seeded.employer!.id,
      seeded.lyon!.id,
    ]);
    expect(all.unexplained).toEqual([]);
    expect(all.beliefs[1]).toMatchObject({
      status: 'pending',
      conflicts_with_id: seeded.coffee!.id,
    });
    // The superseded slot's current value is listed; the old value, the forgotten and the
    // rejected belief are not.
    for (const gone of [seeded.paris!, seeded.gym!, seeded.band!]) {
      expect(ids(all)).not.toContain(gone.id);
    }
    // Instants print as ISO 8601 with an offset, keys in snake_case.
    expect(all.beliefs[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('each filter narrows, and --sort confidence puts the strongest first', () => {
    expect(ids(listing('--kind', 'profile'))).toEqual([seeded.employer!.id, seeded.lyon!.id]);
    expect(ids(listing('--source', 'owner_stated'))).toEqual([seeded.coffee!.id, seeded.lyon!.id]);
    expect(ids(listing('--source', 'imported'))).toEqual([seeded.employer!.id]);
    expect(ids(listing('--kind', 'preference', '--source', 'observed'))).toEqual([seeded.tea!.id]);
    const strong = listing('--min-confidence', '1');
    expect(ids(strong)).toEqual([seeded.coffee!.id, seeded.lyon!.id]);
    const weak = listing('--max-confidence', '0.9');
    expect(weak.beliefs.length).toBeGreaterThan(0);
    expect(weak.beliefs.every((b) => b.confidence <= 0.9)).toBe(true);
    expect(ids(weak)).not.toContain(seeded.lyon!.id);
    expect(listing('--kind', 'goal').beliefs).toEqual([]);
    const ranked = listing('--sort', 'confidence').beliefs.map((b) => b.confidence);
    expect(ranked).toEqual([...ranked].sort((a, b) => b - a));
    // A filter that is not a kind or a confidence is refused with its fix.
    const bad = keel(home, ['beliefs', '--min-confidence', '2', '--json']);
    expect(bad.status).toBe(2);
    expect(bad.json<{ error: { code: string } }>().error.code).toBe('INVALID_INPUT');
  });

  it('prints a table with confidence, evidence, source and age, and says how many', () => {
    const r = keel(home, ['beliefs']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+CONF\s+EVIDENCE\s+SOURCE\s+LAST SEEN\s+BELIEF$/);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^f${seeded.lyon!.id}\\s+1\\.00\\s+1\\s+owner_stated\\s+\\S+\\s+profile/home: Lyon$`,
        ),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^f${seeded.black!.id}\\s+0\\.\\d\\d\\s+1\\s+inferred .*preference/coffee: black coffee  \\(PENDING: contradicts f${seeded.coffee!.id}\\)$`,
        ),
      ),
    );
    expect(r.stdout).not.toContain('Paris');
    expect(lines.at(-1)).toBe(
      '4 beliefs, 1 pending conflict (keel review; keel confirm <id> or keel reject <id>).',
    );
    // Control: a filter that matches nothing says so.
    expect(keel(home, ['beliefs', '--kind', 'goal']).stdout.trim()).toBe('No belief matches.');
  });

  it('the terminal has it as /beliefs, from the same store function', () => {
    const r = keel(home, ['--json'], '/beliefs profile\n/beliefs nonsense\n');
    expect(r.status, r.stderr).toBe(0);
    const [listed, refused] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { reply: string; error: { code: string } | null });
    expect(listed!.reply).toContain(`[f${seeded.lyon!.id}] profile/home: Lyon (conf 1.00`);
    expect(listed!.reply).toContain('profile/employer: Acme');
    expect(listed!.reply).not.toContain('preference/');
    expect(listed!.reply.split('\n').at(-1)).toBe('2 beliefs.');
    expect(refused!.error).toMatchObject({ code: 'INVALID_INPUT' });
  });
});
