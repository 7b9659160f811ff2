// A purge made in chat reaches keel's backups as the CLI's does: the slash commands a door runs
// (`/purge … --yes`, `/forget <id> --purge --yes`) go through the store `openStore` opened, which
// rewrites every backup in $KEEL_HOME/backups. So the backup made before the purge, restored into
// a new home that has no purge ledger, brings the value back nowhere, while a control in the same
// backup comes back whole.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { OfflineSession } from '@keel/agent';
import { MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { runSlashCommand } from '@keel/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { backupsPath } from './backups.js';
import { loadConfig } from './config.js';
import { openStore } from './open.js';
import { purgeLedgerPath } from './purge-ledger.js';
import { backupHome, restoreHome } from './restore.js';

const VALUE = 'Begoña Ibarrola';
const CONTROL = 'Lucía Montserrat';

const dirs: string[] = [];
const open: MemoryStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) if (!s.closed) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keel-purge-doors-'));
  dirs.push(dir);
  return dir;
}

/**
 * A home whose store (opened as every door opens it) holds the value and the control, each said to
 * the offline terminal: a belief, the owner's turns and keel's replies.
 */
async function seeded() {
  const config = loadConfig({ KEEL_HOME: join(tempDir(), 'home') });
  const store = openStore(config);
  open.push(store);
  const terminal = new OfflineSession(store, { channel: 'terminal' });
  await terminal.handle(`remember that my sister is ${VALUE}`);
  await terminal.handle(`remember that my cousin is ${CONTROL}`);
  await terminal.handle(`${VALUE} and ${CONTROL} visit on Sunday`);
  return { config, store, terminal };
}

/** Where a word is found in the database at `path`: beliefs, turns, their indexes, recall. */
async function found(path: string, word: string) {
  const s = MemoryStore.open(path, { readonly: true });
  try {
    const db = dbOf(s);
    const n = (sql: string, arg: string) => (db.prepare(sql).get(arg) as { n: number }).n;
    const recall = await s.recall(word, { limit: 20 });
    return {
      facts: n("SELECT count(*) AS n FROM facts WHERE value || ' ' || key LIKE ?", `%${word}%`),
      episodes: n('SELECT count(*) AS n FROM episodes WHERE text LIKE ?', `%${word}%`),
      episodes_fts: n('SELECT count(*) AS n FROM episodes_fts WHERE episodes_fts MATCH ?', word),
      facts_fts: n('SELECT count(*) AS n FROM facts_fts WHERE facts_fts MATCH ?', word),
      recall: recall.results.filter((r) => JSON.stringify(r).includes(word)).length,
      mentions: s.findMentions(word).total,
      bytes: readFileSync(path).includes(word) ? 1 : 0,
    };
  } finally {
    s.close();
  }
}
const nowhere = {
  facts: 0,
  episodes: 0,
  episodes_fts: 0,
  facts_fts: 0,
  recall: 0,
  mentions: 0,
  bytes: 0,
};

/** Restores `backup` into a KEEL_HOME that does not exist yet (so it has no purge ledger). */
async function restoreIntoNewHome(backup: string) {
  const fresh = loadConfig({ KEEL_HOME: join(tempDir(), 'new-home') });
  const r = await restoreHome(fresh, backup);
  // Nothing but the rewritten backup can keep the value out: the new home has no ledger.
  expect(r.purges).toMatchObject({ entries: 0, found: 0, reached: 0 });
  expect(() => readFileSync(purgeLedgerPath(fresh.home))).toThrow(/ENOENT/);
  return fresh;
}

