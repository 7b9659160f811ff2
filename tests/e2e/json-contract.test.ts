/**
 * keel's one `--json` contract, walked over every verb of the built CLI against a real temporary
 * KEEL_HOME (docs/decisions/2026-12-02-one-json-contract.md):
 *
 * - every key is snake_case, at every depth;
 * - every instant (a field named `at`, `*_at`, `since`, `until`, `valid_from`, `valid_to`) is null
 *   or ISO 8601 with an offset;
 * - every error is one line `{"error": {"code", "message", "fix", "details"?}}` on stdout, with
 *   `error CODE` and `fix:` on stderr and a non-zero exit, from every verb (`discord` and `think`
 *   included);
 * - the terminal's `--json` lines have the same keys offline and online;
 * - the walk covers the whole CLI: every verb and sub-verb of the program (read from the program
 *   itself, not listed here) is run at least once, and every group that takes a sub-verb
 *   (`keel models`, `keel service`, `keel config`) is run without one and fails with
 *   `INVALID_INPUT`. A verb added to the CLI fails this file until the walk runs it.
 *
 * The store is seeded first (beliefs, history, a conflict, a capped confidence, a withheld secret,
 * requests to forget, a stale flag, a capture failure, an import, a recovery line) so the arrays the
 * walk goes through are not empty: an empty array fails the walk unless the verb names it as one
 * that may be empty here.
 *
 * The schema is written here on its own, not imported from `@keel/host`: it states the contract a
 * second time, so a change to the printer cannot quietly change what is checked.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepForRecovery } from '@keel/host';
import { MemoryStore } from '@keel/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../apps/cli/src/config.js';
import { buildProgram } from '../../apps/cli/src/program.js';
import { MINILM } from '../../packages/memory/src/embed/minilm.js';
import { writeTinyBertModel } from '../../packages/memory/src/embed/testkit.js';
import { FIXTURES, runCli } from '../support/cli.js';
import { FakeAnthropic } from '../support/fake-anthropic.js';
import { FakeDiscord } from '../support/fake-discord.js';
import { refusedPort, startFakeHub } from '../support/fake-hub.js';
import { type FakeOllama, startFakeOllama } from '../support/fake-ollama.js';

// ------------------------------------------------------------------------------------------------
// The schema

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const isTimeField = (key: string) =>
  key === 'at' ||
  key.endsWith('_at') ||
  key === 'since' ||
  key === 'until' ||
  key === 'valid_from' ||
  key === 'valid_to';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** 2000-01-01 and 2100-01-01 in ms since the epoch: a whole number between them is an instant. */
const INSTANT_MS_FROM = Date.UTC(2000, 0, 1);
const INSTANT_MS_TO = Date.UTC(2100, 0, 1);

/** Any JSON value under the contract: snake_case keys, instants ISO with an offset. */
const contractJson: z.ZodType<Json> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(contractJson),
    z
      .record(z.string().regex(SNAKE_CASE, 'the key is not snake_case'), contractJson)
      .superRefine((object, ctx) => {
        for (const [key, value] of Object.entries(object)) {
          // An instant is never a bare number under another name (`"from": 1796083200000`): a
          // whole number of ms between 2000 and 2100 in a field not named as a duration or size.
          if (
            !isTimeField(key) &&
            typeof value === 'number' &&
            Number.isInteger(value) &&
            value >= INSTANT_MS_FROM &&
            value < INSTANT_MS_TO &&
            !/(?:_ms|bytes)$/.test(key)
          ) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `${value} reads as an instant in ms; name the field as a time (at, *_at, since, until) so it prints as ISO 8601`,
            });
          }
          if (!isTimeField(key) || value === null) continue;
          if (typeof value !== 'string' || !ISO_WITH_OFFSET.test(value)) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `a time field holds ${JSON.stringify(value)}, not ISO 8601 with an offset`,
            });
          }
        }
      }),
  ]),
);

/** An error as every verb prints it with `--json`. */
const errorBody = z.strictObject({
  code: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
  message: z.string().min(1),
  fix: z.string().min(1),
  details: contractJson.optional(),
});
const errorLine = z.strictObject({ error: errorBody });

/**
 * Where the contract is broken in `value`, as readable lines. zod reports a failed union as a
 * whole, so the walk names the exact path first and zod then judges each node.
 */
