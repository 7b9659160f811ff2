import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_FIXES, KeelError } from '@keel/errors';
import type { BeliefGate } from '@keel/gate';
import { lockPath, parseLockInfo } from '@keel/host';
import { anchorPathFor, MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSession,
  formatReport,
  runService,
  type ServiceOptions,
  SHUTDOWN_SIGNALS,
  stoppedNotice,
  type ThinkSession,
  type Timer,
} from './service.js';
import type { RunReport, ThinkConfig, ThinkDeps } from './types.js';

const MIN = 60_000;
const INTERVAL = 15 * MIN;

/** A clock that only moves when the test says so. */
class FakeTimer implements Timer {
  t = 1_000_000;
  /** Every wait the loop asked for, ms. */
  readonly sleeps: number[] = [];
  private waiters: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve) => {
      if (signal.aborted || ms <= 0) return resolve();
      const waiter = { at: this.t + ms, resolve };
      this.waiters.push(waiter);
      signal.addEventListener(
        'abort',
        () => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        },
        { once: true },
      );
    });
  }
  /** Moves the clock and wakes the waits that are due. */
  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.waiters.filter((w) => w.at <= this.t);
    this.waiters = this.waiters.filter((w) => w.at > this.t);
    for (const w of due) w.resolve();
    await settle();
  }
}

/** Lets pending promise callbacks and I/O run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

function report(runId: number): RunReport {
  return {
    gate: 'pattern',
    examined: runId,
    queued: 0,
    proposed: 0,
    written: 0,
    curated: null,
    interrupts: 0,
    skipped: [],
    runId,
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

let home: string;
let timer: FakeTimer;
let signals: EventEmitter;
let logs: string[];
let events: string[];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keel-think-service-'));
  timer = new FakeTimer();
  signals = new EventEmitter();
  logs = [];
  events = [];
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Starts the service with a session whose ticks run `tick`. */
function start(
  tick: (signal: AbortSignal, n: number) => Promise<RunReport>,
  extra: Partial<ServiceOptions> = {},
) {
  let n = 0;
  const reports: RunReport[] = [];
  let opened = 0;
  const session: ThinkSession = {
    tick: (signal) => tick(signal, ++n),
    close: () => {
      events.push(`close (lock ${existsSync(lockPath(home)) ? 'held' : 'gone'})`);
    },
  };
  const done = runService({
    lockPath: lockPath(home),
    intervalMs: INTERVAL,
    open: () => {
      opened++;
      return session;
    },
    onReport: (r) => reports.push(r),
    log: (line) => logs.push(line),
    timer,
    signals,
    ...extra,
  });
  return { done, reports, opened: () => opened, ticks: () => n };
}

