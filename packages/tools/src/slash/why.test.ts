// "Why do you believe that?" as text: a corrected belief's versions (the former one labelled),
// each version's evidence (the door, the time, the words cut short and made safe to show), who
// changed it when; the same text from /why and from the model's why tool; an unknown id is
// NOT_FOUND; a control belief's answer holds nothing of the other's.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { MemoryStore } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../contract.js';
import { memoryToolbox } from '../toolbox.js';
import { runSlashCommand } from './commands.js';
import { UNEXPLAINED_VALUE_WITHHELD, WHY_EPISODE_CHARS, whyText } from './why.js';

let dir: string;
let store: MemoryStore;
let now = Date.UTC(2026, 11, 1, 9, 30);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-why-'));
  now = Date.UTC(2026, 11, 1, 9, 30);
  store = MemoryStore.open(join(dir, 'keel.db'), { now: () => now });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const said = (text: string, channel = 'discord') =>
  store.addEpisode({ kind: 'conversation', channel, role: 'owner', text }).id;

function context(): ToolContext {
  return { signal: new AbortController().signal, store, tz: 'UTC', now: () => now, channel: 'cli' };
}

/** A dentist belief corrected once (the former value seen twice), and a control belief. */
function seed() {
  const long = `My dentist is Dr. Ortiz \u001b[31mred\u001b[0m ${'and a long story '.repeat(20)}`;
  const first = store.remember({
    kind: 'profile',
    key: 'dentist',
    value: 'Dr. Ortiz',
    source: 'owner_stated',
    episodeId: said(long),
  }).fact!;
  now += 86_400_000;
  store.remember({
    kind: 'profile',
    key: 'dentist',
    value: 'Dr. Ortiz',
    source: 'owner_stated',
    episodeId: said('Dr. Ortiz again today', 'terminal'),
  });
  now += 86_400_000;
  const second = store.remember({
    kind: 'profile',
    key: 'dentist',
    value: 'Dr. Park',
    source: 'owner_stated',
    episodeId: said('I switched my dentist to Dr. Park', 'cli'),
  }).fact!;
  const control = store.remember({
    kind: 'profile',
    key: 'doctor',
    value: 'Dr. Okafor',
    source: 'owner_stated',
    episodeId: said('my doctor is Dr. Okafor'),
  }).fact!;
  return { first, second, control };
}

describe('why as text', () => {
  it('lists the current and former values, their evidence by door and time, and who changed them', () => {
    const { first, second } = seed();
    const lines = whyText(store, first.id).split('\n');
    expect(lines[0]).toBe(`why keel believes f${first.id}:`);
    const current = lines.findIndex((l) => l.startsWith(`current [f${second.id}]`));
    const former = lines.findIndex((l) => l.startsWith(`former [f${first.id}]`));
    expect(current).toBeGreaterThan(0);
    expect(former).toBeGreaterThan(current);
    expect(lines[current]).toContain('Dr. Park');
    expect(lines[former]).toContain(`superseded by f${second.id}`);
    // Evidence: the door and the time, under its version.
    const park = lines.slice(current, former).join('\n');
    expect(park).toContain('evidence via cli at 2026-12-03 09:30 (Thu)');
    expect(park).toContain('I switched my dentist to Dr. Park');
    expect(park).toContain('owner: replaced the former value');
    const ortiz = lines.slice(former).join('\n');
    expect(ortiz).toContain('evidence via discord at 2026-12-01 09:30 (Tue)');
    expect(ortiz).toContain('evidence via terminal at 2026-12-02 09:30 (Wed)');
    expect(ortiz).toContain('owner: stored as a new belief');
    expect(ortiz).toContain('owner: seen again (evidence added)');
    expect(ortiz).not.toContain('Dr. Park');
    // The long episode is cut short.
    const longLine = lines.find((l) => l.includes('a long story'))!;
    expect(longLine).toContain('…');
    expect(longLine.length).toBeLessThan(WHY_EPISODE_CHARS + 120);
    expect(lines.some((l) => l.includes('not explained by the journal'))).toBe(false);
  });

  it('/why and the why tool show the same text; the control belief stands alone', async () => {
    const { first, control } = seed();
    const reply = await runSlashCommand(store, `/why f${first.id}`, {
      channel: 'test',
      status: () => '',
    });
    expect(reply.text).toBe(whyText(store, first.id));
    const tool = await memoryToolbox().call('why', { id: `f${first.id}` }, { context: context() });
    expect(tool).toMatchObject({ isError: false, content: whyText(store, first.id) });
    const other = await memoryToolbox().call('why', { id: control.id }, { context: context() });
    expect(other.content).toContain('Dr. Okafor');
    expect(other.content).not.toContain('Dr. Ortiz');
    expect(other.content).not.toContain('former');
  });

  it('an unknown id is NOT_FOUND from the text and an error result from the tool', async () => {
    const { control } = seed();
    let caught: unknown;
    try {
      whyText(store, control.id + 100);
    } catch (err) {
      caught = err;
    }
    expect(KeelError.isInstance(caught) && caught.code).toBe('NOT_FOUND');
    const tool = await memoryToolbox().call(
      'why',
      { id: control.id + 100 },
      { context: context() },
    );
    expect(tool).toMatchObject({ isError: true, content: `no fact f${control.id + 100}` });
    // Control: a known id answers.
    expect(whyText(store, control.id)).toContain('Dr. Okafor');
  });

  it('the why tool withholds a value the journal does not explain; the owner’s text shows it with the warning; the control value stays', async () => {
    const { first, second } = seed();
    const db = dbOf(store);
    const triggers = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'facts'`)
      .all() as { name: string; sql: string }[];
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    db.prepare(`UPDATE facts SET value = 'Dr. Mallory' WHERE id = ?`).run(first.id);
    for (const t of triggers) db.exec(t.sql);

    const tool = await memoryToolbox().call('why', { id: second.id }, { context: context() });
    expect(tool.isError).toBe(false);
    expect(tool.content).not.toContain('Dr. Mallory');
    expect(tool.content).toContain(UNEXPLAINED_VALUE_WITHHELD);
    expect(tool.content).toContain(`not explained by the journal: f${first.id}`);
    expect(tool.content).toContain('Dr. Park'); // control: the explained version is shown
    // The owner's own text shows what is stored, with the warning.
    const owner = whyText(store, second.id);
    expect(owner).toContain('Dr. Mallory');
    expect(owner).toContain(`not explained by the journal: f${first.id}`);
    expect(owner).not.toContain(UNEXPLAINED_VALUE_WITHHELD);
  });
});