function contractProblems(value: unknown): string[] {
  const problems: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        walk(x, `${path}[${i}]`);
      });
      return;
    }
    if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    }
    const own = contractJson.safeParse(
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, isTimeField(k) ? x : null]))
        : Array.isArray(v)
          ? []
          : v,
    );
    if (!own.success) problems.push(`${path}: ${z.prettifyError(own.error)}`);
  };
  walk(value, '$');
  const whole = contractJson.safeParse(value);
  if (!whole.success && problems.length === 0) problems.push(z.prettifyError(whole.error));
  return problems;
}

/** The paths of empty arrays in `value`, with indexes written `[]` (`$.results[].supports`). */
function emptyArrays(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [path];
    return [...new Set(value.flatMap((x) => emptyArrays(x, `${path}[]`)))];
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, x]) => emptyArrays(x, `${path}.${k}`));
  }
  return [];
}

/** Every time field met in `value` that holds an instant: `created_at`, `valid_from`, … */
function instantsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const x of value) instantsIn(x, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, x] of Object.entries(value)) {
      if (isTimeField(k) && typeof x === 'string') out.add(k);
      instantsIn(x, out);
    }
  }
  return out;
}

/** The keys at every depth, as paths with `[]` for indexes: the shape of a value. */
function shape(value: unknown, path = '$', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const x of value) shape(x, `${path}[]`, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, x] of Object.entries(value)) {
      out.add(`${path}.${k}`);
      shape(x, `${path}.${k}`, out);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Running the CLI

interface Run {
  args: string[];
  status: number | null;
  stdout: string;
  stderr: string;
}

let home: string;
let damaged: string;
let scratch: string;
let anthropic: FakeAnthropic;
let ollama: FakeOllama;
const closers: (() => Promise<void> | void)[] = [];
/** Every instant field seen across the walk (the walk must meet real times, not only nulls). */
const seenInstants = new Set<string>();

/** The environment of every run: offline chat, Ollama's embedder on the fake. */
function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    KEEL_CHAT_PROVIDER: 'offline',
    KEEL_EMBEDDER: 'ollama',
    OLLAMA_HOST: ollama.url,
    DISCORD_TOKEN: '',
    KEEL_DISCORD_OWNER_ID: '',
    ...extra,
  };
}

/** The environment of a run with the fake Anthropic model. */
const online = (extra: Record<string, string> = {}) => ({
  KEEL_CHAT_PROVIDER: 'anthropic',
  ANTHROPIC_API_KEY: 'test-key',
  ANTHROPIC_BASE_URL: anthropic.baseURL,
  KEEL_MODEL: 'claude-test',
  ...extra,
});

/** The arguments of every run of the walk, for the check that it covers the whole CLI. */
const ran: string[][] = [];
/** The arguments of every {@link walk}: a verb run to success and its document checked. */
const walkedArgs: string[][] = [];

/**
 * Verbs that cannot succeed in this walk, with why: each is run to its failure (`failing`) and its
 * success is tested where it can happen.
 */
const ONLY_FAILS: Record<string, string> = {
  setup: 'asks a person at a terminal (tests/e2e/setup*.test.ts drive it)',
  discord: 'runs until stopped (tests/e2e/discord.test.ts)',
  web: 'runs until stopped (tests/e2e/web.test.ts)',
  'discord pair': 'waits for the owner to DM a code (tests/e2e/discord-pairing.test.ts)',
  mcp: 'serves MCP on stdio until its client closes it (tests/e2e/mcp-server.test.ts)',
};

/** Runs `keel <args>` without blocking this process (the fakes answer from it). */
async function keel(args: string[], env: Record<string, string> = {}, input = ''): Promise<Run> {
  ran.push(args);
  const { status, stdout, stderr } = await runCli(args, baseEnv(env), input);
  return { args, status, stdout, stderr };
}

/**
 * Runs a verb that succeeds, walks its `--json` document through the schema, and fails on an empty
 * array not named in `mayBeEmpty` (paths as {@link emptyArrays} writes them).
 */
async function walk(
  args: string[],
  options: { env?: Record<string, string>; mayBeEmpty?: string[]; status?: number } = {},
): Promise<Record<string, unknown>> {
  walkedArgs.push(args);
  const r = await keel([...args, '--json'], options.env);
  const label = `keel ${args.join(' ')} --json`;
  expect(r.status, `${label}\n${r.stderr}`).toBe(options.status ?? 0);
  const value = JSON.parse(r.stdout) as Record<string, unknown>;
  checkDocument(label, value, options.mayBeEmpty ?? []);
  return value;
}

