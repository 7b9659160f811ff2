// `keel reminders` over a real keel home: the listing (text and --json) shows pending reminders
// first with their ids and local times, then the others; `keel reminders cancel <id>` cancels a
// pending one once (a second cancel exits 1 and says it was already cancelled; an unknown id is
// NOT_FOUND).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../config.js';
import { buildProgram } from '../program.js';

let home: string;
let config: Config;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keel-reminders-cli-'));
  config = loadConfig({ KEEL_HOME: home, KEEL_TZ: 'Europe/Paris' });
  process.exitCode = 0;
});
afterEach(() => {
  process.exitCode = 0;
  rmSync(home, { recursive: true, force: true });
});

/** Runs `keel <args>` in-process; resolves to what it printed and its exit code. */
async function keel(...args: string[]): Promise<{ out: string; code: number }> {
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    const program = await buildProgram(config);
    await program.parseAsync(['node', 'keel', ...args]);
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { out, code };
}

function seed(): { bank: number; stretch: number } {
  const store = MemoryStore.open(config.paths.db);
  try {
    const base = { channel: 'terminal', createdBy: 'owner' as const };
    const now = Date.now();
    const bank = store.reminders.create({
      ...base,
      text: 'call the bank',
      dueAt: now + 3 * 3_600_000,
    }).reminder.id;
    const stretch = store.reminders.create({ ...base, text: 'stretch', dueAt: now + 3_600_000 })
      .reminder.id;
    return { bank, stretch };
  } finally {
    store.close();
  }
}

describe('keel reminders', () => {
  it('lists pending reminders soonest first with ids, as text and as JSON', async () => {
    const { bank, stretch } = seed();
    const text = await keel('reminders');
    expect(text.code).toBe(0);
    const lines = text.out.trim().split('\n');
    expect(lines[0]).toBe('Reminders (time zone Europe/Paris; pending first):');
    expect(lines[1]).toMatch(new RegExp(`^  r${stretch}  pending .* stretch$`));
    expect(lines[2]).toMatch(new RegExp(`^  r${bank}  pending .* call the bank$`));
    const json = JSON.parse((await keel('reminders', '--json')).out);
    expect(json.tz).toBe('Europe/Paris');
    expect(json.reminders.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([
      [stretch, 'pending'],
      [bank, 'pending'],
    ]);
  });

  it('cancels a pending reminder once; a second cancel exits 1; an unknown id is NOT_FOUND', async () => {
    const { bank } = seed();
    const first = await keel('reminders', 'cancel', `r${bank}`);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(new RegExp(`^Cancelled: call the bank — .* \\(r${bank}\\)\\.`));
    const again = await keel('reminders', 'cancel', String(bank), '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({
      cancelled: false,
      reminder: { id: bank, status: 'cancelled' },
    });
    const unknown = await keel('reminders', 'cancel', '999');
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toMatch(/NOT_FOUND/);
    const listed = JSON.parse((await keel('reminders', '--json')).out);
    expect(listed.reminders.map((r: { status: string }) => r.status)).toEqual([
      'pending',
      'cancelled',
    ]);
  });

  it('says so when there are none', async () => {
    expect((await keel('reminders')).out).toMatch(/^No reminders\./);
  });
});
