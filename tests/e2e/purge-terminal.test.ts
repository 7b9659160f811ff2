/**
 * `keel purge` in a real pseudo-terminal (tmux), as the owner answers it: the list of every stored
 * mention is shown first, the question defaults to no, and only a yes erases. A control belief
 * about something else is never touched.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, keel, tempHome } from '../support/cli.js';
import { hasTmux, Tmux } from '../support/tmux.js';

const terms: Tmux[] = [];
const homes: (() => void)[] = [];

beforeAll(() => {
  if (!hasTmux()) throw new Error('tmux is needed for these tests (apt-get install tmux)');
});
afterEach(() => {
  for (const t of terms.splice(0)) t.close();
  for (const cleanup of homes.splice(0)) cleanup();
});

/** A KEEL_HOME holding the owner's two beliefs: one to purge, one control. */
function seeded(): string {
  const { home, cleanup } = tempHome();
  homes.push(cleanup);
  for (const [slot, value] of [
    ['relationship/sister.home', 'São Paulo'],
    ['relationship/dentist', 'Dr. Ortiz'],
  ] as const) {
    expect(keel(home, ['remember', slot, value]).status).toBe(0);
  }
  return home;
}

/** `keel <args>` in a pseudo-terminal, offline, with `home` as KEEL_HOME. */
function terminal(home: string, args: string[]): Tmux {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined && !/^(KEEL_|ANTHROPIC_|OPENAI_|DISCORD_|OLLAMA_)/.test(e[0]),
    ),
  );
  const t = Tmux.start([process.execPath, CLI, ...args], {
    ...env,
    KEEL_HOME: home,
    KEEL_SKIP_SETUP: '1',
  });
  terms.push(t);
  return t;
}

/** Whether recall of `query` finds a text mentioning `text`. */
function recalls(home: string, query: string, text: string): boolean {
  const r = keel(home, ['recall', query, '--json']);
  expect(r.status).toBe(0);
  return JSON.stringify(r.json()).includes(text);
}

describe('keel purge on a terminal', () => {
  it('shows what it reaches and erases nothing on the default answer', {
    timeout: 30_000,
  }, async () => {
    const home = seeded();
    const t = terminal(home, ['purge', 'Sao', 'Paulo']);
    const screen = await t.waitFor(/◆ {2}Erase all of it\?/);
    expect(screen).toMatch(/São Paulo/);
    t.keys('Enter'); // the default: no
    await t.exitCode();
    expect(recalls(home, 'Paulo', 'São Paulo')).toBe(true);
    expect(recalls(home, 'dentist', 'Ortiz')).toBe(true);
  });

  it('erases every mention on yes; the control stays', { timeout: 30_000 }, async () => {
    const home = seeded();
    const t = terminal(home, ['purge', 'Sao', 'Paulo']);
    await t.waitFor(/◆ {2}Erase all of it\?/);
    t.keys('Left'); // Yes
    t.keys('Enter');
    const screen = await t.waitFor(/purged: \d+ row/);
    expect(screen).toMatch(/tombstoned/);
    expect(await t.exitCode()).toBe(0);
    expect(recalls(home, 'Paulo', 'São Paulo')).toBe(false);
    expect(recalls(home, 'dentist', 'Ortiz')).toBe(true);
  });
});