/** The schema, the empty-array rule and the instants of one document. */
function checkDocument(label: string, value: unknown, mayBeEmpty: string[]): void {
  expect(contractProblems(value), label).toEqual([]);
  expect(contractJson.safeParse(value).success, label).toBe(true);
  expect(
    emptyArrays(value).filter((p) => !mayBeEmpty.includes(p)),
    `${label}: empty arrays (seed them, or name them as allowed to be empty)`,
  ).toEqual([]);
  for (const k of instantsIn(value)) seenInstants.add(k);
}

/** Runs a verb that fails and checks the one error line, stderr and the exit code. */
async function failing(
  args: string[],
  code: string,
  options: { env?: Record<string, string>; status?: number; input?: string } = {},
): Promise<void> {
  const r = await keel([...args, '--json'], options.env, options.input);
  const label = `keel ${args.join(' ')} --json`;
  expect(r.status, `${label}\n${r.stderr}`).toBe(options.status ?? 2);
  const lines = r.stdout.trim().split('\n');
  expect(lines, `${label}: one line on stdout`).toHaveLength(1);
  const parsed = errorLine.safeParse(JSON.parse(lines[0]!));
  expect(parsed.success, `${label}: ${parsed.success ? '' : z.prettifyError(parsed.error)}`).toBe(
    true,
  );
  expect(contractProblems(JSON.parse(lines[0]!)), label).toEqual([]);
  expect(parsed.data!.error.code, label).toBe(code);
  expect(r.stderr, label).toContain(`error ${code}: `);
  expect(r.stderr, label).toContain('fix: ');
}

/** The terminal's `--json` lines for `input`. */
async function terminalLines(input: string[], env: Record<string, string> = {}) {
  const r = await keel(['--json'], env, `${input.join('\n')}\n`);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'keel-contract-'));
  damaged = mkdtempSync(join(tmpdir(), 'keel-contract-damaged-'));
  scratch = mkdtempSync(join(tmpdir(), 'keel-contract-scratch-'));
  anthropic = await FakeAnthropic.start();
  ollama = await startFakeOllama();
  closers.push(
    () => anthropic.close(),
    () => ollama.close(),
    () => rmSync(home, { recursive: true, force: true }),
    () => rmSync(damaged, { recursive: true, force: true }),
    () => rmSync(scratch, { recursive: true, force: true }),
  );
  // A damaged database: a real one with pages in the middle overwritten.
  const store = MemoryStore.openHome(damaged);
  for (let i = 0; i < 200; i++) {
    store.remember({
      kind: 'note',
      key: `n${i}`,
      value: `value number ${i} `.repeat(40),
      source: 'owner_stated',
    });
  }
  store.close();
  const path = join(damaged, 'keel.db');
  const bytes = readFileSync(path);
  bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
  writeFileSync(path, bytes);
});

afterAll(async () => {
  while (closers.length) await closers.pop()!();
});

/** Ids kept between the steps below. */
const ids: Record<string, number> = {};

describe('the schema', () => {
  it('rejects what the contract forbids, and passes its control', () => {
    const good = {
      run_id: 1,
      created_at: '2026-12-01T22:30:00.000Z',
      valid_from: '2026-12-01T23:30:00.000+01:00',
      valid_to: null,
      copy_ms: 22,
      night: '2026-11-30',
      writes: [{ fact: { last_seen_at: '2026-12-01T22:30:00.000Z' } }],
    };
    expect(contractProblems(good)).toEqual([]);
    expect(contractProblems({ ...good, runId: 1 })).not.toEqual([]);
    expect(contractProblems({ ...good, writes: [{ fact: { lastSeenAt: 'x' } }] })).not.toEqual([]);
    expect(contractProblems({ ...good, created_at: 1796164200000 })).not.toEqual([]);
    expect(contractProblems({ ...good, valid_to: '2026-12-01T22:30:00.000' })).not.toEqual([]);
    expect(contractProblems({ ...good, writes: [{ at: '2026-11-30' }] })).not.toEqual([]);
    expect(emptyArrays({ a: [], b: [{ c: [] }, { c: [1] }] })).toEqual(['$.a', '$.b[].c']);
    expect(
      errorLine.safeParse({ error: { code: 'NOT_FOUND', message: 'm', fix: 'f' } }).success,
    ).toBe(true);
    expect(errorLine.safeParse({ error: { code: 'NOT_FOUND', message: 'm' } }).success).toBe(false);
    expect(errorLine.safeParse({ error: 'NOT_FOUND' }).success).toBe(false);
  });
});

