/**
 * What a keel run loads: the bundled `keel` (what users run) started as a real process with a
 * module hook that records every module it loads. `keel --version` and `keel --help` load the
 * argument parser alone; a verb that never talks to a model or to Discord never loads their
 * clients. Time itself is measured by `bench/start-time.ts`, not here (a shared machine makes
 * timings flaky); what is loaded is what the time follows.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, keel, ROOT, tempHome } from '../support/cli.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

/** A module of the run: its path and size in bytes. */
interface Loaded {
  path: string;
  bytes: number;
  text: string;
}

/** Runs `keel <args>` with a hook that records each module loaded; returns them and the run. */
function traced(args: string[]): { loaded: Loaded[]; stdout: string; status: number | null } {
  const list = join(home, 'loaded.txt');
  const hooks = join(home, 'hooks.mjs');
  const register = join(home, 'register.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  const result = await next(url, context);
  appendFileSync(${JSON.stringify(list)}, url + '\\n');
  return result;
}
`,
  );
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
  );
  writeFileSync(list, '');
  const r = spawnSync(process.execPath, ['--import', register, CLI, ...args], {
    env: { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  });
  const loaded = readFileSync(list, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file:'))
    .map((u) => fileURLToPath(u))
    .map((path) => ({ path, bytes: statSync(path).size, text: readFileSync(path, 'utf8') }));
  return { loaded, stdout: r.stdout, status: r.status };
}

const kb = (files: Loaded[]) => files.reduce((n, f) => n + f.bytes, 0) / 1024;
/** Strings only the Anthropic SDK, the OpenAI client and discord.js carry. */
const CLIENTS = [/anthropic-version/, /OpenAI-Organization/i, /DiscordAPIError/];
const clientsIn = (files: Loaded[]) =>
  CLIENTS.filter((re) => files.some((f) => re.test(f.text))).map(String);

describe('what keel loads', () => {
  it('keel --version reads the version and loads nothing else', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'apps/cli/package.json'), 'utf8')) as {
      version: string;
    };
    const r = traced(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(kb(r.loaded)).toBeLessThan(20);
  });

  it('keel --help lists every verb with the argument parser alone; recall loads no model client', () => {
    const help = traced(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^ {2}recall \[options\] <query\.\.\.>/m);
    expect(help.stdout).toMatch(/^ {2}config /m);
    expect(kb(help.loaded)).toBeLessThan(250);
    expect(clientsIn(help.loaded)).toEqual([]);

    // Control: a verb loads the store and the rest of keel (far more than the help), still
    // without the clients, which the bundle does hold (each marker is found in it).
    expect(keel(home, ['remember', 'preference/tea', 'green']).status).toBe(0);
    const recall = traced(['recall', 'tea']);
    expect(recall.status).toBe(0);
    expect(recall.stdout).toContain('preference/tea: green');
    expect(kb(recall.loaded)).toBeGreaterThan(10 * kb(help.loaded));
    expect(clientsIn(recall.loaded)).toEqual([]);
    const bundleDir = dirname(CLI);
    const everything = readdirSync(bundleDir)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => join(bundleDir, f))
      .map((path) => ({ path, bytes: statSync(path).size, text: readFileSync(path, 'utf8') }));
    expect(clientsIn(everything)).toHaveLength(CLIENTS.length);
  });
});
