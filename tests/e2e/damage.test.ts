// A damaged database stops writes and loses no line: every verb that writes and every front door
// checks the file before writing (DB_CORRUPT with the fix, the file's bytes unchanged), the owner's
// words go to the recovery file meanwhile, and keel backup / keel restore / keel recover bring them
// back as episodes. The database is a real file with data pages overwritten.

import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, FIXTURES, keel, tempHome } from '../support/cli.js';

let home: string;
let cleanup: () => void;
let db: string;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
  db = join(home, 'keel.db');
  const store = MemoryStore.open(db);
  for (let i = 0; i < 200; i++) {
    store.remember({
      kind: 'note',
      key: `n${i}`,
      value: `value number ${i} `.repeat(40),
      source: 'owner_stated',
    });
  }
  store.close();
});
afterEach(() => cleanup());

/** Overwrites 16 KB of data pages in the middle of the file; returns the damaged bytes. */
function damage(path = db): Buffer {
  const bytes = readFileSync(path);
  bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
  writeFileSync(path, bytes);
  return bytes;
}

interface Kept {
  id: string;
  time: string;
  channel: string;
  text: string;
  source_id?: string;
}
const recoveryFile = () => join(home, 'recovery.jsonl');
const kept = (): Kept[] =>
  existsSync(recoveryFile())
    ? readFileSync(recoveryFile(), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Kept)
    : [];

/** Every verb that writes, as the owner would type it. */
const WRITE_VERBS: [string, string[]][] = [
  ['remember', ['remember', 'preference/coffee', 'oat', 'flat', 'white']],
  ['forget', ['forget', '3']],
  ['forget --purge', ['forget', '5', '--purge', '--yes']],
  ['keep', ['keep', '3']],
  ['confirm', ['confirm', '3']],
  ['reject', ['reject', '4']],
  ['recall (bumps access counts)', ['recall', 'value', 'number']],
  ['import', ['import', join(FIXTURES, 'locomo/conv-26.json'), '--format', 'locomo']],
  ['ask (offline)', ['ask', 'what', 'coffee', 'do', 'I', 'like?']],
];