describe('every verb prints --json under one contract', () => {
  it('seeds memory through the verbs, walking each output', { timeout: 900_000 }, async () => {
    const hubFolder = await writeTinyBertModel(scratch, MINILM);
    const hub = await startFakeHub(MINILM.id, hubFolder, { sha: 'a'.repeat(40) });
    closers.push(() => hub.close());
    await walk(['models', 'pull'], { env: { KEEL_HF_ENDPOINT: hub.url } });
    await walk(['models', 'list']);
    // The runtime `models pull` installed: there already.
    expect(await walk(['models', 'runtime'])).toMatchObject({ installed: true });

    const coffee = await walk([
      'remember',
      'preference/coffee',
      'oat',
      'flat',
      'white',
      '--valid-from',
      '2025-03-01',
    ]);
    expect(coffee).toMatchObject({
      decision: 'create',
      fact: { valid_from: '2025-03-01T00:00:00.000Z' },
      confidence_capped: null,
    });
    const conflict = await walk([
      'remember',
      'preference/coffee',
      'black',
      '--source',
      'inferred',
      '--confidence',
      '0.95',
    ]);
    expect(conflict).toMatchObject({
      decision: 'conflict',
      confidence_capped: { asked: 0.95, stored: 0.7, why: expect.stringContaining('0.7') },
    });
    ids.pending = (conflict.fact as { id: number }).id;
    const commute = await walk([
      'remember',
      'fact/commute',
      'bikes',
      'to',
      'work',
      '--source',
      'observed',
    ]);
    ids.commute = (commute.fact as { id: number }).id;
    await walk(['remember', 'project/current_project', 'Heron', '--valid-from', '2026-06-01']);
    const earlier = await walk([
      'remember',
      'project/current_project',
      'Falcon',
      '--valid-from',
      '2025-01-15',
    ]);
    expect(earlier).toMatchObject({ decision: 'history', fact: { valid_to: expect.any(String) } });
    ids.tea = (
      (await walk(['remember', 'preference/tea', 'black', 'tea'])).fact as { id: number }
    ).id;
    ids.juice = (
      (await walk(['remember', 'preference/juice', 'orange', 'juice'])).fact as { id: number }
    ).id;
    const withheld = await walk(['remember', 'fact/wifi_password', 'sunshine'], {
      mayBeEmpty: [],
    });
    expect(withheld).toMatchObject({ decision: 'withheld', secret: 'password', fact: null });

    await walk(['import', join(FIXTURES, 'locomo/conv-26.json'), '--format', 'locomo'], {
      mayBeEmpty: ['$.skipped'],
    });

    // A turn offline: the secret is withheld and said.
    const secret = await walk(['ask', 'remember that my wifi password is sunshine'], {
      mayBeEmpty: ['$.facts_used'],
    });
    expect(secret).toMatchObject({ provider: 'offline', turn_id: null, withheld: ['password'] });
    // A turn offline that recalls.
    await walk(['ask', 'what coffee do I drink?'], { mayBeEmpty: ['$.writes', '$.withheld'] });
    // A reminder asked for in words, offline: listed, then cancelled.
    await walk(['ask', 'remind me in two hours to stretch'], {
      mayBeEmpty: ['$.writes', '$.withheld', '$.facts_used'],
    });
    const listed = await walk(['reminders']);
    const reminder = (listed.reminders as { id: number; text: string }[])[0]!;
    expect(reminder.text).toBe('stretch');
    expect(await walk(['reminders', 'cancel', `r${reminder.id}`])).toMatchObject({
      cancelled: true,
    });
    // The model's tools: a policy set, the list (no MCP server, no standing answer yet), the log.
    expect(await walk(['tools', 'allow', 'fetch_url'])).toMatchObject({ policy: 'allow' });
    expect(await walk(['tools', 'ask', 'fetch_url'])).toMatchObject({ policy: 'ask' });
    expect(await walk(['tools', 'deny', 'mcp:nothing'])).toMatchObject({ policy: 'deny' });
    const tools = await walk(['tools'], { mayBeEmpty: ['$.mcp_servers', '$.grants'] });
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toContain('shell');
    await walk(['tools', 'log'], { mayBeEmpty: ['$.calls'] });
    expect(await walk(['tools', 'revoke', '--tool', 'shell'])).toEqual({ revoked: 0 });
    // A turn with the model.
    anthropic.reply('I will remember that your sister is Ada.');
    const turn = await walk(['ask', "remember that my sister's name is Ada"], {
      env: online(),
      mayBeEmpty: ['$.withheld'],
    });
    expect(turn).toMatchObject({ provider: 'anthropic', turn_id: expect.any(Number) });

    // What only another door or the think service makes: requests to forget, a stale belief, a
    // failed capture, a line kept while the database was damaged.
    const store = MemoryStore.openHome(home);
    store.requestForget(ids.tea, { actor: 'model', why: 'the owner quit tea' });
    store.requestForget(ids.juice, { actor: 'model', why: 'the owner said juice is too sweet' });
    const episode = store.addEpisode({
      kind: 'conversation',
      channel: 'terminal',
      role: 'owner',
      text: 'remember that my locker code is … (a capture that failed)',
    });
    store.recordCaptureFailure(episode.id, 'TOO_LARGE', 'value is 5000 characters');
    // A pending question: something the owner said may end the coffee belief.
    const said = store.addEpisode({
      kind: 'conversation',
      channel: 'terminal',
      role: 'owner',
      text: 'no more oat flat whites for me',
    });
    ids.question = store.ask((coffee.fact as { id: number }).id, {
      actor: 'reflection',
      said: 'no more oat flat whites for me',
      episodeId: said.id,
    }).question.id;
    store.close();
    const later = MemoryStore.openHome(home, { now: () => Date.now() + 400 * 86_400_000 });
    expect(later.flagStaleBeliefs().length).toBeGreaterThan(0);
    later.close();
    keepForRecovery(home, { channel: 'terminal', text: 'the line said while it was damaged' });
  });

  it('reads, corrects and reports, walking each output', { timeout: 900_000 }, async () => {
    await walk(['review'], {});
    await walk(['recall', 'coffee'], { mayBeEmpty: ['$.results[].supports'] });
    const episodes = await walk(['recall', 'Caroline', 'support', 'group', '--type', 'episode'], {
      mayBeEmpty: ['$.results[].supports'],
    });
    expect(episodes.mode).toBe('hybrid');
    await walk(['recall', 'project', '--as-of', '2025-06-01'], {
      mayBeEmpty: ['$.results[].supports'],
    });
    // A question naming a day: its window's ends are instants too.
    const dated = await walk(['recall', 'what', 'coffee', 'did', 'I', 'mention', 'last', 'week'], {
      mayBeEmpty: ['$.results[].supports'],
    });
    expect(dated.window).toMatchObject({ phrase: 'last week', since: expect.any(String) });
    await walk(['history', 'project/current_project']);
    const why = await walk(['why', String(ids.pending)], { mayBeEmpty: ['$.unexplained'] });
    expect(why.changes).toContainEqual(expect.objectContaining({ actor: 'owner' }));
    const beliefs = await walk(['beliefs'], { mayBeEmpty: ['$.unexplained'] });
    expect(beliefs.beliefs).toContainEqual(expect.objectContaining({ status: 'pending' }));
    await walk(['beliefs', '--source', 'owner_stated', '--sort', 'confidence'], {
      mayBeEmpty: ['$.unexplained'],
    });
    // The memory taken out, to stdout and to a file; the file brought into an empty home, once.
    const exported = await walk(['export', '--include', 'episodes'], {
      mayBeEmpty: ['$.tombstones'],
    });
    expect(exported).toMatchObject({ format: 'keel-export', version: 1 });
    const exportFile = join(scratch, 'export.json');
    expect(await walk(['export', '--out', exportFile])).toMatchObject({ episodes: null });
    const moved = mkdtempSync(join(tmpdir(), 'keel-contract-moved-'));
    closers.push(() => rmSync(moved, { recursive: true, force: true }));
    await walk(['import', exportFile, '--no-embed'], { env: { KEEL_HOME: moved } });
    await failing(['import', exportFile], 'STORE_NOT_EMPTY');
    const answered = await walk(['answer', `q${ids.question}`, 'no']);
    expect(answered).toMatchObject({ answer: 'no', fact: { status: expect.any(String) } });
    const confirmed = await walk(['confirm', String(ids.pending)]);
    expect(confirmed.superseded).not.toBeNull();
    await walk(['reject', String(ids.commute)]);
    await walk(['keep', String(ids.tea)]);
    await walk(['forget', String(ids.juice), '--purge', '--yes'], {
      mayBeEmpty: [
        '$.other_slots',
        '$.erased_facts',
        '$.mentions.retracted',
        '$.mentions.tombstones',
        '$.backups', // no backup made yet in this home
      ],
    });
    await walk(['purge', 'oat', 'flat', 'white', '--yes'], {
      mayBeEmpty: ['$.found.beliefs', '$.receipt.retracted', '$.backups'],
    });
    const think = await walk(['think', '--once'], {
      mayBeEmpty: ['$.rejected', '$.night.rejected', '$.skipped'],
    });
    expect(think.run_id).toEqual(expect.any(Number));
    await walk(['verify'], { mayBeEmpty: ['$.journal.breaks', '$.problems'] });
    await walk(['reindex'], {});
    const backup = await walk(['backup']);
    const doctor = await walk(['doctor'], { mayBeEmpty: ['$.unexplained', '$.journal.problems'] });
    expect(doctor).toMatchObject({
      think: { last_tick: { at: expect.any(String) } },
      backup: { at: expect.any(String) },
    });
    await walk(['recover']);
    await walk(['restore', String(backup.path), '--force']);
    // The settings, and the services (rendered only: --dry-run, and status in a scratch home).
    await walk(['config', 'set', 'time_zone', 'Europe/Berlin']);
    await walk(['config', 'get', 'time_zone']);
    await walk(['config', 'list'], { mayBeEmpty: ['$.file.problems'] });
    expect(await walk(['config', 'unset', 'time_zone'])).toMatchObject({ removed: true });
    const services = { env: { HOME: scratch, XDG_CONFIG_HOME: join(scratch, '.config') } };
    await walk(['service', 'install', 'think', '--dry-run'], {
      ...services,
      mayBeEmpty: ['$.notes', '$.services'],
    });
    await walk(['service', 'status', 'think'], {
      ...services,
      mayBeEmpty: ['$.services[].log_lines', '$.notes'],
    });
    // Nothing was installed in the scratch home: nothing to remove, and it says so.
    const uninstall = await walk(['service', 'uninstall', 'think', '--dry-run'], {
      ...services,
      mayBeEmpty: ['$.removed', '$.commands', '$.notes'],
    });
    expect(uninstall).toMatchObject({ dry_run: true, absent: ['think'] });
    // A damaged database: doctor still reports (exit 1), under the same contract.
    await walk(['doctor'], { env: { KEEL_HOME: damaged }, status: 1 });

    // The walk met real instants, not only nulls.
    for (const k of [
      'created_at',
      'last_seen_at',
      'valid_from',
      'valid_to',
      'requested_at',
      'occurred_at',
      'at',
    ]) {
      expect([...seenInstants], k).toContain(k);
    }
  });

  it("the terminal's --json lines have one shape offline and online", {
    timeout: 300_000,
  }, async () => {
    const offline = await terminalLines([
      'remember that I love sushi',
      'my pin is 4921',
      '/recall sushi',
    ]);
    anthropic.reply('Noted: you love ramen.');
    anthropic.reply('Sorry, I did not keep that.');
    const withModel = await terminalLines(
      ['remember that I love ramen', 'my passcode is 4921'],
      online(),
    );
    const all = [...offline, ...withModel];
    for (const [i, line] of all.entries()) {
      checkDocument(`terminal line ${i}`, line, ['$.writes', '$.withheld', '$.facts_used']);
    }
    // Same keys at the top level on every line, and the same keys in every write.
    const top = (l: Record<string, unknown>) => Object.keys(l).sort();
    for (const line of all) expect(top(line)).toEqual(top(offline[0]!));
    const writes = (l: Record<string, unknown>) =>
      [...shape(l)].filter((p) => p.startsWith('$.writes[]')).sort();
    expect(writes(withModel[0]!)).toEqual(writes(offline[0]!));
    expect(withModel[0]!.writes).toEqual([expect.objectContaining({ decision: 'create' })]);
    expect(offline[1]!.withheld).toEqual(['pin']);
    expect(withModel[1]!.withheld).toEqual(['pin']);
    expect(offline[0]!).toMatchObject({ provider: 'offline', turn_id: null, error: null });
    expect(withModel[0]!).toMatchObject({ provider: 'anthropic', turn_id: expect.any(Number) });
  });
});

