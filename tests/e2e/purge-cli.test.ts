// `keel purge <text>` on the built CLI against a real home: it lists every stored mention (found
// by an unaccented spelling), erases nothing without an answer, and with --yes erases every
// mention while a control stays; recall then finds nothing of it and a model-less write of it is
// refused while the owner's own word brings it back.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

interface PurgeJson {
  erased: boolean;
  found: {
    total: number;
    places: Record<string, number>;
    mentions: { place: string; excerpt: string }[];
  };
  receipt: {
    total: number;
    reached: Record<string, { count: number; ids: number[] }>;
    retracted: number[];
  };
}

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

describe('keel purge', () => {
  it('lists, asks for --yes, then erases every mention; the control survives', () => {
    keel(home, ['remember', 'relationship/boss', 'Conceição', 'Albuquerque']);
    keel(home, [
      'remember',
      'note/meeting',
      'Conceição',
      'moved',
      'the',
      'meeting',
      'to',
      'Friday',
    ]);
    keel(home, ['remember', 'profile/office', 'Vila', 'Madalena']);

    // --json without --yes: the list in the error, nothing erased, exit 2.
    const asked = keel(home, ['purge', 'conceicao', '--json']);
    expect(asked.status).toBe(2);
    expect(asked.stderr).toContain('error CONFIRMATION_REQUIRED');
    expect(asked.stderr).toContain('--yes');
    const error = JSON.parse(asked.stdout.trim()) as {
      error: { code: string; details: { total: number; beliefs: { key: string }[] } };
    };
    expect(error.error.code).toBe('CONFIRMATION_REQUIRED');
    expect(error.error.details.total).toBeGreaterThanOrEqual(2);
    expect(error.error.details.beliefs.map((b) => b.key).sort()).toEqual(['boss', 'meeting']);
    // Piped without --json: the list on stdout, the same refusal.
    const piped = keel(home, ['purge', 'conceicao']);
    expect(piped.status).toBe(2);
    expect(piped.stdout).toContain('Conceição');
    expect(keel(home, ['recall', 'Conceição', '--json']).stdout).toContain('Conceição');

    const done = keel(home, ['purge', 'conceicao', '--yes', '--json']);
    expect(done.status, done.stderr).toBe(0);
    const r = done.json<PurgeJson>();
    expect(r.erased).toBe(true);
    expect(r.receipt.reached.facts?.count).toBe(2);
    expect(r.receipt.reached.episodes?.count).toBeGreaterThanOrEqual(2);
    expect(r.receipt.retracted).toHaveLength(2);

    const recall = keel(home, ['recall', 'Conceição', '--json']).json<{ results: unknown[] }>();
    expect(JSON.stringify(recall.results)).not.toMatch(/concei/i);
    expect(keel(home, ['recall', 'Vila Madalena', '--json']).stdout).toContain('Vila Madalena');
    // Not a byte of it left in the database file; the control is there.
    keel(home, ['verify']);
    const bytes = readFileSync(join(home, 'keel.db'));
    expect(bytes.includes('Concei')).toBe(false);
    expect(bytes.includes('Madalena')).toBe(true);
    expect(keel(home, ['verify']).status).toBe(0);

    // A non-owner write of it is refused; the owner's own word brings it back.
    const model = keel(home, [
      'remember',
      'relationship/manager',
      'Conceicao',
      '--source',
      'inferred',
      '--json',
    ]).json<{ decision: string }>();
    expect(model.decision).toBe('ignore');
    const owner = keel(home, ['remember', 'relationship/manager', 'Conceição', '--json']).json<{
      decision: string;
    }>();
    expect(owner.decision).toBe('create');
  });
});
