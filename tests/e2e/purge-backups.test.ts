// A purge reaches keel's backups and every restore, on the built CLI against a real home: `keel
// purge` rewrites the backups in $KEEL_HOME/backups and lists them in its receipt; restoring a
// backup made before the purge (one the owner copied elsewhere, which no purge can rewrite) does
// not bring the value back while a control stays; and `keel forget --purge --all-slots` of a belief
// purged already reaches what still says it. A purge made in the terminal's chat (`/purge`,
// `/forget --purge`) reaches the backups the same way, and its reply says so.

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

interface BackupReachJson {
  path: string;
  reached: number;
  error: { code: string; message: string } | null;
}

let home: string;
let cleanup: () => void;
let elsewhere: string;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
  elsewhere = mkdtempSync(join(tmpdir(), 'keel-elsewhere-'));
});
afterEach(() => {
  cleanup();
  rmSync(elsewhere, { recursive: true, force: true });
});

const db = () => readFileSync(join(home, 'keel.db'));

describe('purge and the backups', () => {
  it('purge rewrites the backups and lists them; a restore of an older copy brings nothing back', () => {
    keel(home, ['remember', 'relationship/boss', 'Conceição', 'Albuquerque']);
    keel(home, ['remember', 'note/friend', 'Begoña', 'Ibarrola', 'from', 'Bilbao']);
    keel(home, ['remember', 'profile/office', 'Vila', 'Madalena']);
    const made = keel(home, ['backup', '--json']).json<{ path: string }>();
    const copy = join(elsewhere, 'old-keel.db');
    copyFileSync(made.path, copy);
    expect(readFileSync(made.path).includes('Albuquerque')).toBe(true);

    const done = keel(home, ['purge', 'conceicao albuquerque', '--yes', '--json']);
    expect(done.status, done.stderr).toBe(0);
    const r = done.json<{ receipt: { total: number }; backups: BackupReachJson[] }>();
    expect(r.receipt.total).toBeGreaterThan(0);
    expect(r.backups).toHaveLength(1);
    expect(r.backups[0]).toMatchObject({ path: made.path, error: null });
    expect(r.backups[0]!.reached).toBeGreaterThan(0);
    const backup = readFileSync(made.path);
    expect(backup.includes('Albuquerque')).toBe(false);
    expect(backup.includes('Madalena')).toBe(true);
    expect(readFileSync(join(home, 'purged.jsonl'), 'utf8')).not.toMatch(/concei|albuquerque/i);

    // The human receipt names the backups too.
    const human = keel(home, ['purge', 'Begona Ibarrola', '--yes']);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain(`backups: 1 rewritten without it (${made.path} `);
    expect(human.stdout).toContain('a restore purges it from any backup');

    // The copy elsewhere still holds both; restoring it brings neither back.
    expect(readFileSync(copy).includes('Albuquerque')).toBe(true);
    const restore = keel(home, ['restore', copy, '--force', '--json']);
    expect(restore.status, restore.stderr).toBe(0);
    const restored = restore.json<{
      purges: { entries: number; found: number; reached: number };
    }>();
    expect(restored.purges).toMatchObject({ entries: 2, found: 2 });
    expect(restored.purges.reached).toBeGreaterThan(0);
    for (const word of ['Albuquerque', 'Conceição', 'Ibarrola', 'Begoña']) {
      expect(db().includes(word), word).toBe(false);
      const recall = keel(home, ['recall', word, '--json']).json<{ results: unknown[] }>();
      expect(JSON.stringify(recall.results)).not.toContain(word);
    }
    expect(db().includes('Madalena')).toBe(true);
    expect(keel(home, ['recall', 'Vila Madalena', '--json']).stdout).toContain('Vila Madalena');
    expect(keel(home, ['verify']).status).toBe(0);
    const humanRestore = keel(home, ['restore', copy, '--force']);
    expect(humanRestore.stdout).toContain('2 value(s) purged since the backup was made');
  });

  it("the terminal's /purge and /forget --purge rewrite the backups and say how many they reached", () => {
    keel(home, ['remember', 'relationship/boss', 'Conceição', 'Albuquerque']);
    const friend = keel(home, [
      'remember',
      'note/friend',
      'Begoña',
      'Ibarrola',
      'from',
      'Bilbao',
      '--json',
    ]).json<{ fact: { id: number } }>();
    keel(home, ['remember', 'profile/office', 'Vila', 'Madalena']);
    const made = keel(home, ['backup', '--json']).json<{ path: string }>();
    const backup = () => readFileSync(made.path);
    expect(backup().includes('Albuquerque') && backup().includes('Ibarrola')).toBe(true);

    // The offline terminal, as the owner types in it (piped: one reply per line).
    const chat = keel(
      home,
      ['--json'],
      `/purge conceicao albuquerque --yes
/forget ${friend.fact.id} --purge --yes
`,
    );
    expect(chat.status, chat.stderr).toBe(0);
    const replies = chat.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { reply: string });
    expect(replies[0]!.reply).toMatch(/^Purged \d+ row/);
    expect(replies[0]!.reply).toContain('Backups: 1 rewritten without it.');
    expect(replies[1]!.reply).toMatch(new RegExp(`^Forgot and purged f${friend.fact.id}`));
    expect(replies[1]!.reply).toContain('Backups: 1 rewritten without it.');
    for (const word of ['Albuquerque', 'Conceição', 'Ibarrola', 'Begoña']) {
      expect(backup().includes(word), word).toBe(false);
    }
    expect(backup().includes('Madalena')).toBe(true); // the control
    expect(
      keel(home, ['doctor', '--offline', '--json']).json<{ backup: { newest: string } }>(),
    ).toMatchObject({ backup: { newest: made.path } });
  });

  it('forget --purge --all-slots of a belief purged already reaches what says it again', () => {
    const boss = keel(home, [
      'remember',
      'relationship/boss',
      'Conceição',
      'Albuquerque',
      '--json',
    ]).json<{ fact: { id: number } }>();
    keel(home, ['remember', 'profile/office', 'Vila', 'Madalena']);
    const first = keel(home, ['forget', String(boss.fact.id), '--purge', '--yes', '--json']);
    expect(first.status, first.stderr).toBe(0);
    expect(db().includes('Albuquerque')).toBe(false);
    // The owner says it again, in another slot.
    keel(home, [
      'remember',
      'note/meeting',
      'Conceição',
      'Albuquerque',
      'moved',
      'the',
      'meeting',
      'to',
      'Friday',
    ]);
    expect(keel(home, ['recall', 'Albuquerque', '--json']).stdout).toContain('Albuquerque');

    const again = keel(home, [
      'forget',
      String(boss.fact.id),
      '--purge',
      '--all-slots',
      '--yes',
      '--json',
    ]);
    expect(again.status, again.stderr).toBe(0);
    const r = again.json<{
      mentions: { total: number; reached: Record<string, { count: number }> } | null;
    }>();
    expect(r.mentions).not.toBeNull();
    expect(r.mentions!.reached.facts?.count).toBe(1);
    expect(r.mentions!.reached.episodes?.count).toBeGreaterThanOrEqual(1);
    const recall = keel(home, ['recall', 'Albuquerque', '--json']).json<{ results: unknown[] }>();
    expect(JSON.stringify(recall.results)).not.toContain('Albuquerque');
    keel(home, ['verify']);
    expect(db().includes('Albuquerque')).toBe(false);
    expect(db().includes('Madalena')).toBe(true);
    // Control: run once more, nothing is left to reach, and it says so.
    const third = keel(home, ['forget', String(boss.fact.id), '--purge', '--yes']);
    expect(third.status, third.stderr).toBe(0);
    expect(third.stdout).toContain('was purged already; nothing stored says it any more');
  });
});