describe('every verb prints an error the same way, and exits non-zero', () => {
  it('one error line per verb, with its code and fix', { timeout: 900_000 }, async () => {
    const refused = await refusedPort();
    await failing(['remember', 'nokind/x', 'y'], 'INVALID_INPUT');
    await failing(['ask', 'hello'], 'MODEL_UNAVAILABLE', {
      env: { KEEL_CHAT_PROVIDER: 'ollama', OLLAMA_HOST: `http://127.0.0.1:${refused}` },
    });
    await failing(['recall', ' '], 'INVALID_INPUT');
    await failing(['history', 'nokind/x'], 'INVALID_INPUT');
    await failing(['beliefs', '--kind', 'nokind'], 'INVALID_INPUT');
    await failing(['why', 'f99999'], 'NOT_FOUND');
    await failing(['forget', 'abc'], 'INVALID_INPUT');
    await failing(['keep', '99999'], 'NOT_FOUND');
    await failing(['answer', 'q99999', 'yes'], 'NOT_FOUND');
    await failing(['review', '--threshold', '2'], 'INVALID_INPUT');
    await failing(['confirm', 'f99999'], 'NOT_FOUND');
    await failing(['reject', 'f99999'], 'NOT_FOUND');
    await failing(['reminders', 'cancel', 'r99999'], 'NOT_FOUND');
    await failing(['tools', 'revoke', 'g99999'], 'NOT_FOUND');
    await failing(['tools', 'revoke'], 'INVALID_INPUT');
    await failing(['tools', 'allow', 'not a name'], 'INVALID_INPUT');
    await failing(['purge', 'anything', 'at', 'all'], 'CONFIRMATION_REQUIRED');
    await failing(
      ['import', join(scratch, 'missing.json'), '--format', 'locomo'],
      'FILE_UNREADABLE',
    );
    await failing(['verify'], 'DB_CORRUPT', { env: { KEEL_HOME: damaged } });
    await failing(['doctor'], 'CONFIG_INVALID', { env: { KEEL_EMBEDDER: 'bogus' } });
    await failing(['backup'], 'DB_CORRUPT', { env: { KEEL_HOME: damaged } });
    await failing(['restore', join(scratch, 'missing.db')], 'FILE_UNREADABLE');
    keepForRecovery(damaged, { channel: 'terminal', text: 'said while it was damaged' });
    await failing(['recover'], 'DB_CORRUPT', { env: { KEEL_HOME: damaged } });
    await failing(['models', 'pull', 'bogus'], 'INVALID_INPUT');
    await failing(['models', 'list'], 'CONFIG_INVALID', { env: { KEEL_TZ: 'Mars/Olympus' } });
    await failing(['reindex'], 'EMBEDDER_UNAVAILABLE', { env: { KEEL_EMBEDDER: 'none' } });
    await failing(['think', '--curate'], 'INVALID_INPUT');
    await failing(['think', '--once'], 'DB_CORRUPT', { env: { KEEL_HOME: damaged } });
    await failing(['mcp'], 'DB_CORRUPT', { env: { KEEL_HOME: damaged } });
    await failing(['discord'], 'CONFIG_INVALID', {
      env: { DISCORD_TOKEN: 'test-token', KEEL_DISCORD_OWNER_ID: '' },
    });
    // No Discord to reach: the connection failure has a code and a fix too (exit 1: a service
    // manager tries again).
    await failing(['discord'], 'DISCORD_UNAVAILABLE', {
      status: 1,
      env: {
        DISCORD_TOKEN: 'test-token',
        KEEL_DISCORD_OWNER_ID: '123456789012345678',
        KEEL_DISCORD_API_URL: `http://127.0.0.1:${refused}/api`,
      },
    });
    await failing(['web'], 'CONFIG_INVALID', { env: { KEEL_TZ: 'Mars/Olympus' } });
    await failing(['web', '--port', '70000'], 'INVALID_INPUT');
    await failing(['discord', 'pair'], 'CONFIG_INVALID', { env: { DISCORD_TOKEN: '' } });
    await failing(['discord', 'invite'], 'CONFIG_INVALID', { env: { DISCORD_TOKEN: '' } });
    const discord = await FakeDiscord.start();
    try {
      await walk(['discord', 'invite'], {
        env: { DISCORD_TOKEN: 'test-token', KEEL_DISCORD_API_URL: discord.apiUrl },
        mayBeEmpty: ['$.problems'],
      });
    } finally {
      await discord.close();
    }
    // Setup asks a person: without a terminal it asks nothing.
    await failing(['setup'], 'SETUP_NEEDS_TERMINAL');
    await failing(['no-such-verb'], 'INVALID_INPUT');
  });

  it('a group given no sub-verb: one error line naming its sub-verbs, exit 2', {
    timeout: 300_000,
  }, async () => {
    const cli = await commandTree();
    expect(cli.groups.length, 'the CLI has groups (keel models, keel service, …)').toBeGreaterThan(
      0,
    );
    for (const group of cli.groups) {
      await failing(group, 'INVALID_INPUT');
      const r = await keel([...group, '--json']);
      const { fix } = (JSON.parse(r.stdout) as { error: { fix: string } }).error;
      for (const sub of cli.verbs.filter((v) => v.length === group.length + 1)) {
        if (sub.slice(0, group.length).join(' ') === group.join(' ')) {
          expect(fix, `keel ${group.join(' ')} --json`).toContain(sub[sub.length - 1]!);
        }
      }
    }
  });

  it('the terminal on a damaged database: each line carries the error, and it exits 2', async () => {
    const r = await keel(['--json'], { KEEL_HOME: damaged }, 'a line to keep\n');
    expect(r.status).toBe(2);
    const [line] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    checkDocument('terminal line on damage', line, ['$.writes', '$.withheld', '$.facts_used']);
    expect(errorBody.safeParse(line!.error).success).toBe(true);
    expect(line).toMatchObject({
      error: { code: 'DB_CORRUPT' },
      recovery: expect.stringContaining('recovery.jsonl'),
    });
  });
});

