/**
 * The think service end to end: the built `keel think` (the bundled CLI spawning think.mjs beside it)
 * as real OS processes against a KEEL_HOME in a temporary folder, with OLLAMA_HOST pointing at a
 * closed port (so the pattern gate runs) and no model configured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ERROR_FIXES } from '@keel/errors';
import { anchorPathFor, MemoryStore } from '@keel/memory';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, tempHome } from '../support/cli.js';
import { FakeDiscord, user } from '../support/fake-discord.js';
import { startFakeOllama } from '../support/fake-ollama.js';

let closedPort: number;
let home: string;
let cleanup: () => void;
const children: ChildProcess[] = [];

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  closedPort = await freePort();
});
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  cleanup();
});

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    KEEL_CHAT_PROVIDER: '',
    OLLAMA_HOST: `http://127.0.0.1:${closedPort}`,
    DISCORD_TOKEN: '',
    KEEL_DISCORD_OWNER_ID: '',
    KEEL_TZ: 'UTC',
  };
}

/** A running `keel <args>` with its output so far. */
interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** Starts `keel <args>` asynchronously (never spawnSync: no deadlock with servers in this process). */
function keelStart(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...env(), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr?.on('data', (d) => {
    out.stderr += d;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  return { child, out, exited };
}

/** Runs `keel <args>` to completion. */
async function keelRun(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const r = keelStart(args, extraEnv);
  const status = await r.exited;
  return { status, ...r.out };
}

/** Waits until `check` holds (polling), or fails with what the process printed. */
async function until(check: () => boolean, what: string, r?: Running, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}\n${r ? `${r.out.stdout}\n${r.out.stderr}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lockFile = () => join(home, 'think.lock');

/**
 * Whether `pid` is a running process: signal 0 reaches it and, on Linux, it is not a zombie (an
 * orphan's exit is reaped by whoever adopted it, which in a container may be never).
 */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!existsSync('/proc/self')) return true; // no /proc (macOS): signal 0 reached it
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false; // gone between the two looks
  }
}

function seed() {
  const store = MemoryStore.open(join(home, 'keel.db'));
  try {
    store.addEpisode({ channel: 'terminal', role: 'owner', text: "I'm allergic to penicillin" });
    store.addEpisode({
      channel: 'terminal',
      role: 'assistant',
      text: 'Noted, thanks for telling me.',
    });
    store.addEpisode({ channel: 'terminal', role: 'owner', text: 'what time is it?' });
  } finally {
    store.close();
  }
}

describe('keel think', () => {
  it('--once --json runs one tick with the pattern gate when Ollama is down, and says so', async () => {
    seed();
    const r = await keelRun(['think', '--once', '--json']);
    expect(r.stderr).not.toContain('error ');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(report).toMatchObject({ gate: 'pattern', examined: 2 });
    expect(report.queued).toBe(1);
    for (const k of ['queued', 'proposed', 'written', 'interrupts', 'run_id']) {
      expect(typeof report[k]).toBe('number');
    }
    expect(Array.isArray(report.skipped)).toBe(true);
    expect(r.stderr).toContain('no model configured: reflection and the curator are skipped');
    expect(r.stderr).toContain('belief gate: pattern');
    expect(existsSync(lockFile())).toBe(false);

    // The run is recorded, and a second tick only looks at what is new.
    const again = await keelRun(['think', '--once', '--json']);
    expect(again.status).toBe(0);
    const second = JSON.parse(again.stdout.trim()) as Record<string, unknown>;
    expect(second).toMatchObject({ gate: 'pattern', examined: 0 });
    expect(second.run_id).not.toBe(report.run_id);

    // --once --curate runs the nightly curator now: with no model the queued turn waits, and the
    // rest of the night (decay, prune, dedupe, compaction) runs and reports its five counts.
    const night = await keelRun(['think', '--once', '--curate', '--json']);
    expect(night.status).toBe(0);
    const cur = JSON.parse(night.stdout.trim()) as {
      curated: Record<string, number>;
      skipped: string[];
    };
    expect(cur.curated).toEqual({
      added: 0,
      corroborated: 0,
      superseded: 0,
      conflicts: 0,
      pruned: 0,
    });
    expect(cur.skipped.join(' ')).toMatch(/curator: 1 queued turn\(s\) wait for a model/);
  });

  it('prints a human line without --json, and refuses a bad setting with exit 2', async () => {
    const ok = await keelRun(['think', '--once']);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^think run \d+: gate pattern, examined 0/);

    const bad = await keelRun(['think', '--once'], { KEEL_QUIET_HOURS: '25-7' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('error CONFIG_INVALID: KEEL_QUIET_HOURS "25-7"');
    expect(bad.stderr).toContain('fix: Fix the environment variable named above');
    expect(bad.stdout).toBe('');

    // A bad command line is still INVALID_INPUT, with the fix line about arguments.
    const args = await keelRun(['think', '--curate']);
    expect(args.status).toBe(2);
    expect(args.stderr).toContain('error INVALID_INPUT: --curate runs the nightly curator once');
    expect(args.stderr).toContain('fix: Check the arguments');
  });

  it('a second keel think while one runs exits 2 with a clear message; SIGTERM stops the first cleanly', async () => {
    const first = keelStart(['think', '--json']);
    await until(() => first.out.stdout.includes('"run_id"'), 'the first run', first);
    const holder = JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number };
    expect(holder.pid).toBeGreaterThan(0);

    const second = await keelRun(['think']);
    expect(second.status).toBe(2);
    expect(second.stderr).toContain(
      `error THINK_RUNNING: keel think is already running (PID ${holder.pid}`,
    );
    expect(second.stderr).toContain('fix: ');
    expect(second.stdout).toBe('');
    // the first still holds its lock
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual(holder);
    // keel doctor sees the running service and its last tick.
    const doc = await keelRun(['doctor', '--json']);
    const think = (JSON.parse(doc.stdout) as { think: Record<string, unknown> }).think;
    expect(think).toMatchObject({
      running: { pid: holder.pid },
      last_tick: { status: 'ok', gate: 'pattern' },
    });

    first.child.kill('SIGTERM'); // the CLI forwards it to the service
    expect(await first.exited).toBe(0);
    expect(first.out.stderr).toContain('SIGTERM: stopping');
    expect(existsSync(lockFile())).toBe(false);

    const after = await keelRun(['doctor', '--json']);
    expect((JSON.parse(after.stdout) as { think: { running: unknown } }).think.running).toBeNull();

    // Positive control: with the first gone, keel think runs.
    const third = await keelRun(['think', '--once', '--json']);
    expect(third.status).toBe(0);
    expect(JSON.parse(third.stdout.trim())).toMatchObject({ gate: 'pattern' });
  });

  it('stops gracefully when the keel CLI that started it is killed with SIGKILL (no orphan, no lock left)', async () => {
    const cli = keelStart(['think', '--json']);
    await until(() => cli.out.stdout.includes('"run_id"'), 'the first run', cli);
    const service = (JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number }).pid;
    expect(service).not.toBe(cli.child.pid);
    expect(running(service)).toBe(true);

    // Control: while the CLI lives, the service keeps running past several parent checks.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(running(service)).toBe(true);
    expect(existsSync(lockFile())).toBe(true);
    expect(cli.child.exitCode).toBeNull();
    expect(cli.out.stderr).not.toContain('is gone');

    const killedAt = Date.now();
    cli.child.kill('SIGKILL'); // no signal to forward: the service has to notice by itself
    // The service shares the CLI's stdout/stderr pipes, so 'close' comes once it has exited too.
    await cli.exited;
    // Within a bound, not forever (a busy machine gets a generous one).
    await until(() => !running(service), 'the service to exit', cli, 30_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(existsSync(lockFile())).toBe(false);
    expect(cli.out.stderr).toContain(
      `think: the keel process that started this one (PID ${cli.child.pid}) is gone: stopping`,
    );
    expect(cli.out.stderr).toContain('think: SIGTERM: stopping');
    expect(cli.out.stderr).toContain('think: stopped');

    // The stop was clean: the next keel think takes the lock without reclaiming it.
    const next = await keelRun(['think', '--once', '--json']);
    expect(next.status).toBe(0);
    expect(next.stderr).not.toContain('no longer running');
  });

  it('a damaged database stops keel think at start with DB_CORRUPT; an intact one runs (control)', async () => {
    const path = join(home, 'keel.db');
    const store = MemoryStore.open(path);
    for (let i = 0; i < 200; i++) {
      store.remember({
        kind: 'note',
        key: `n${i}`,
        value: `value number ${i} `.repeat(40),
        source: 'owner_stated',
      });
    }
    store.close();
    const ok = await keelRun(['think', '--once', '--json']);
    expect(ok.status).toBe(0);
    const bytes = readFileSync(path);
    bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
    writeFileSync(path, bytes);
    const r = await keelRun(['think', '--once']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error DB_CORRUPT/);
    expect(existsSync(lockFile())).toBe(false);
  });

  it('a damaged database at start is told to the owner by DM, with the way back', async () => {
    const discord = await FakeDiscord.start();
    try {
      const owner = discord.addUser(user('owner'));
      const path = join(home, 'keel.db');
      const store = MemoryStore.open(path);
      for (let i = 0; i < 200; i++) {
        store.remember({
          kind: 'note',
          key: `n${i}`,
          value: `value number ${i} `.repeat(40),
          source: 'owner_stated',
        });
      }
      store.close();
      const bytes = readFileSync(path);
      bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
      writeFileSync(path, bytes);
      const r = await keelRun(['think'], {
        DISCORD_TOKEN: 'test-token',
        KEEL_DISCORD_OWNER_ID: owner.id,
        KEEL_DISCORD_API_URL: discord.apiUrl,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/error DB_CORRUPT/);
      const dm = discord.posted(discord.dmChannel(owner.id)).map((m) => m.content);
      expect(dm).toHaveLength(1);
      expect(dm[0]).toMatch(/^keel think stopped: keel's database is damaged/);
      expect(dm[0]).toContain('keel restore <file>');
      expect(readFileSync(path).equals(bytes)).toBe(true);
    } finally {
      await discord.close();
    }
  });

  it('a journal cut off stops keel think with JOURNAL_BROKEN, and the DM says the journal and its fix, not damage', async () => {
    const discord = await FakeDiscord.start();
    try {
      const owner = discord.addUser(user('owner'));
      const path = join(home, 'keel.db');
      // An inferred belief from ninety days ago: tonight's curator decays it, a journaled write.
      const long = Date.now() - 90 * 86_400_000;
      const store = MemoryStore.open(path, { now: () => long });
      store.remember({ kind: 'preference', key: 'tea', value: 'green tea', source: 'inferred' });
      store.close();
      // The anchor beside the file records three entries more than the journal holds.
      const anchor = anchorPathFor(path);
      const head = JSON.parse(readFileSync(anchor, 'utf8')) as { seq: number };
      writeFileSync(anchor, JSON.stringify({ seq: head.seq + 3, hash: 'f'.repeat(64), at: long }));
      const r = await keelRun(['think', '--once', '--curate'], {
        DISCORD_TOKEN: 'test-token',
        KEEL_DISCORD_OWNER_ID: owner.id,
        KEEL_DISCORD_API_URL: discord.apiUrl,
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/error JOURNAL_BROKEN: the journal does not end where keel/);
      const dm = discord.posted(discord.dmChannel(owner.id)).map((m) => m.content);
      expect(dm).toHaveLength(1);
      expect(dm[0]).toMatch(
        /^keel think stopped: keel's journal does not match its anchor \(keel\.db\.anchor\): entries were written outside keel or cut off \(JOURNAL_BROKEN: the journal does not end where keel last wrote it/,
      );
      expect(dm[0]).toContain(`\nfix: ${ERROR_FIXES.JOURNAL_BROKEN}`);
      // The control, damaged pages, is said as damage (the test above); a broken journal is not.
      expect(dm[0]).not.toContain('damaged');
      expect(existsSync(lockFile())).toBe(false);
    } finally {
      await discord.close();
    }
  });

  it('binds the configured embedder to its store (recall is hybrid), and says so', async () => {
    const ollama = await startFakeOllama(); // the embed model only: the gate stays the pattern gate
    try {
      seed();
      const r = await keelRun(['think', '--once', '--json'], {
        KEEL_EMBEDDER: 'ollama',
        OLLAMA_HOST: ollama.url,
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('think: recall: hybrid (ollama nomic-embed-text)');
      expect(ollama.requests.some((q) => q.path === '/api/embed')).toBe(true);
    } finally {
      await ollama.close();
    }
    // Control: with no embedder reachable it runs lexical and says why.
    const lexical = await keelRun(['think', '--once', '--json']);
    expect(lexical.status).toBe(0);
    expect(lexical.stderr).toMatch(/think: recall: lexical \(.+\)/);
  });

  it('reclaims a lock left by a dead process', async () => {
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    const pid = dead.pid!;
    await new Promise((resolve) => dead.on('exit', resolve));
    writeFileSync(lockFile(), JSON.stringify({ pid, startedAt: Date.now() - 60_000 }));

    const r = await keelRun(['think', '--once', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`holder PID ${pid} is no longer running`);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ gate: 'pattern' });
    expect(existsSync(lockFile())).toBe(false);
  });
});