describe('a purge in chat reaches the backups', () => {
  it('/purge --yes in the terminal rewrites the backup made before it; restored into a new home, the value is nowhere and the control whole', async () => {
    const { config, store, terminal } = await seeded();
    const backup = await backupHome(config);
    for (const [k, v] of Object.entries(await found(backup.path, 'Ibarrola'))) {
      expect(v, k).toBeGreaterThan(0);
    }
    const listed = await terminal.handle('/purge Begona Ibarrola');
    expect(listed.text).toContain('To erase all of it: /purge Begona Ibarrola --yes');
    expect(readFileSync(backup.path).includes('Ibarrola')).toBe(true); // nothing erased yet

    const done = await terminal.handle('/purge Begona Ibarrola --yes');
    expect(done.error).toBeUndefined();
    expect(done.text).toMatch(/^Purged \d+ row/);
    expect(done.text).toContain('Backups: 1 rewritten without it.');
    expect(await found(backup.path, 'Ibarrola')).toEqual(nowhere);
    store.close();

    const fresh = await restoreIntoNewHome(backup.path);
    for (const word of ['Ibarrola', 'Begoña', 'Begona']) {
      expect(await found(fresh.paths.db, word), word).toEqual(nowhere);
    }
    // Control: what the same backup held and nobody purged is back, found every way.
    for (const [k, v] of Object.entries(await found(fresh.paths.db, 'Montserrat'))) {
      expect(v, k).toBeGreaterThan(0);
    }
    const restored = MemoryStore.open(fresh.paths.db);
    try {
      expect(restored.current({ scope: 'owner', kind: 'relationship', key: 'cousin' })?.value).toBe(
        CONTROL,
      );
      expect(restored.current({ scope: 'owner', kind: 'relationship', key: 'sister' })).toBe(
        undefined,
      );
      expect(restored.verify().ok).toBe(true);
    } finally {
      restored.close();
    }
  });

  it('/forget <id> --purge --yes (as Discord runs it) reaches every backup, and names one it cannot reach with why', async () => {
    const { config, store } = await seeded();
    const sister = store.current({ scope: 'owner', kind: 'relationship', key: 'sister' })!;
    mkdirSync(backupsPath(config.home), { recursive: true });
    const first = await backupHome(config, join(backupsPath(config.home), 'keel-a.db'));
    const second = await backupHome(config, join(backupsPath(config.home), 'keel-b.db'));
    // A file that says it is SQLite and is not a database keel can open: named, left as it was.
    const broken = join(backupsPath(config.home), 'keel-c.db');
    const brokenBytes = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 7)]);
    writeFileSync(broken, brokenBytes);
    const ctx = { channel: 'discord', status: () => '' };

    const listed = await runSlashCommand(store, `/forget f${sister.id} --purge`, ctx);
    expect(listed.text).toContain(`To erase all of it: /forget ${sister.id} --purge --yes`);
    const done = await runSlashCommand(store, `/forget f${sister.id} --purge --yes`, ctx);
    expect(done.text).toMatch(new RegExp(`^Forgot and purged f${sister.id}`));
    expect(done.text).toContain('Backups: 2 rewritten without it, 1 not reached.');
    expect(done.text).toMatch(
      new RegExp(`Backup ${broken} not reached: DB_(CORRUPT|OPEN_FAILED) `),
    );
    expect(readFileSync(broken).equals(brokenBytes)).toBe(true);
    for (const b of [first.path, second.path]) {
      expect(await found(b, 'Ibarrola'), b).toEqual(nowhere);
      expect((await found(b, 'Montserrat')).facts, b).toBeGreaterThan(0);
    }
    // Once more: nothing is left to reach, and it says so.
    const again = await runSlashCommand(store, `/forget f${sister.id} --purge --yes`, ctx);
    expect(again.text).toContain('was purged already; nothing stored says it any more.');
    expect(again.text).toContain(
      'Backups: 0 rewritten without it, 2 held none of it, 1 not reached.',
    );

    store.close();
    const fresh = await restoreIntoNewHome(first.path);
    expect(await found(fresh.paths.db, 'Ibarrola')).toEqual(nowhere);
    expect((await found(fresh.paths.db, 'Montserrat')).recall).toBeGreaterThan(0);
  });

  it('two purges at once in one process rewrite the backups one after the other, neither failing', async () => {
    const { config, store } = await seeded();
    const backup = await backupHome(config);
    const [a, b] = await Promise.all([
      runSlashCommand(store, '/purge Begona Ibarrola --yes', {
        channel: 'discord',
        status: () => '',
      }),
      runSlashCommand(store, '/purge Sunday --yes', { channel: 'terminal', status: () => '' }),
    ]);
    for (const r of [a, b]) expect(r.text).not.toContain('not reached');
    expect(await found(backup.path, 'Ibarrola')).toEqual(nowhere);
    expect((await found(backup.path, 'Sunday')).episodes).toBe(0);
    expect((await found(backup.path, 'Montserrat')).facts).toBeGreaterThan(0);
    expect(readdirSync(backupsPath(config.home))).toEqual([basename(backup.path)]);
  });

  it('a store opened on a bare file reaches no backups, and its reply says nothing of them', async () => {
    const dir = tempDir();
    const store = MemoryStore.open(join(dir, 'keel.db'));
    open.push(store);
    store.remember({ kind: 'relationship', key: 'sister', value: VALUE, source: 'owner_stated' });
    expect(await store.reachBackups()).toBeNull();
    const done = await runSlashCommand(store, '/purge Begona Ibarrola --yes', {
      channel: 'terminal',
      status: () => '',
    });
    expect(done.text).toMatch(/^Purged \d+ row/);
    expect(done.text).not.toContain('Backups');
  });
});
