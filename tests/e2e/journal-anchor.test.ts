/**
 * The journal's anchor through the real CLI: the owner's last statement cut from the journal with
 * the in-file head moved back (every trigger put back) is named by `keel verify` and `keel doctor`
 * (exit 1), the next `keel remember` is refused as JOURNAL_BROKEN (exit 2, no stack trace) with
 * the owner's words kept in the recovery file, and `keel restore` of a backup from before the break
 * then `keel recover` bring them back. An untampered home stays ok; a missing home is not created.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

const env = { KEEL_EMBEDDER: 'none', KEEL_CHAT_PROVIDER: 'offline' };
const run = (args: string[]) => keel(home, args, '', env);

interface Doctor {
  ok: boolean;
  journal: { ok: boolean; problems: { check: string; detail: string; fix: string | null }[] };
}

/** Cuts the journal after entry `cut` with the rows it explained, and moves the head back. */
function cutTail(db: string, cut: number, lastFact: number, lastEpisode: number): void {
  const raw = new Database(db);
  const guards = [
    'journal_no_delete',
    'journal_head_append_only',
    'journal_facts_no_delete',
    'fact_evidence_no_delete',
    'episodes_no_delete',
  ];
  const sql = guards.map(
    (name) =>
      (
        raw
          .prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`)
          .get(name) as {
          sql: string;
        }
      ).sql,
  );
  for (const name of guards) raw.exec(`DROP TRIGGER ${name}`);
  raw.prepare('DELETE FROM facts_fts WHERE rowid > ?').run(lastFact);
  raw.prepare('DELETE FROM episodes_fts WHERE rowid > ?').run(lastEpisode);
  raw.prepare('DELETE FROM fact_evidence WHERE fact_id > ?').run(lastFact);
  raw.prepare('DELETE FROM journal_facts WHERE fact_id > ?').run(lastFact);
  raw.prepare('DELETE FROM facts WHERE id > ?').run(lastFact);
  raw.prepare('DELETE FROM episodes WHERE id > ?').run(lastEpisode);
  raw.prepare('DELETE FROM journal WHERE seq > ?').run(cut);
  const head = raw.prepare('SELECT seq, hash FROM journal WHERE seq = ?').get(cut) as {
    seq: number;
    hash: string;
  };
  raw.prepare('UPDATE journal_head SET seq = ?, hash = ? WHERE id = 1').run(head.seq, head.hash);
  for (const s of sql) raw.exec(s);
  raw.close();
}

const max = (db: string, sql: string) => {
  const raw = new Database(db, { readonly: true });
  try {
    return (raw.prepare(sql).get() as { n: number }).n;
  } finally {
    raw.close();
  }
};

describe('the journal anchor, through the CLI', () => {
  it('a cut tail: verify and doctor name it, a write is refused and kept, restore and recover bring it back', () => {
    const db = join(home, 'keel.db');
    expect(run(['remember', 'profile/city', 'Lisbon']).status).toBe(0);
    const backup = join(home, 'before.db');
    expect(run(['backup', backup]).status).toBe(0);
    const cut = max(db, 'SELECT max(seq) AS n FROM journal');
    const lastFact = max(db, 'SELECT max(id) AS n FROM facts');
    const lastEpisode = max(db, 'SELECT max(id) AS n FROM episodes');
    expect(run(['remember', 'profile/pet', 'a cat named Miso']).status).toBe(0);

    // Control: untampered, both say ok.
    expect(run(['verify']).status).toBe(0);
    const fine = run(['doctor', '--offline', '--json']);
    expect(fine.json<Doctor>().journal).toMatchObject({ ok: true, problems: [] });

    cutTail(db, cut, lastFact, lastEpisode);
    const verify = run(['verify']);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toMatch(
      /^BROKEN anchor: the journal ends at entry \d+; the anchor records entry \d+/m,
    );

    const doctor = run(['doctor', '--offline', '--json']);
    expect(doctor.status).toBe(1);
    const report = doctor.json<Doctor>();
    expect(report.ok).toBe(false);
    expect(report.journal.problems.map((p) => p.check)).toEqual(['anchor']);
    expect(report.journal.problems[0]!.fix).toContain('keel restore');
    const text = run(['doctor', '--offline']);
    expect(text.stdout).toMatch(/^journal +BROKEN: 1 problem/m);
    expect(text.stdout).not.toContain('the journal explains every current belief');

    // A write: refused as a clear state, the owner's words kept.
    const refused = run(['remember', 'profile/job', 'baker']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('JOURNAL_BROKEN');
    expect(refused.stderr).not.toMatch(/INTERNAL|this is a bug|at .*\.js:\d+/);
    expect(readFileSync(join(home, 'recovery.jsonl'), 'utf8')).toContain('baker');
    // The terminal: the owner's line is kept too, and the terminal says why.
    const terminal = keel(home, [], 'my bike is a blue Brompton\n', env);
    const said = `${terminal.stdout}${terminal.stderr}`;
    expect(said).toContain('JOURNAL_BROKEN');
    expect(said).not.toMatch(/INTERNAL|this is a bug/);
    // Said as the journal not matching its anchor, never as a damaged database.
    expect(said).toContain(
      "keel's journal does not match its anchor (keel.db.anchor): entries were written outside keel or cut off: keel is not writing to it now",
    );
    expect(said).not.toContain('damaged');
    const kept = readFileSync(join(home, 'recovery.jsonl'), 'utf8');
    expect(kept).toContain('blue Brompton');

    // Back: restore the backup from before the break, then recover the kept line.
    expect(run(['restore', backup, '--force']).status).toBe(0);
    expect(run(['verify']).status).toBe(0);
    expect(run(['recover']).status).toBe(0);
    expect(run(['verify']).status).toBe(0);
    const back = run(['recall', 'Brompton', '--json']).json<{ results: { text?: string }[] }>();
    expect(back.results.map((r) => r.text)).toContain('my bike is a blue Brompton');
  });

  it('verify --head prints the head; --against checks a head kept elsewhere', () => {
    expect(run(['remember', 'profile/city', 'Lisbon']).status).toBe(0);
    const printed = run(['verify', '--head']);
    expect(printed.status).toBe(0);
    const head = /^head: (\d+:[0-9a-f]{64})$/m.exec(printed.stdout)![1]!;
    expect(run(['remember', 'profile/pet', 'a cat']).status).toBe(0);
    expect(run(['verify', '--against', head]).status).toBe(0);
    const wrong = `${head.split(':')[0]}:${'0'.repeat(64)}`;
    const r = run(['verify', '--against', wrong]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /^BROKEN kept_head: entry \d+ is not the one the head you kept records/m,
    );
    const bad = run(['verify', '--against', 'nonsense']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('INVALID_INPUT');
  });

  it('verify on a missing home says there is nothing to verify and creates nothing', () => {
    const missing = join(home, 'nowhere');
    const r = keel(missing, ['verify', '--json'], '', env);
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ ok: true, database: null });
    expect(existsSync(missing)).toBe(false);
    // Control: a home with a database is verified.
    expect(run(['remember', 'profile/city', 'Lisbon']).status).toBe(0);
    expect(run(['verify', '--json']).json()).toMatchObject({ ok: true, problems: [] });
  });

  it('doctor hashes only the entries since the last whole check; --full hashes them all', () => {
    const db = join(home, 'keel.db');
    interface Scoped {
      ok: boolean;
      journal: { ok: boolean; scope: string; hashed_from: number; entries: number };
    }
    expect(run(['remember', 'profile/city', 'Lisbon']).status).toBe(0);
    // No whole check yet: this one is whole, and leaves the checkpoint.
    const first = run(['doctor', '--offline', '--json']).json<Scoped>();
    expect(first.journal).toMatchObject({ ok: true, scope: 'whole', hashed_from: 1 });
    expect(existsSync(join(home, 'keel.db.checked'))).toBe(true);
    const checked = first.journal.entries;

    expect(run(['remember', 'profile/pet', 'a cat named Miso']).status).toBe(0);
    const second = run(['doctor', '--offline', '--json']);
    expect(second.status).toBe(0);
    expect(second.json<Scoped>().journal).toMatchObject({
      ok: true,
      scope: 'incremental',
      hashed_from: checked + 1,
    });
    expect(run(['doctor', '--offline']).stdout).toMatch(
      new RegExp(`^journal +ok: \\d+ entries.*; entries ${checked + 1}-\\d+ hashed again`, 'm'),
    );

    // An entry written since is edited (every trigger put back): the incremental check finds it.
    const raw = new Database(db);
    const triggers = raw
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'journal'`,
      )
      .all() as { name: string; sql: string }[];
    for (const t of triggers) raw.exec(`DROP TRIGGER ${t.name}`);
    raw
      .prepare(`UPDATE journal SET payload = replace(payload, 'Miso', 'Tofu') WHERE seq > ?`)
      .run(checked);
    for (const t of triggers) raw.exec(t.sql);
    raw.close();
    const broken = run(['doctor', '--offline', '--json']);
    expect(broken.status).toBe(1);
    const report = broken.json<Scoped & Doctor>();
    expect(report.journal.scope).toBe('incremental');
    expect(
      report.journal.problems.some((p) => /payload altered without redaction/.test(p.detail)),
    ).toBe(true);
    const full = run(['doctor', '--offline', '--full', '--json']);
    expect(full.status).toBe(1);
    expect(full.json<Scoped>().journal).toMatchObject({
      ok: false,
      scope: 'whole',
      hashed_from: 1,
    });
  });
});