// ------------------------------------------------------------------------------------------------
// The walk covers the whole CLI

/** A command of the program (commander's `Command`). */
type Command = Awaited<ReturnType<typeof buildProgram>>;

/** Commander's record of a command's own action (null: running it means "pick a sub-verb"). */
type WithAction = Command & { _actionHandler?: unknown };

/**
 * The CLI's commands as the program defines them (every verb module loaded), each as the words
 * typed after `keel`: `verbs` are the commands that run (`remember`, `models pull`, `discord`,
 * `discord pair`, …), `groups` the commands that only hold sub-verbs (`models`, `service`, …).
 */
async function commandTree(): Promise<{ verbs: string[][]; groups: string[][] }> {
  const program = await buildProgram(loadConfig({ KEEL_HOME: scratch }));
  const verbs: string[][] = [];
  const groups: string[][] = [];
  const visit = (cmd: Command, path: string[]) => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    expect('_actionHandler' in cmd, 'commander still records an action as _actionHandler').toBe(
      true,
    );
    const runs = (cmd as WithAction)._actionHandler != null;
    if (runs || subs.length === 0) verbs.push(path);
    else groups.push(path);
    for (const sub of subs) visit(sub, [...path, sub.name()]);
  };
  for (const cmd of program.commands) if (cmd.name() !== 'help') visit(cmd, [cmd.name()]);
  return { verbs, groups };
}