describe('a damaged database stops every write', () => {
  it('control: on the intact file the same verbs write (the bytes change)', () => {
    const before = readFileSync(db);
    const r = keel(home, ['remember', 'preference/coffee', 'oat', 'flat', 'white', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(db).equals(before)).toBe(false);
    // A damaged copy of a file that a verb misses would have been written to without the check:
    // the import alone added 246 turns to such a file before.
  });

  it.each(WRITE_VERBS)('%s: exit 2, DB_CORRUPT with the fix, the file unchanged', (_name, args) => {
    const bytes = damage();
    const r = keel(home, args);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(
      /^error DB_CORRUPT: .*keel\.db is damaged \(.+\); keel wrote nothing/m,
    );
    expect(r.stderr).toMatch(/^fix: .*keel restore <file>.*keel backup.*keel recover/m);
    expect(readFileSync(db).equals(bytes)).toBe(true);
    expect(existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0).toBe(0);
    const json = keel(home, [...args, '--json']);
    expect(json.status).toBe(2);
    expect(json.json<{ error: { code: string } }>().error.code).toBe('DB_CORRUPT');
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });

  it('remember and ask keep the owner words in the recovery file (0600) and say where', () => {
    const bytes = damage();
    const remember = keel(home, ['remember', 'preference/coffee', 'oat', 'flat', 'white']);
    const ask = keel(home, ['ask', 'what', 'coffee', 'do', 'I', 'like?', '--json']);
    expect(remember.status).toBe(2);
    expect(remember.stderr).toContain(`What you said is kept in ${recoveryFile()}`);
    expect(ask.json<{ error: { details: { recovery: string } } }>().error.details.recovery).toBe(
      recoveryFile(),
    );
    expect(statSync(recoveryFile()).mode & 0o777).toBe(0o600);
    expect(kept().map(({ channel, text }) => ({ channel, text }))).toEqual([
      { channel: 'cli', text: 'remember preference/coffee oat flat white' },
      { channel: 'cli', text: 'what coffee do I like?' },
    ]);
    expect(kept().every((k) => Math.abs(Date.parse(k.time) - Date.now()) < 60_000)).toBe(true);
    // Verbs that are not the owner's words keep nothing.
    keel(home, ['forget', '3']);
    expect(kept()).toHaveLength(2);
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });

  it('the terminal says DB_CORRUPT and keeps every piped line (secrets withheld), writing nothing', () => {
    const bytes = damage();
    const lines = [
      'I moved to Lyon last week',
      'remember that my wifi password is sunshine42',
      '/status',
      'the third line',
    ];
    const r = keel(home, [], `${lines.join('\n')}\n`);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error DB_CORRUPT: /m);
    expect(r.stderr).toMatch(/^fix: .*keel restore/m);
    expect(r.stdout).toContain(
      `keel's database is damaged: keel is not writing to it now; each line you type is kept in ${recoveryFile()}`,
    );
    expect(r.stdout.match(/\(not stored in memory\)/g)).toHaveLength(3);
    expect(r.stdout).toContain(
      "/status is not available: keel's database is damaged (DB_CORRUPT).",
    );
    const k = kept();
    expect(k.map((x) => x.channel)).toEqual(['terminal', 'terminal', 'terminal']);
    expect(k.map((x) => x.text)).toEqual([
      'I moved to Lyon last week',
      'remember that my wifi password is [secret withheld]',
      'the third line',
    ]);
    expect(readFileSync(recoveryFile(), 'utf8')).not.toContain('sunshine42');
    expect(readFileSync(db).equals(bytes)).toBe(true);

    const json = keel(home, ['--json'], 'one more\n');
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.trim())).toMatchObject({
      line: 'one more',
      error: { code: 'DB_CORRUPT' },
      recovery: recoveryFile(),
    });
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });

  it('damage that comes while the terminal runs stops it writing at the next line, which is kept', async () => {
    const child = spawn(process.execPath, [CLI, '--json'], {
      env: { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const replies = async (n: number) => {
      const until = Date.now() + 30_000;
      while (stdout.trim().split('\n').filter(Boolean).length < n) {
        if (Date.now() > until) throw new Error(`no reply ${n}: ${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    child.stdin.write('the first line, stored\n');
    await replies(1);
    const first = JSON.parse(stdout.trim().split('\n')[0]!) as { episode_id: number };
    expect(first.episode_id).toBeGreaterThan(0);
    // The terminal holds the database open: its WAL has the first line; fold it in, then damage.
    const store = MemoryStore.open(db);
    store.close();
    const bytes = damage();
    child.stdin.write('the second line\nthe third line\n');
    child.stdin.end();
    expect(await exited).toBe(2);
    const out = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: string; error?: { code: string } });
    expect(out.map((o) => [o.line, o.error?.code ?? null])).toEqual([
      ['the first line, stored', null],
      ['the second line', 'DB_CORRUPT'],
      ['the third line', 'DB_CORRUPT'],
    ]);
    expect(stderr).toMatch(/^error DB_CORRUPT: /m);
    expect(kept().map((k) => k.text)).toEqual(['the second line', 'the third line']);
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });
});

describe('keel backup, keel restore and keel recover', () => {
  it('a copy a killed backup or restore left is never the backup doctor names, and the next restore and backup remove it', () => {
    const made = keel(home, ['backup', '--json']).json<{ path: string }>();
    const backups = join(home, 'backups');
    // A process that is gone: what it was writing stays under its temporary name.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    // A backup killed before its copy took its name, made after the real one…
    const killedBackup = join(backups, `.keel-2099-01-01T00-00-00-000Z.db.partial-${dead}`);
    copyFileSync(made.path, killedBackup);
    writeFileSync(`${killedBackup}-journal`, '');
    // …a purge of the backups killed while it rewrote the real one…
    const killedRewrite = join(backups, `.${basename(made.path)}.partial-${dead}`);
    copyFileSync(made.path, killedRewrite);
    writeFileSync(`${killedRewrite}.anchor`, '{}\n');
    // …and a restore killed before its copy took keel.db's name.
    const killedRestore = join(home, `.keel.db.partial-${dead}`);
    copyFileSync(made.path, killedRestore);
    const later = new Date(Date.now() + 3_600_000);
    for (const f of [killedBackup, killedRewrite, killedRestore]) utimesSync(f, later, later);
    const partials = (dir: string) => readdirSync(dir).filter((n) => n.includes('.partial-'));
    expect(partials(backups)).toHaveLength(4);

    damage();
    const doctor = keel(home, ['doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain(`keel restore ${made.path} (the newest backup`);
    expect(doctor.stdout).not.toContain('.partial-');
    const report = keel(home, ['doctor', '--json']).json<{ backup: { newest: string } }>();
    expect(report.backup.newest).toBe(made.path);

    const restore = keel(home, ['restore', made.path, '--json']);
    expect(restore.status, restore.stderr).toBe(0);
    expect(partials(home)).toEqual([]);
    const next = keel(home, ['backup', '--json']);
    expect(next.status, next.stderr).toBe(0);
    expect(partials(backups)).toEqual([]);
    expect(readdirSync(backups).sort()).toEqual(
      [basename(made.path), basename(next.json<{ path: string }>().path)].sort(),
    );
    expect(keel(home, ['doctor']).status).toBe(0);
  });

  it('back up, damage, keep the lines, restore (damaged file kept), recover them as episodes once', () => {
    const backup = keel(home, ['backup', '--json']);
    expect(backup.status, backup.stderr).toBe(0);
    const made = backup.json<{ path: string; check: string }>();
    expect(made.path).toMatch(/\/backups\/keel-\d{4}-\d\d-\d\dT[\d-]+Z\.db$/);
    expect(made.check).toBe('ok');
    expect(statSync(made.path).mode & 0o777).toBe(0o600);

    const bytes = damage();
    keel(home, ['remember', 'preference/coffee', 'oat', 'flat', 'white']);
    keel(home, [], 'remember that my sister is Ada\nI moved to Lyon\n');
    expect(kept()).toHaveLength(3);

    // doctor names the way back.
    const doctor = keel(home, ['doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain('integrity     DAMAGED: ');
    expect(doctor.stdout).toContain(`keel restore ${made.path} (the newest backup`);
    expect(doctor.stdout).toContain(`keel recover stores the 3 line(s) kept in ${recoveryFile()}`);
    const doctorJson = keel(home, ['doctor', '--json']).json<{
      backup: { newest: string };
      recovery: { lines: number };
      degraded: string[];
    }>();
    expect(doctorJson.backup.newest).toBe(made.path);
    expect(doctorJson.recovery.lines).toBe(3);
    expect(doctorJson.degraded.join('\n')).toMatch(/keel restore <file>.*then keel recover/);
    expect(readFileSync(db).equals(bytes)).toBe(true);

    // keel recover cannot run on the damaged file.
    const early = keel(home, ['recover']);
    expect(early.status).toBe(2);
    expect(early.stderr).toMatch(/error DB_CORRUPT/);
    expect(kept()).toHaveLength(3);

    // A backup of the damaged file is refused, and leaves nothing.
    const bad = keel(home, ['backup', join(home, 'bad.db')]);
    expect(bad.status).toBe(2);
    expect(existsSync(join(home, 'bad.db'))).toBe(false);

    const restore = keel(home, ['restore', made.path, '--json']);
    expect(restore.status, restore.stderr).toBe(0);
    const restored = restore.json<{
      previous: string;
      kept_as: string;
      recovery: { lines: number };
    }>();
    expect(restored.previous).toBe('damaged');
    expect(restored.kept_as).toMatch(/keel\.db\.damaged-[\d-]+T[\d-]+Z$/);
    expect(readFileSync(restored.kept_as).equals(bytes)).toBe(true);
    expect(restored.recovery.lines).toBe(3);

    const recover = keel(home, ['recover', '--json']);
    expect(recover.status, recover.stderr).toBe(0);
    const r = recover.json<{ recovered: number; episodes: number[] }>();
    expect(r.recovered).toBe(3);
    expect(existsSync(recoveryFile())).toBe(false);
    const store = MemoryStore.open(db);
    try {
      const episodes = r.episodes.map((id) => store.episode(id)!);
      expect(episodes.map((e) => [e.channel, e.role, e.text])).toEqual([
        ['cli', 'owner', 'remember preference/coffee oat flat white'],
        ['terminal', 'owner', 'remember that my sister is Ada'],
        ['terminal', 'owner', 'I moved to Lyon'],
      ]);
      // Their original times, not the time of the recovery.
      expect(episodes[0]!.occurred_at).toBeLessThan(episodes[2]!.created_at);
      // What the lines asked to be remembered is remembered.
      expect(store.current({ scope: 'owner', kind: 'preference', key: 'coffee' })?.value).toBe(
        'oat flat white',
      );
    } finally {
      store.close();
    }
    const again = keel(home, ['recover', '--json']);
    expect(again.json<{ recovered: number }>().recovered).toBe(0);
    const found = keel(home, ['recall', 'Lyon', '--type', 'episode', '--json']).json<{
      results: { id: number }[];
    }>();
    expect(found.results.map((x) => x.id)).toEqual([r.episodes[2]]);
    expect(keel(home, ['doctor']).status).toBe(0);
  });

  it('restore refuses a sound database without --force, and while keel think holds its lock', () => {
    const made = keel(home, ['backup', join(home, 'copy.db'), '--json']).json<{ path: string }>();
    const before = readFileSync(db);
    const sound = keel(home, ['restore', made.path]);
    expect(sound.status).toBe(2);
    expect(sound.stderr).toMatch(/error INVALID_STATE: .* is sound .*--force/);
    damage();
    writeFileSync(
      join(home, 'think.lock'),
      JSON.stringify({ pid: process.pid, startedAt: Date.now() }),
    );
    const running = keel(home, ['restore', made.path]);
    expect(running.status).toBe(2);
    expect(running.stderr).toMatch(/error SERVICE_RUNNING: keel think is running \(PID \d+\)/);
    expect(readdirSync(home).filter((n) => n.includes('.damaged-'))).toEqual([]);
    expect(readFileSync(db).equals(before)).toBe(false); // still the damaged file, untouched
  });
});