describe('the service loop', () => {
  it('ticks at once, then every interval measured from each tick start', async () => {
    const starts: number[] = [];
    const s = start(async (_signal, n) => {
      starts.push(timer.now());
      timer.t += 2 * MIN; // each run takes two minutes
      return report(n);
    });
    await settle();
    const t0 = starts[0]!;
    expect(starts).toEqual([t0]);
    expect(timer.sleeps).toEqual([13 * MIN]);

    await timer.advance(13 * MIN - 1);
    expect(starts).toHaveLength(1); // not yet
    await timer.advance(1);
    expect(starts).toEqual([t0, t0 + INTERVAL]);
    await timer.advance(13 * MIN);
    expect(starts).toEqual([t0, t0 + INTERVAL, t0 + 2 * INTERVAL]);

    signals.emit('SIGTERM');
    const result = await s.done;
    expect(result).toEqual({ ticks: 3, failures: 0, stoppedBy: 'SIGTERM', last: report(3) });
    expect(s.reports.map((r) => r.runId)).toEqual([1, 2, 3]);
    expect(starts).toHaveLength(3); // stopping while waiting starts no other run
  });

  it('never overlaps: a run longer than the interval delays the next, which then starts at once', async () => {
    let running = 0;
    let most = 0;
    const first = deferred<RunReport>();
    const s = start(async (_signal, n) => {
      running++;
      most = Math.max(most, running);
      try {
        return n === 1 ? await first.promise : report(n);
      } finally {
        running--;
      }
    });
    await settle();
    await timer.advance(INTERVAL);
    await timer.advance(3 * INTERVAL);
    expect(s.ticks()).toBe(1); // still the first run, however long it takes
    expect(timer.sleeps).toEqual([]);

    first.resolve(report(1));
    await settle();
    expect(s.ticks()).toBe(2); // overdue: started without waiting
    expect(timer.sleeps[0]).toBe(0);
    expect(most).toBe(1);

    signals.emit('SIGINT');
    expect((await s.done).ticks).toBe(2);
  });

  it.each(SHUTDOWN_SIGNALS)(
    '%s aborts the run in flight, waits for it to settle, closes the store, then releases the lock',
    async (sig) => {
      let seen: AbortSignal | null = null;
      const s = start(
        (signal) =>
          new Promise<RunReport>((_resolve, reject) => {
            seen = signal;
            signal.addEventListener('abort', () => {
              setTimeout(() => {
                events.push('run settled');
                reject(signal.reason);
              }, 20);
            });
          }),
      );
      await settle();
      // Positive control: running, holding the lock, handlers installed, nothing closed.
      expect(seen).not.toBeNull();
      expect(seen!.aborted).toBe(false);
      expect(parseLockInfo(readFileSync(lockPath(home), 'utf8'))?.pid).toBe(process.pid);
      expect(signals.listenerCount(sig)).toBe(1);
      expect(events).toEqual([]);

      signals.emit(sig);
      signals.emit(sig); // a second signal while stopping changes nothing
      expect(seen!.aborted).toBe(true);
      expect(KeelError.isInstance(seen!.reason) && seen!.reason.code).toBe('CANCELLED');

      const result = await s.done;
      expect(result).toEqual({ ticks: 0, failures: 0, stoppedBy: sig, last: null });
      expect(events).toEqual(['run settled', 'close (lock held)']);
      expect(existsSync(lockPath(home))).toBe(false);
      for (const other of SHUTDOWN_SIGNALS) expect(signals.listenerCount(other)).toBe(0);
      expect(logs).toContain(`think: ${sig}: stopping`);
      expect(logs).toContain(`think: ${sig}: already stopping`);
      expect(logs.join('\n')).not.toContain('error');
    },
  );

  it('logs a failed run and goes on with the next', async () => {
    const s = start(async (_signal, n) => {
      if (n === 1) throw new KeelError('BUSY', 'the database is locked');
      return report(n);
    });
    await settle();
    expect(logs).toContain('think: run failed: BUSY: the database is locked');
    expect(s.ticks()).toBe(1);
    await timer.advance(INTERVAL);
    expect(s.ticks()).toBe(2);
    signals.emit('SIGTERM');
    expect(await s.done).toMatchObject({ ticks: 1, failures: 1, last: report(2) });
  });

  it('a database that takes no writes stops the service instead of a retry next tick, logged as its error says', async () => {
    const journal = new KeelError(
      'JOURNAL_BROKEN',
      'the journal does not end where keel last wrote it (it ends at entry 6, the anchor records entry 9); keel writes nothing to it',
    );
    for (const [stop, code] of [
      [new KeelError('DB_CORRUPT', 'damaged'), 'DB_CORRUPT'],
      [
        Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }),
        'DB_CORRUPT',
      ],
      [journal, 'JOURNAL_BROKEN'],
    ] as const) {
      events.length = 0;
      logs.length = 0;
      const s = start(async (_signal, n) => {
        if (n === 2) throw stop;
        return report(n);
      });
      await settle();
      expect(s.ticks()).toBe(1);
      const stopped = expect(s.done).rejects.toMatchObject({ code });
      await timer.advance(INTERVAL);
      await stopped;
      expect(s.ticks()).toBe(2);
      expect(events).toEqual(['close (lock held)']);
      expect(existsSync(lockPath(home))).toBe(false);
      const said = logs.find((l) => l.includes(', stopping: '));
      if (code === 'DB_CORRUPT') {
        expect(said).toMatch(/^think: keel's database is damaged, stopping: DB_CORRUPT: /);
      } else {
        // A broken journal is not damaged pages: it is not worded as damage.
        expect(said).toBe(
          `think: keel's journal does not match its anchor (keel.db.anchor): entries were written outside keel or cut off, stopping: JOURNAL_BROKEN: ${journal.message}`,
        );
        expect(said).not.toContain('damaged');
      }
      expect(signals.listenerCount('SIGTERM')).toBe(0);
    }
  });

  it("the owner's DM follows the error: damage for DB_CORRUPT, the journal and its anchor for JOURNAL_BROKEN, each with its fix", () => {
    const damaged = stoppedNotice(
      new KeelError('DB_CORRUPT', '/home/k/keel.db is damaged (page 7)'),
    );
    expect(damaged).toBe(
      `keel think stopped: keel's database is damaged (DB_CORRUPT: /home/k/keel.db is damaged (page 7)). keel writes nothing to its database until it is restored; stop keel discord before you restore.\nfix: ${ERROR_FIXES.DB_CORRUPT}`,
    );
    const journal = new KeelError(
      'JOURNAL_BROKEN',
      'the journal does not end where keel last wrote it (it ends at entry 6, the anchor records entry 9); keel writes nothing to it',
    );
    const broken = stoppedNotice(journal)!;
    expect(broken).toBe(
      `keel think stopped: keel's journal does not match its anchor (keel.db.anchor): entries were written outside keel or cut off (JOURNAL_BROKEN: ${journal.message}). keel writes nothing to its database until it is restored; stop keel discord before you restore.\nfix: ${ERROR_FIXES.JOURNAL_BROKEN}`,
    );
    expect(broken).not.toContain('damaged');
    // SQLite's own corruption error is DB_CORRUPT; an error that does not stop writes says nothing.
    expect(
      stoppedNotice(Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' })),
    ).toMatch(/^keel think stopped: keel's database is damaged \(DB_CORRUPT: /);
    expect(stoppedNotice(new KeelError('BUSY', 'locked'))).toBeNull();
  });

  it('once: one run, its report, no wait, then closed and unlocked', async () => {
    const s = start(async (_signal, n) => report(n), { once: true });
    expect(await s.done).toEqual({ ticks: 1, failures: 0, stoppedBy: null, last: report(1) });
    expect(s.reports).toEqual([report(1)]);
    expect(timer.sleeps).toEqual([]);
    expect(events).toEqual(['close (lock held)']);
    expect(existsSync(lockPath(home))).toBe(false);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('once: a failed run is thrown, after closing and unlocking', async () => {
    const s = start(
      async () => {
        throw new KeelError('DB_CORRUPT', 'damaged');
      },
      { once: true },
    );
    await expect(s.done).rejects.toMatchObject({ code: 'DB_CORRUPT' });
    expect(events).toEqual(['close (lock held)']);
    expect(existsSync(lockPath(home))).toBe(false);
  });

  it('refuses to start while another live process holds the lock, opening nothing', async () => {
    const foreign = JSON.stringify({ pid: 4242, startedAt: Date.now() });
    writeFileSync(lockPath(home), foreign);
    const s = start(async (_signal, n) => report(n), {
      once: true,
      lock: { isAlive: (pid) => pid === 4242 },
    });
    await expect(s.done).rejects.toMatchObject({
      code: 'THINK_RUNNING',
      message: expect.stringContaining('PID 4242'),
    });
    expect(s.opened()).toBe(0);
    expect(readFileSync(lockPath(home), 'utf8')).toBe(foreign);
    expect(signals.listenerCount('SIGTERM')).toBe(0);

    // Positive control: the same lock from a dead PID is reclaimed and the run happens.
    const t = start(async (_signal, n) => report(n), {
      once: true,
      lock: { isAlive: () => false },
    });
    expect((await t.done).ticks).toBe(1);
    expect(t.opened()).toBe(1);
  });
});

describe('createSession', () => {
  const config: ThinkConfig = {
    intervalMin: 15,
    quietHours: null,
    tz: 'UTC',
    curateAt: 3,
    ollamaHost: 'http://127.0.0.1:1',
    gateModel: 'gate-model',
  };

  it('chooses the gate afresh every tick and passes the deps and the signal to the run', async () => {
    let closed = 0;
    const checks: boolean[] = [];
    const store = {
      close: () => closed++,
      checkIntegrity: (o: { full?: boolean }) => checks.push(Boolean(o.full)),
      recordSound: () => true,
    } as unknown as MemoryStore;
    const gates = [
      { name: 'ollama-gate' },
      { name: 'pattern-gate' },
      { name: 'pattern-gate-2' },
    ] as unknown as BeliefGate[];
    const whys = [
      'belief gate: ollama',
      'belief gate: pattern (no Ollama)',
      'belief gate: pattern (no Ollama)',
    ];
    const asked: unknown[] = [];
    const runs: { deps: ThinkDeps; options: unknown }[] = [];
    const log: string[] = [];
    const now = () => 42;
    const session = createSession({
      store,
      config,
      model: null,
      notify: null,
      now,
      log: (line) => log.push(line),
      chooseGate: async (o) => {
        asked.push(o);
        const i = asked.length - 1;
        return { gate: gates[i]!, why: whys[i]! };
      },
      run: async (deps, options) => {
        runs.push({ deps, options });
        return report(runs.length);
      },
      runOptions: { curate: 'now' },
    });
    const controller = new AbortController();
    expect(await session.tick(controller.signal)).toEqual(report(1));
    await session.tick(controller.signal);
    await session.tick(controller.signal);

    expect(asked).toEqual(Array(3).fill({ host: 'http://127.0.0.1:1', model: 'gate-model' }));
    expect(runs.map((r) => r.deps.gate)).toEqual(gates);
    expect(runs[0]!.deps).toMatchObject({ store, config, model: null, notify: null, now });
    expect(runs[0]!.deps.signal).toBe(controller.signal);
    expect(runs[0]!.options).toEqual({ curate: 'now' });
    // the choice is logged when it changes, not every tick
    expect(log).toEqual(['think: belief gate: ollama', 'think: belief gate: pattern (no Ollama)']);

    expect(closed).toBe(0);
    await session.close();
    expect(closed).toBe(1);
  });
});

describe('createSession over a real database', () => {
  const config: ThinkConfig = {
    intervalMin: 15,
    quietHours: null,
    tz: 'UTC',
    curateAt: 3,
    ollamaHost: 'http://127.0.0.1:1',
    gateModel: 'gate-model',
  };

  it('checks the file every tick: damage that comes while it runs stops the next tick before the run', async () => {
    const path = join(home, 'keel.db');
    const seed = MemoryStore.open(path);
    for (let i = 0; i < 200; i++) {
      seed.remember({
        kind: 'note',
        key: `n${i}`,
        value: `value number ${i} `.repeat(40),
        source: 'owner_stated',
      });
    }
    seed.close();
    const store = MemoryStore.open(path, { integrity: { check: 'full' } });
    let runs = 0;
    const session = createSession({
      store,
      config,
      model: null,
      notify: null,
      now: Date.now,
      chooseGate: async () => ({ gate: { name: 'g' } as unknown as BeliefGate, why: 'g' }),
      run: async (deps) => {
        runs++;
        deps.store.addEpisode({ channel: 'terminal', role: 'owner', text: `tick ${runs}` });
        return report(runs);
      },
    });
    const signal = new AbortController().signal;
    await session.tick(signal);
    await session.tick(signal);
    expect(runs).toBe(2);
    expect(store.lastIntegrityCheck?.how).toBe('full'); // the second tick read the whole file
    const bytes = readFileSync(path);
    bytes.fill(0xff, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 16_384);
    writeFileSync(path, bytes);
    await expect(session.tick(signal)).rejects.toMatchObject({ code: 'DB_CORRUPT' });
    expect(runs).toBe(2);
    expect(store.damaged).toBe(true);
    await session.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("a write that finds the journal cut off stops the tick with JOURNAL_BROKEN; the file's pages are not called damaged", async () => {
    const path = join(home, 'keel.db');
    const store = MemoryStore.open(path, { integrity: { check: 'full' } });
    let runs = 0;
    const session = createSession({
      store,
      config,
      model: null,
      notify: null,
      now: Date.now,
      chooseGate: async () => ({ gate: { name: 'g' } as unknown as BeliefGate, why: 'g' }),
      run: async (deps) => {
        runs++;
        deps.store.addEpisode({ channel: 'terminal', role: 'owner', text: `tick ${runs}` });
        return report(runs);
      },
    });
    const signal = new AbortController().signal;
    // Control: the intact store takes the tick's write.
    await session.tick(signal);
    expect(runs).toBe(1);
    // The anchor records three entries more than the journal holds: they were cut off.
    const anchor = JSON.parse(readFileSync(anchorPathFor(path), 'utf8')) as { seq: number };
    writeFileSync(
      anchorPathFor(path),
      JSON.stringify({ seq: anchor.seq + 3, hash: 'f'.repeat(64), at: Date.now() }),
    );
    await expect(session.tick(signal)).rejects.toMatchObject({ code: 'JOURNAL_BROKEN' });
    expect(runs).toBe(2);
    expect(store.damaged).toBe(false);
    await session.close();
  });
});

describe('formatReport', () => {
  it('summarises a run on one line', () => {
    expect(formatReport({ ...report(7), skipped: ['reflection: no model'] })).toBe(
      'think run 7: gate pattern, examined 7, queued 0, proposed 0, written 0, interrupts 0; curator did not run; skipped: reflection: no model',
    );
    expect(
      formatReport({
        ...report(8),
        gate: 'ollama',
        curated: { added: 2, corroborated: 1, superseded: 0, conflicts: 0, pruned: 3 },
      }),
    ).toBe(
      'think run 8: gate ollama, examined 8, queued 0, proposed 0, written 0, interrupts 0; curated: added 2, corroborated 1, superseded 0, conflicts 0, pruned 3',
    );
  });
});