/** The command a run's arguments name: its words up to the first that is not a sub-verb. */
function commandOf(args: string[], tree: { verbs: string[][]; groups: string[][] }): string {
  const known = new Set([...tree.verbs, ...tree.groups].map((p) => p.join(' ')));
  const words: string[] = [];
  for (const a of args) {
    if (a.startsWith('-')) continue;
    if (!known.has([...words, a].join(' '))) break;
    words.push(a);
  }
  return words.join(' ');
}

describe('the walk covers the whole CLI', () => {
  it('every verb and sub-verb the program defines was run with --json, and every group bare', {
    timeout: 300_000,
  }, async () => {
    const tree = await commandTree();
    // The reading of the program is itself checked: verbs known to exist are found.
    expect(tree.verbs).toEqual(
      expect.arrayContaining([['remember'], ['models', 'pull'], ['think']]),
    );
    expect(tree.groups).toEqual(expect.arrayContaining([['models'], ['service'], ['config']]));
    const ranWithJson = new Set(
      ran.filter((args) => args.includes('--json')).map((a) => commandOf(a, tree)),
    );
    const succeeded = new Set(walkedArgs.map((a) => commandOf(a, tree)));
    const unwalked = [...tree.verbs, ...tree.groups]
      .map((p) => p.join(' '))
      .filter((name) => !ranWithJson.has(name));
    expect(
      unwalked.map((name) => `keel ${name}`),
      'verbs of the CLI the --json walk never ran: add a walk([...]) of each (what it prints on success) and a failing([...]) where it can fail, above',
    ).toEqual([]);
    // A verb only ever run to its failure had its success document checked by nothing.
    const neverSucceeded = tree.verbs
      .map((p) => p.join(' '))
      .filter((name) => !succeeded.has(name) && !(name in ONLY_FAILS));
    expect(
      neverSucceeded.map((name) => `keel ${name}`),
      'verbs the walk only ran to a failure: add a walk([...]) of each, or name it in ONLY_FAILS with why',
    ).toEqual([]);
  });
});
