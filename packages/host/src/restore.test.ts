// `keel backup` and `keel restore` on a KEEL_HOME: a verified private copy; a restore that checks
// the backup, waits for nobody, keeps the replaced file and swaps in one rename.

import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { acquireTurnLock, readTurnLockHolder } from '@keel/agent';
import { KeelError, type KeelErrorCode } from '@keel/errors';
import { inspectDatabase, MemoryStore, partialName, temporaryCopyPid } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import lockfile from 'proper-lockfile';
import { afterEach, describe, expect, it } from 'vitest';
import { backupsPath, isBackup, removeStaleCopies } from './backups.js';
import { loadConfig } from './config.js';
import { serviceLockPath } from './lock.js';
import { purgeBackups } from './purge-ledger.js';
import { keepForRecovery } from './recovery.js';
import { backupHome, newestBackup, restoreHome } from './restore.js';

const homes: string[] = [];
afterEach(() => {
  while (homes.length) rmSync(homes.pop()!, { recursive: true, force: true });
});

function setup() {
  const home = mkdtempSync(join(tmpdir(), 'keel-host-restore-'));
  homes.push(home);
  const config = loadConfig({ KEEL_HOME: home });
  const store = MemoryStore.open(config.paths.db);
  for (let i = 0; i < 200; i++) {
    store.remember({
      kind: 'note',
      key: `n${i}`,
      value: `value number ${i} `.repeat(40),
      source: 'owner_stated',
    });
  }
  store.close();
  return { home, config };
}

function damage(path: string): Buffer {
  const bytes = readFileSync(path);
  bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
  writeFileSync(path, bytes);
  return bytes;
}

async function rejects(p: Promise<unknown>, code: KeelErrorCode): Promise<KeelError> {
  try {
    await p;
  } catch (err) {
    if (KeelError.isInstance(err) && err.code === code) return err;
    throw err;
  }
  throw new Error(`expected ${code}`);
}

const facts = (path: string) => {
  const s = MemoryStore.open(path);
  try {
    return s.stats().facts;
  } finally {
    s.close();
  }
};

