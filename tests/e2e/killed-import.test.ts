import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, keel, keelSpawn, tempHome } from '../support/cli.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

/** A LoCoMo-format file with `copies` renamed copies of conv-26 (real turns, distinct ids). */
function bigLocomo(copies: number): { path: string; turns: number } {
  const [sample] = JSON.parse(readFileSync(join(FIXTURES, 'locomo/conv-26.json'), 'utf8')) as {
    sample_id: string;
    conversation: Record<string, unknown>;
  }[];
  const turns = Object.entries(sample!.conversation)
    .filter(([k, v]) => /^session_\d+$/.test(k) && Array.isArray(v))
    .reduce((n, [, v]) => n + (v as unknown[]).length, 0);
  const data = Array.from({ length: copies }, (_, i) => ({
    ...sample,
    sample_id: `conv-26-copy-${i}`,
  }));
  const path = join(home, 'big-locomo.json');
  writeFileSync(path, JSON.stringify(data));
  return { path, turns: turns * copies };
}

function episodeCount(): number {
  const db = new Database(join(home, 'keel.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM episodes').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('a process killed mid-import', () => {
  it('leaves a consistent store that verify passes, and the import can be rerun', async () => {
    const { path, turns } = bigLocomo(80);
    const child = keelSpawn(home, ['import', path, '--format', 'locomo']);
    // Kill it as soon as the first batch has committed.
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = () => {
        try {
          const db = new Database(join(home, 'keel.db'), { readonly: true, fileMustExist: true });
          const n = (db.prepare('SELECT count(*) AS n FROM episodes').get() as { n: number }).n;
          db.close();
          if (n > 0) {
            child.kill('SIGKILL');
            resolve();
            return;
          }
        } catch {
          // not created or not migrated yet
        }
        if (Date.now() - started > 60_000) reject(new Error('import never started'));
        else setTimeout(poll, 2);
      };
      poll();
    });
    await new Promise((r) => child.once('exit', r));
    const partial = episodeCount();
    expect(partial).toBeGreaterThan(0);
    expect(partial, 'the kill must land mid-import for this test to mean anything').toBeLessThan(
      turns,
    );
    // Whole batches only.
    expect(partial % 1000 === 0 || partial === turns).toBe(true);

    const verify = keel(home, ['verify', '--json']);
    expect(verify.json<{ problems: unknown[] }>().problems).toEqual([]);
    expect(verify.status).toBe(0);

    const rerun = keel(home, ['import', path, '--format', 'locomo', '--json']);
    expect(rerun.status).toBe(0);
    expect(rerun.json()).toMatchObject({ total: turns, added: turns - partial, existing: partial });
    expect(episodeCount()).toBe(turns);
    expect(keel(home, ['verify']).status).toBe(0);
  });
});
