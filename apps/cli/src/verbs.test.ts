// `keel --help` lists the verbs from verbs.ts without loading them: the listing must say what the
// real definitions say (name, usage, one-line description), for every verb, in the same order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Help } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { buildProgram, main } from './program.js';
import { VERBS } from './verbs.js';

const home = mkdtempSync(join(tmpdir(), 'keel-verbs-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The root help as `keel --help` prints it (captured). */
async function rootHelp(): Promise<string> {
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    await main(['node', 'keel', '--help']);
  } finally {
    process.stdout.write = write;
  }
  return out;
}

describe('the verb listing', () => {
  it('matches every real definition, and the help printed from it matches the full program', async () => {
    const program = await buildProgram(loadConfig({ KEEL_HOME: home }));
    const help = new Help();
    const defined = program.commands.map((c) => ({
      name: c.name(),
      term: help.subcommandTerm(c),
      summary: c.description(),
    }));
    const listed = VERBS.map((v) => ({
      name: v.name,
      term: `${v.name} ${v.usage}`.trim(),
      summary: v.summary,
    }));
    expect(listed).toEqual(defined);

    const full = program.helpInformation();
    expect(await rootHelp()).toBe(full);
  });
});