describe('backupHome', () => {
  it('copies keel.db into $KEEL_HOME/backups/keel-<time>.db, private and verified', async () => {
    const { home, config } = setup();
    const t = Date.UTC(2026, 2, 1, 10, 15, 0);
    const r = await backupHome(config, undefined, () => t);
    expect(r.path).toBe(join(home, 'backups', 'keel-2026-03-01T10-15-00-000Z.db'));
    expect(statSync(r.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'backups')).mode & 0o777).toBe(0o700);
    expect(newestBackup(home)?.path).toBe(r.path);
    expect(facts(r.path)).toBe(200);
  });

  it('a backup killed midway leaves nothing doctor names, and the next backup clears it', async () => {
    const { home, config } = setup();
    const dest = join(home, 'backups', 'keel-killed.db');
    mkdirSync(join(home, 'backups'), { mode: 0o700 });
    // A process that copies the database and is killed (SIGKILL: no cleanup runs) once the copy
    // is on disk, before it was checked.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { backupDatabase } from '@keel/memory';
         await backupDatabase(${JSON.stringify(config.paths.db)}, ${JSON.stringify(dest)}, {
           copied: () => { process.stdout.write('copied\\n'); return new Promise(() => {}); },
         });`,
      ],
      { cwd: import.meta.dirname, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('copied')) done();
      });
      child.on('exit', (code) => fail(new Error(`the copying process ended early (${code})`)));
    });
    const exited = new Promise((done) => child.on('exit', done));
    child.kill('SIGKILL');
    await exited;
    const left = readdirSync(join(home, 'backups'));
    expect(left.some((n) => n.includes('partial'))).toBe(true); // the killed copy's bytes
    expect(left.filter((n) => n.endsWith('.db'))).toEqual([]);
    expect(newestBackup(home)).toBeNull();
    // Control: a backup that completes is named, and what the killed one left is gone.
    const r = await backupHome(config);
    expect(newestBackup(home)?.path).toBe(r.path);
    expect(readdirSync(join(home, 'backups'))).toEqual([basename(r.path)]);
  });

  it('doctor names no empty or cut-off file an older keel left, only a sound backup', async () => {
    const { home, config } = setup();
    const good = await backupHome(config, undefined, () => Date.UTC(2026, 0, 1));
    const empty = join(home, 'backups', 'keel-2026-02-01T00-00-00-000Z.db');
    writeFileSync(empty, '');
    const cut = join(home, 'backups', 'keel-2026-02-02T00-00-00-000Z.db');
    writeFileSync(cut, readFileSync(good.path).subarray(0, 10));
    const later = new Date(Date.now() + 60_000);
    utimesSync(empty, later, later);
    utimesSync(cut, later, later);
    expect(newestBackup(home)?.path).toBe(good.path);
  });

  it('a damaged database makes no backup', async () => {
    const { home, config } = setup();
    damage(config.paths.db);
    await rejects(backupHome(config), 'DB_CORRUPT');
    expect(readdirSync(join(home, 'backups'))).toEqual([]);
  });
});

describe('restoreHome', () => {
  it('puts a backup in place of a damaged file, keeping the damaged file (and its WAL) beside', async () => {
    const { home, config } = setup();
    const backup = await backupHome(config);
    const db = config.paths.db;
    const bytes = damage(db);
    writeFileSync(`${db}-wal`, 'a stale WAL');
    keepForRecovery(home, { channel: 'terminal', text: 'said while damaged' });
    const t = Date.UTC(2026, 2, 2);
    const r = await restoreHome(config, backup.path, { now: () => t });
    const kept = `${db}.damaged-2026-03-02T00-00-00-000Z`;
    expect(r).toMatchObject({
      previous: 'damaged',
      keptAs: kept,
      database: db,
      recoveryLines: 1,
      info: { facts: 200 },
    });
    expect(readFileSync(kept).equals(bytes)).toBe(true);
    expect(readFileSync(`${kept}-wal`, 'utf8')).toBe('a stale WAL');
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(statSync(db).mode & 0o777).toBe(0o600);
    expect(facts(db)).toBe(200);
    expect(readdirSync(home).filter((n) => n.includes('restoring'))).toEqual([]);
  });

  it('restores into a KEEL_HOME that does not exist yet', async () => {
    const { home, config } = setup();
    const backup = await backupHome(config);
    const fresh = join(home, 'elsewhere', 'new-home');
    const target = loadConfig({ KEEL_HOME: fresh });
    expect(existsSync(fresh)).toBe(false);
    const r = await restoreHome(target, backup.path);
    expect(r).toMatchObject({ previous: 'absent', keptAs: null, database: target.paths.db });
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    expect(facts(target.paths.db)).toBe(200);
    expect(
      readdirSync(fresh).filter((n) => n.includes('restoring') || n.includes('partial')),
    ).toEqual([]);
  });

  it('refuses to replace a sound database unless forced, and keeps it then', async () => {
    const { config } = setup();
    const backup = await backupHome(config);
    const before = readFileSync(config.paths.db);
    const err = await rejects(restoreHome(config, backup.path), 'INVALID_STATE');
    expect(err.message).toMatch(/is sound.*--force/);
    expect(readFileSync(config.paths.db).equals(before)).toBe(true);
    const r = await restoreHome(config, backup.path, { force: true });
    expect(r.previous).toBe('sound');
    expect(r.keptAs).toMatch(/keel\.db\.replaced-/);
    expect(readFileSync(r.keptAs!).equals(before)).toBe(true);
  });

  it('refuses a backup that is damaged, not keel, or from a newer schema', async () => {
    const { home, config } = setup();
    const backup = await backupHome(config);
    damage(config.paths.db);
    const db = readFileSync(config.paths.db);

    const junk = join(home, 'junk.db');
    writeFileSync(junk, 'not a database at all, not even close'.repeat(300));
    await rejects(restoreHome(config, junk), 'DB_CORRUPT');
    const broken = join(home, 'broken.db');
    writeFileSync(broken, readFileSync(backup.path));
    damage(broken);
    await rejects(restoreHome(config, broken), 'DB_CORRUPT');
    const future = join(home, 'future.db');
    writeFileSync(future, readFileSync(backup.path));
    const g = MemoryStore.open(future);
    dbOf(g).prepare('INSERT INTO schema_migrations VALUES (999, ?, 0)').run('future');
    g.close();
    await rejects(restoreHome(config, future), 'SCHEMA_FROM_FUTURE');
    await rejects(restoreHome(config, join(home, 'missing.db')), 'FILE_UNREADABLE');
    await rejects(restoreHome(config, config.paths.db), 'INVALID_STATE');
    expect(readFileSync(config.paths.db).equals(db)).toBe(true);
  });

  it('refuses while the think or Discord service runs, or a turn holds the session', async () => {
    const { home, config } = setup();
    const backup = await backupHome(config);
    const bytes = damage(config.paths.db);
    for (const service of ['think', 'discord'] as const) {
      const lock = serviceLockPath(home, service);
      writeFileSync(lock, JSON.stringify({ pid: process.pid, startedAt: Date.now() }));
      const err = await rejects(restoreHome(config, backup.path), 'SERVICE_RUNNING');
      expect(err.message).toContain(`keel ${service} is running (PID ${process.pid})`);
      rmSync(lock);
    }
    const release = lockfile.lockSync(`${config.paths.db}.turn`, { realpath: false });
    try {
      await rejects(restoreHome(config, backup.path), 'SESSION_BUSY');
    } finally {
      release();
    }
    expect(readFileSync(config.paths.db).equals(bytes)).toBe(true);
    // Control: with nobody holding anything it restores.
    expect((await restoreHome(config, backup.path)).previous).toBe('damaged');
  });
});

describe('a restore killed mid-way', () => {
  it('leaves a session lock the next restore and turn take at once: the restore wrote the holder record a turn writes', async () => {
    const { home, config } = setup();
    const backup = await backupHome(config);
    const here = import.meta.dirname;
    // A process that restores and is killed (SIGKILL: no cleanup runs) while it holds the lock.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { loadConfig } from ${JSON.stringify(join(here, 'config.ts'))};
         import { restoreHome } from ${JSON.stringify(join(here, 'restore.ts'))};
         await restoreHome(loadConfig({ KEEL_HOME: ${JSON.stringify(home)} }), ${JSON.stringify(backup.path)}, {
           force: true,
           now: () => {
             process.stdout.write('locked\\n');
             Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
             return 0;
           },
         });`,
      ],
      { cwd: here, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('locked')) done();
      });
      child.on('exit', (code) => fail(new Error(`the restoring process ended early (${code})`)));
    });
    // It holds the lock as a turn would: the record names it.
    expect(readTurnLockHolder(config.paths.db)?.pid).toBe(child.pid);
    const exited = new Promise((done) => child.on('exit', done));
    child.kill('SIGKILL');
    await exited;
    // Within the 30 s a lock without a record would still block, both take it.
    const started = Date.now();
    expect((await restoreHome(config, backup.path, { force: true })).previous).toBe('sound');
    const release = await acquireTurnLock(config.paths.db, { waitMs: 2000 });
    await release();
    expect(Date.now() - started).toBeLessThan(5000);
    // The restore that finished left no record behind.
    expect(readTurnLockHolder(config.paths.db)).toBeNull();
  }, 30_000);

  it('control: a live turn still holds the session against a restore', async () => {
    const { config } = setup();
    const backup = await backupHome(config);
    const release = await acquireTurnLock(config.paths.db);
    try {
      const err = await rejects(restoreHome(config, backup.path, { force: true }), 'SESSION_BUSY');
      expect(err.message).toContain('a turn is in progress');
    } finally {
      await release();
    }
  });
});

