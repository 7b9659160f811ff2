/**
 * Taking memory out and bringing it back, from the bundled CLI: a home seeded with owner-stated
 * beliefs, a correction, a corroboration, an inferred guess, a pending conflict, a forgotten
 * belief, a purged value, a withheld credential and a control; `keel export --format json`
 * imported into a fresh KEEL_HOME gives the same current beliefs (sources, confidence, evidence,
 * statuses); `keel verify` passes and `keel recall` finds an imported belief; the forgotten value
 * cannot be learned again there (a new value can: control); the purged value and the credential
 * appear nowhere (the control does); a second import is refused with STORE_NOT_EMPTY. The
 * Markdown export has one section per kind and confidence and source on each belief line.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

let from: { home: string; cleanup: () => void };
let to: { home: string; cleanup: () => void };
let file: string;
const PURGED_VALUE = 'Quentin Marlowe';
const SECRET = 'sunshine-horse-42';
const CONTROL = 'Brompton';

const run = (home: string, args: string[]) => {
  const r = keel(home, args);
  expect(r.status, `keel ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
};
const remember = (home: string, ...args: string[]) =>
  run(home, ['remember', ...args, '--json']).json<{
    decision: string;
    fact: { id: number } | null;
  }>();

interface Belief {
  kind: string;
  key: string;
  value: string;
  source: string;
  status: string;
  confidence: number;
  evidence_count: number;
}
const beliefs = (home: string) =>
  run(home, ['beliefs', '--json'])
    .json<{ beliefs: Belief[] }>()
    .beliefs.map((b) => [
      b.kind,
      b.key,
      b.value,
      b.status,
      b.source,
      b.confidence,
      b.evidence_count,
    ]);

beforeAll(() => {
  from = tempHome();
  to = tempHome();
  const h = from.home;
  remember(h, 'profile/home', 'Lisbon');
  remember(h, 'profile/home', 'Porto'); // the correction
  remember(h, 'preference/coffee', 'oat', 'flat', 'white');
  remember(h, 'preference/coffee', 'oat', 'flat', 'white'); // evidence 2
  remember(h, 'preference/tea', 'green', 'tea', '--source', 'inferred');
  expect(remember(h, 'profile/home', 'Braga', '--source', 'inferred').decision).toBe('conflict');
  const gym = remember(h, 'preference/gym', 'McFit').fact!.id;
  run(h, ['forget', String(gym)]);
  const ex = remember(h, 'relationship/ex', PURGED_VALUE).fact!.id;
  run(h, ['forget', String(ex), '--purge', '--yes']);
  expect(remember(h, 'fact/wifi_password', SECRET).decision).toBe('withheld');
  remember(h, 'profile/bike', CONTROL);
  file = join(h, 'export.json');
  run(h, ['export', '--format', 'json', '--include', 'episodes', '--out', file]);
});
afterAll(() => {
  from.cleanup();
  to.cleanup();
});

describe('keel export and keel import of it', () => {
  it('the export holds no purged value and no credential; the control and every status are there', () => {
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(CONTROL);
    expect(text).not.toContain(PURGED_VALUE);
    expect(text).not.toContain('Quentin');
    expect(text).not.toContain(SECRET);
    const x = JSON.parse(text) as {
      format: string;
      beliefs: { status: string }[];
      tombstones: unknown[];
    };
    expect(x.format).toBe('keel-export');
    expect(new Set(x.beliefs.map((b) => b.status))).toEqual(
      new Set(['active', 'superseded', 'pending', 'retracted']),
    );
    expect(x.tombstones.length).toBeGreaterThanOrEqual(2);
  });

  it('a fresh home gets the same beliefs; verify passes; recall finds one; the forgotten stays forgotten', () => {
    const imported = run(to.home, ['import', file, '--json']).json<{ beliefs: number }>();
    expect(imported.beliefs).toBeGreaterThan(5);
    const before = beliefs(from.home);
    expect(before.length).toBeGreaterThanOrEqual(5);
    expect(beliefs(to.home)).toEqual(before);
    // The correction chain came along.
    const history = run(to.home, ['history', 'profile/home', '--json']).json<{
      versions: { value: string; status: string }[];
    }>();
    expect(history.versions.map((v) => [v.value, v.status])).toEqual([
      ['Braga', 'pending'],
      ['Porto', 'active'],
      ['Lisbon', 'superseded'],
    ]);
    expect(run(to.home, ['verify', '--json']).json<{ ok: boolean }>().ok).toBe(true);
    const recall = run(to.home, ['recall', 'coffee', '--json']).json<{
      results: { value?: string }[];
      unexplained?: number[];
    }>();
    expect(recall.results.map((r) => r.value)).toContain('oat flat white');
    expect(recall.unexplained ?? []).toEqual([]);
    // The tombstone came along: the forgotten value is refused, a new one stored (control).
    const again = remember(to.home, 'preference/gym', 'McFit', '--source', 'inferred');
    expect(again.decision).toBe('ignore');
    const fresh = remember(to.home, 'preference/gym', 'Urban', 'Sports', '--source', 'inferred');
    expect(fresh.decision).toBe('create');
    // Nothing purged in the new home either.
    const out = run(to.home, ['export', '--include', 'episodes']).stdout;
    expect(out).toContain(CONTROL);
    expect(out).not.toContain(PURGED_VALUE);
    expect(out).not.toContain(SECRET);
  });

  it('a second import is refused with STORE_NOT_EMPTY, and writes nothing', () => {
    const before = beliefs(to.home);
    const r = keel(to.home, ['import', file]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('error STORE_NOT_EMPTY');
    expect(r.stderr).toContain('fix: ');
    expect(beliefs(to.home)).toEqual(before);
  });

  it('Markdown: one section per kind, confidence and source on every belief line', () => {
    const md = run(from.home, ['export', '--format', 'markdown']).stdout;
    expect(md).toMatch(/^# What keel remembers/);
    const sections = md.match(/^## .+$/gm);
    expect(sections).toEqual(['## preference', '## profile', '## relationship']);
    const lines = md.split('\n').filter((l) => l.startsWith('- **'));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const l of lines.filter((x) => !x.includes('nothing current'))) {
      expect(l).toMatch(/confidence \d\.\d\d, (owner_stated|inferred|observed|owner_confirmed)/);
    }
    expect(md).toContain('**coffee**: oat flat white — confidence 1.00, owner_stated, seen 2×');
    expect(md).toContain('**pending conflict**: Braga — confidence 0.70, inferred');
    expect(md).toMatch(/former: Lisbon \(replaced/);
    expect(md).toContain(CONTROL);
    expect(md).not.toContain(PURGED_VALUE);
    expect(md).not.toContain('## Conversation');
    // With the episodes: the conversation by day, the purged words still absent.
    const all = run(from.home, ['export', '--format', 'markdown', '--include', 'episodes']).stdout;
    const conversation = all.slice(all.indexOf('## Conversation'));
    expect(conversation).toMatch(/^### \d{4}-\d{2}-\d{2}$/m);
    expect(conversation).toMatch(
      /^- \d{2}:\d{2} owner \(cli\): remember profile\/bike: Brompton$/m,
    );
    expect(all).not.toContain(PURGED_VALUE);
    expect(all).not.toContain(SECRET);
  });

  it('--out over an existing 0644 file leaves it 0600 with the export; a new file is 0600 too (control)', () => {
    const existing = join(from.home, 'shared.json');
    writeFileSync(existing, 'old', { mode: 0o644 });
    expect(statSync(existing).mode & 0o777).toBe(0o644);
    run(from.home, ['export', '--out', existing]);
    expect(statSync(existing).mode & 0o777).toBe(0o600);
    expect(readFileSync(existing, 'utf8')).toContain(CONTROL);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
