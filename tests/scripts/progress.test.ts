/**
 * The live step line of `npm start`'s setup (scripts/progress.mjs), with a fake clock: on a
 * terminal one line rewritten in place each second, naming what pnpm is doing; elsewhere a plain
 * line every 20 seconds; nothing for a step that ends sooner.
 */
import { describe, expect, it } from 'vitest';
import {
  formatElapsed,
  LOG_EVERY_MS,
  pnpmPhase,
  progressLine,
  startProgress,
  TTY_EVERY_MS,
} from '../../scripts/progress.mjs';

/** A clock the test moves, and the one interval the line sets. */
function fakeClock() {
  let t = 1_000_000;
  let tick: (() => void) | null = null;
  let period = 0;
  let next = 0;
  let cleared = false;
  return {
    now: () => t,
    setInterval: (fn: () => void, ms: number) => {
      tick = fn;
      period = ms;
      next = t + ms;
      return 1;
    },
    clearInterval: () => {
      cleared = true;
    },
    /** Moves the clock on by `ms`, firing the interval when a timer would. */
    advance(ms: number) {
      const end = t + ms;
      while (tick && !cleared && next <= end) {
        t = next;
        next += period;
        tick();
      }
      t = end;
    },
    get cleared() {
      return cleared;
    },
  };
}

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { out, stream: { write: (s: string) => out.push(s), isTTY, columns: 100 } };
}

/** What pnpm install prints (piped) on a first install that compiles better-sqlite3. */
const PNPM = [
  'Scope: all 14 workspace projects',
  '? Verifying lockfile against supply-chain policies (264 entries)...',
  'Downloading @turbo/linux-64@2.11.11: 0.00 B/19.83 MB',
  'Progress: resolved 190, reused 0, downloaded 91, added 64',
  'Packages: +190',
  'Progress: resolved 190, reused 0, downloaded 190, added 190, done',
  '.../node_modules/better-sqlite3 install$ prebuild-install || node-gyp rebuild --release',
  '.../node_modules/better-sqlite3 install: prebuild-install warn install getaddrinfo ENOTFOUND github.com',
  '.../node_modules/better-sqlite3 install: gyp info it worked if it ends with ok',
  '.../node_modules/better-sqlite3 install:   CC(target) Release/obj.target/sqlite3/gen/sqlite3/sqlite3.o',
  '.../node_modules/better-sqlite3 install: Done',
];

describe('the setup progress line', () => {
  it('formats the elapsed time and the line', () => {
    expect(formatElapsed(0)).toBe('0s');
    expect(formatElapsed(7_900)).toBe('7s');
    expect(formatElapsed(72_000)).toBe('1m 12s');
    expect(formatElapsed(12 * 60_000 + 3_000)).toBe('12m 03s');
    expect(
      progressLine('keel setup:', 'installing dependencies', 72_000, 'better-sqlite3 compiling'),
    ).toBe('keel setup: installing dependencies… 1m 12s (better-sqlite3 compiling)');
    expect(progressLine('keel setup:', 'building keel', 3_000, null)).toBe(
      'keel setup: building keel… 3s',
    );
  });

  it("names pnpm's phase from its output", () => {
    const state = { phase: null as string | null };
    const phases = PNPM.map((line) => {
      const p = pnpmPhase(line, state);
      if (p) state.phase = p;
      return p;
    });
    expect(phases).toEqual([
      null,
      'checking the lockfile',
      null, // a download after the lockfile check says no more than that check
      'downloading packages: 64 of 190',
      null,
      'linking packages',
      'better-sqlite3 install script',
      'better-sqlite3 looking for a prebuilt binary',
      'better-sqlite3 compiling',
      'better-sqlite3 compiling',
      'better-sqlite3 built',
    ]);
    expect(pnpmPhase('Downloading gpt-tokenizer@4.0.0: 0.00 B/9.13 MB', {})).toBe(
      'downloading packages',
    );
    expect(pnpmPhase('.../node_modules/@scope/pkg postinstall$ node x.js', {})).toBe(
      '@scope/pkg postinstall script',
    );
    expect(pnpmPhase('.../node_modules/better-sqlite3 install: Failed', {})).toBe(
      'better-sqlite3 failed',
    );
  });

  it('on a terminal: one line rewritten in place each second, cleared when the step ends', () => {
    const clock = fakeClock();
    const { out, stream } = sink(true);
    const p = startProgress({
      prefix: 'keel setup:',
      label: 'installing dependencies',
      stream,
      ...clock,
    });
    clock.advance(500);
    expect(out).toEqual([]); // nothing for a step shorter than a tick
    clock.advance(500);
    expect(out).toEqual(['\r\x1b[Kkeel setup: installing dependencies… 1s']);
    // Output arrives in chunks that cut lines anywhere.
    const text = `${PNPM.join('\n')}\n`;
    const upTo = text.indexOf('install: gyp info') + 5;
    p.feed(text.slice(0, upTo));
    p.feed(Buffer.from(text.slice(upTo, text.indexOf('install: Done'))));
    clock.advance(71_000);
    expect(out).toHaveLength(72);
    expect(out.at(-1)).toBe(
      '\r\x1b[Kkeel setup: installing dependencies… 1m 12s (better-sqlite3 compiling)',
    );
    expect(out.every((s) => s.startsWith('\r\x1b[K') && !s.includes('\n'))).toBe(true);
    expect(p.stop()).toBe(72_000);
    expect(clock.cleared).toBe(true);
    expect(out.at(-1)).toBe('\r\x1b[K');
  });

  it('on a terminal the line is cut to its width (a wrapped line could not be rewritten)', () => {
    const clock = fakeClock();
    const { out, stream } = sink(true);
    startProgress({
      prefix: 'keel setup:',
      label: 'installing dependencies',
      stream,
      columns: 40,
      ...clock,
    }).phase('better-sqlite3 compiling');
    clock.advance(TTY_EVERY_MS);
    expect(out[0]).toBe('\r\x1b[Kkeel setup: installing dependencies… 1…');
    expect(out[0]!.length - 4).toBe(39);
  });

  it('not on a terminal: a plain line every 20 seconds, nothing to clear', () => {
    const clock = fakeClock();
    const { out, stream } = sink(false);
    const p = startProgress({
      prefix: 'keel setup:',
      label: 'installing dependencies',
      stream,
      ...clock,
    });
    expect(LOG_EVERY_MS).toBe(20_000);
    clock.advance(19_999);
    expect(out).toEqual([]);
    p.feed('.../node_modules/better-sqlite3 install: gyp info it worked if it ends with ok\n');
    clock.advance(70_000);
    expect(out).toEqual([
      'keel setup: installing dependencies… 20s (better-sqlite3 compiling)\n',
      'keel setup: installing dependencies… 40s (better-sqlite3 compiling)\n',
      'keel setup: installing dependencies… 1m 00s (better-sqlite3 compiling)\n',
      'keel setup: installing dependencies… 1m 20s (better-sqlite3 compiling)\n',
    ]);
    p.stop();
    expect(out).toHaveLength(4);
  });

  it('a step whose output says nothing (phases: null) shows the time alone', () => {
    const clock = fakeClock();
    const { out, stream } = sink(false);
    const p = startProgress({
      prefix: 'keel setup:',
      label: 'building keel',
      stream,
      phases: null,
      ...clock,
    });
    p.feed('Progress: resolved 1, reused 0, downloaded 1, added 1\n');
    clock.advance(20_000);
    expect(out).toEqual(['keel setup: building keel… 20s\n']);
    p.stop();
  });
});