describe('a purge reaches the backups; a restore never brings a purged value back', () => {
  const VALUE = 'Begoña Ibarrola';
  const CONTROL = 'Lucía Montserrat';

  /** A home whose store holds the value and the control in beliefs, turns and replies. */
  function seeded() {
    const { home, config } = setup();
    const store = MemoryStore.open(config.paths.db);
    for (const [key, said] of [
      ['friend', VALUE],
      ['colleague', CONTROL],
    ] as const) {
      const ep = store.addEpisode({
        channel: 'terminal',
        role: 'owner',
        text: `my friend ${said} moved to Bilbao`,
      }).id;
      store.addEpisode({ channel: 'terminal', role: 'keel', text: `Noted: ${said} is in Bilbao.` });
      store.remember({
        kind: 'relationship',
        key,
        value: said,
        source: 'owner_stated',
        episodeId: ep,
      });
    }
    store.close();
    return { home, config };
  }

  /** Rows of `path` that still hold `word`: beliefs, episodes, their index, journal payloads. */
  function holding(path: string, word: string): Record<string, number> {
    const s = MemoryStore.open(path, { readonly: true });
    try {
      const db = dbOf(s);
      const n = (sql: string, arg: string) => (db.prepare(sql).get(arg) as { n: number }).n;
      return {
        facts: n("SELECT count(*) AS n FROM facts WHERE value || ' ' || key LIKE ?", `%${word}%`),
        episodes: n('SELECT count(*) AS n FROM episodes WHERE text LIKE ?', `%${word}%`),
        episodes_fts: n('SELECT count(*) AS n FROM episodes_fts WHERE episodes_fts MATCH ?', word),
        facts_fts: n('SELECT count(*) AS n FROM facts_fts WHERE facts_fts MATCH ?', word),
        journal: n('SELECT count(*) AS n FROM journal WHERE payload LIKE ?', `%${word}%`),
        mentions: s.findMentions(word).total,
      };
    } finally {
      s.close();
    }
  }
  const none = { facts: 0, episodes: 0, episodes_fts: 0, facts_fts: 0, journal: 0, mentions: 0 };
  const purge = (config: ReturnType<typeof loadConfig>, text: string) => {
    const s = MemoryStore.open(config.paths.db);
    try {
      return s.purgeMentions(text, { actor: 'owner' });
    } finally {
      s.close();
    }
  };

  it('restoring a backup made before the purge, copied elsewhere, leaves the value absent and the control', async () => {
    const { home, config } = seeded();
    const backup = await backupHome(config);
    // The owner keeps a copy elsewhere, which no purge of this home can rewrite.
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'keel-elsewhere-')), 'copy.db');
    homes.push(dirname(elsewhere));
    copyFileSync(backup.path, elsewhere);
    for (const [k, v] of Object.entries(holding(elsewhere, 'ibarrola')))
      expect(v, k).toBeGreaterThan(0);
    const controlBefore = holding(elsewhere, 'montserrat');

    purge(config, 'begona ibarrola');
    expect(holding(config.paths.db, 'ibarrola')).toEqual(none);
    expect(readFileSync(join(home, 'purged.jsonl'), 'utf8')).not.toMatch(/begon|ibarrola/i);

    const r = await restoreHome(config, elsewhere, { force: true });
    expect(r.purges).toMatchObject({ entries: 1, found: 1, unreadable: 0 });
    expect(r.purges.reached).toBeGreaterThan(0);
    expect(holding(config.paths.db, 'ibarrola')).toEqual(none);
    expect(holding(config.paths.db, 'begona')).toEqual(none);
    expect(holding(config.paths.db, 'montserrat')).toEqual(controlBefore);
    const s = MemoryStore.open(config.paths.db);
    try {
      expect(s.current({ scope: 'owner', kind: 'relationship', key: 'colleague' })?.value).toBe(
        CONTROL,
      );
      expect(s.current({ scope: 'owner', kind: 'relationship', key: 'friend' })).toBeUndefined();
      expect(s.verify().ok).toBe(true);
    } finally {
      s.close();
    }
    // The copy elsewhere is the owner's: untouched.
    expect(holding(elsewhere, 'ibarrola').episodes).toBeGreaterThan(0);
    expect(
      readdirSync(home).filter(
        (n) => /restoring|partial/.test(n) || /^keel\.db-(wal|shm)$/.test(n),
      ),
    ).toEqual([]);
  });

  it('a purge rewrites the backups in $KEEL_HOME/backups that hold the value, and only those', async () => {
    const { home, config } = seeded();
    const before = await backupHome(config, undefined, () => Date.UTC(2026, 0, 1));
    const other = join(home, 'backups', 'keel-2026-01-02T00-00-00-000Z.db');
    const s = MemoryStore.open(config.paths.db);
    s.purgeMentions('Zubiarrain', { actor: 'owner' }); // a value no backup holds
    s.close();
    await backupHome(config, other);
    const otherBytes = readFileSync(other);
    purge(config, VALUE);
    // Made after the purge: holds nothing of it, and must be left byte for byte.
    const after = await backupHome(
      config,
      join(home, 'backups', 'keel-2026-01-03T00-00-00-000Z.db'),
    );
    const afterBytes = readFileSync(after.path);
    const reach = await purgeBackups(home, backupsPath(home));
    expect(reach.map((b) => b.path)).toEqual([before.path, other, after.path]);
    for (const b of reach) {
      expect(b.error).toBeNull();
      expect(existsSync(`${b.path}-wal`)).toBe(false);
      expect(holding(b.path, 'ibarrola')).toEqual(none);
      expect(holding(b.path, 'montserrat').facts).toBeGreaterThan(0);
      expect(inspectDatabase(b.path).facts).toBeGreaterThan(0);
      expect(statSync(b.path).mode & 0o777).toBe(0o600);
    }
    expect(reach.map((b) => b.reached > 0)).toEqual([true, true, false]);
    expect(readFileSync(other).equals(otherBytes)).toBe(false);
    expect(readFileSync(after.path).equals(afterBytes)).toBe(true);
    // Run again: nothing left to reach, and the files are left as they are.
    const bytes = readFileSync(before.path);
    const again = await purgeBackups(home, backupsPath(home));
    expect(again.map((b) => b.reached)).toEqual([0, 0, 0]);
    expect(readFileSync(before.path).equals(bytes)).toBe(true);
    expect(readdirSync(backupsPath(home)).filter((n) => !n.endsWith('.db'))).toEqual([]);
    expect(newestBackup(home)?.path).toBe(after.path);
  });

  it('what the owner said again after a purge survives the purge of the backups and a restore', async () => {
    const { home, config } = seeded();
    const before = await backupHome(config, undefined, () => Date.UTC(2026, 0, 1));
    const s = MemoryStore.open(config.paths.db);
    const friend = { scope: 'owner', kind: 'relationship', key: 'friend' } as const;
    s.forget(s.current(friend)!.id, { purge: true });
    // The owner says it again: their word is the one way back.
    const ep = s.addEpisode({ channel: 'terminal', role: 'owner', text: `my friend is ${VALUE}` });
    s.remember({ ...friend, value: VALUE, source: 'owner_stated', episodeId: ep.id });
    expect(s.current(friend)?.value).toBe(VALUE);
    s.close();
    const after = await backupHome(
      config,
      join(home, 'backups', 'keel-2026-01-03T00-00-00-000Z.db'),
    );
    purge(config, CONTROL); // a later purge of something else carries the ledger to the backups
    const reach = await purgeBackups(home, backupsPath(home));
    expect(reach.map((b) => b.path)).toEqual([before.path, after.path]);
    // The backup made before the purge gives the value up; the one made after it was said again
    // keeps it (and loses the control, purged since).
    expect(holding(before.path, 'ibarrola')).toEqual(none);
    expect(holding(after.path, 'ibarrola').facts).toBeGreaterThan(0);
    expect(holding(after.path, 'montserrat')).toEqual(none);
    const r = await restoreHome(config, after.path, { force: true });
    expect(r.purges.entries).toBe(2);
    const restored = MemoryStore.open(config.paths.db);
    try {
      expect(restored.current(friend)?.value).toBe(VALUE);
      expect(restored.findMentions(CONTROL).total).toBe(0);
      expect(restored.verify().ok).toBe(true);
    } finally {
      restored.close();
    }
  });
});

describe('what a killed backup, restore or purge of the backups leaves', () => {
  /**
   * Starts a process that copies `source` to `dest` as keel copies (`backupDatabase`, under the
   * hidden temporary name) and stops once the bytes are on disk, before the check: kill it there
   * and it leaves what a killed backup or restore leaves. With `partial`, the copy is made to
   * `partialName(dest)` of that process, as a restore makes its incoming copy of the backup.
   */
  async function copying(source: string, dest: string, options: { partial?: boolean } = {}) {
    const target = options.partial ? `partialName(${JSON.stringify(dest)})` : JSON.stringify(dest);
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { backupDatabase, partialName } from '@keel/memory';
         await backupDatabase(${JSON.stringify(source)}, ${target}, {
           copied: () => { process.stdout.write('copied\\n'); return new Promise(() => {}); },
         });`,
      ],
      { cwd: import.meta.dirname, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('copied')) done();
      });
      child.on('exit', (code) => fail(new Error(`the copying process ended early (${code})`)));
    });
    return {
      pid: child.pid!,
      kill: async () => {
        const exited = new Promise((done) => child.on('exit', done));
        child.kill('SIGKILL');
        await exited;
      },
    };
  }

  const temporary = (dir: string) => readdirSync(dir).filter((n) => temporaryCopyPid(n) !== null);

  it('a restore killed midway leaves hidden copies beside keel.db: never a backup, left to a live writer, removed by the next restore', async () => {
    const { home, config } = setup();
    const real = await backupHome(config, undefined, () => Date.UTC(2026, 0, 1));
    const db = config.paths.db;
    // A restore copies the backup to `partialName(keel.db)` (itself written under a temporary
    // name first); this one stops there.
    const restoring = await copying(real.path, db, { partial: true });
    expect(temporary(home).length).toBeGreaterThan(0);
    // Its writer runs: nothing takes the copy from it.
    expect(removeStaleCopies(home)).toEqual([]);
    await restoring.kill();
    const dead = restoring.pid;
    // What a restore killed later leaves: its verified copy with the anchor and WAL of the purge
    // ledger's application beside it; and an older keel's `keel.db.restoring-<pid>`.
    const incoming = partialName(db, dead);
    copyFileSync(real.path, incoming);
    writeFileSync(`${incoming}.anchor`, '{}\n');
    writeFileSync(`${incoming}-wal`, '');
    copyFileSync(real.path, `${db}.restoring-${dead}`);
    const leftover = temporary(home);
    expect(leftover.length).toBeGreaterThanOrEqual(4);

    // None of it is taken for a backup; doctor names the real one.
    expect(newestBackup(home)?.path).toBe(real.path);
    // The next restore removes it all, and restores.
    const r = await restoreHome(config, real.path, { force: true });
    expect(r.previous).toBe('sound');
    expect(temporary(home)).toEqual([]);
    expect(readdirSync(home).filter((n) => /partial|restoring/.test(n))).toEqual([]);
    expect(facts(db)).toBe(200);
  });

  it('what a killed backup or purge of the backups leaves is never listed, named or rewritten, and the next backup or purge removes it; a real backup beside it is', async () => {
    const { home, config } = setup();
    const dir = backupsPath(home);
    const real = await backupHome(config, undefined, () => Date.UTC(2026, 0, 1));
    // A backup killed once its bytes were on disk.
    const backup = await copying(config.paths.db, join(dir, 'keel-2026-01-02T00-00-00-000Z.db'));
    await backup.kill();
    // A purge of the backups killed once its copy of the real backup took the purge: the copy,
    // its anchor and its WAL, and the copy's own temporary name.
    const rewrite = partialName(real.path, backup.pid);
    copyFileSync(real.path, rewrite);
    writeFileSync(`${rewrite}.anchor`, '{}\n');
    writeFileSync(`${rewrite}-wal`, '');
    copyFileSync(real.path, partialName(rewrite, backup.pid));
    // Each newer than the real backup, and every one a SQLite file.
    const later = new Date(Date.now() + 60_000);
    for (const n of temporary(dir)) utimesSync(join(dir, n), later, later);
    expect(temporary(dir).length).toBeGreaterThanOrEqual(5);
    expect(readdirSync(dir).filter((n) => isBackup(dir, n))).toEqual([basename(real.path)]);

    // doctor names the real backup; a purge rewrites and lists it alone, and clears the rest.
    expect(newestBackup(home)?.path).toBe(real.path);
    const s = MemoryStore.open(config.paths.db);
    s.purgeMentions('value number 7', { actor: 'owner' });
    s.close();
    const reach = await purgeBackups(home, dir);
    expect(reach.map((b) => b.path)).toEqual([real.path]);
    expect(reach[0]).toMatchObject({ error: null });
    expect(reach[0]!.reached).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([basename(real.path)]);

    // The same leftovers again: the next backup clears them too, and is named.
    copyFileSync(real.path, rewrite);
    writeFileSync(`${rewrite}.anchor`, '{}\n');
    const next = await backupHome(config, undefined, () => Date.UTC(2026, 0, 3));
    expect(readdirSync(dir).sort()).toEqual([basename(real.path), basename(next.path)].sort());
    expect(newestBackup(home)?.path).toBe(next.path);
  });
});
