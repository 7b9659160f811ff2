// The live step line scripts/setup.mjs shows while a long step runs (installing the dependencies,
// compiling better-sqlite3, building), so that a first `npm start` never looks hung.
// Plain Node ESM with no dependencies (it runs before anything is installed).
//
// On a terminal it is one line rewritten in place every second, with the time the step has taken
// and, for pnpm, what it is doing now (read from its output):
//
//   keel setup: installing dependencies… 1m 12s (better-sqlite3 compiling)
//
// Not on a terminal (CI, a pipe, a log file) it is a plain line every 20 seconds, so that a log
// shows progress without filling up. Always stderr: stdout of `npm start` belongs to keel.

/** How often the line is rewritten on a terminal. */
export const TTY_EVERY_MS = 1000;
/** How often a plain line is printed when stderr is not a terminal. */
export const LOG_EVERY_MS = 20_000;

/** `ms` as the line shows it: `7s`, `1m 12s`, `12m 03s`. */
export function formatElapsed(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (minutes === 0) return `${seconds}s`;
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
}

/** One progress line: `keel setup: installing dependencies… 1m 12s (better-sqlite3 compiling)`. */
export function progressLine(prefix, label, elapsedMs, phase) {
  return `${prefix} ${label}… ${formatElapsed(elapsedMs)}${phase ? ` (${phase})` : ''}`;
}

/** The package a pnpm lifecycle line is about: `.../node_modules/better-sqlite3 install: …`. */
const SCRIPT_LINE = /^(?:\S*node_modules\/)?(\S+) (preinstall|install|postinstall)(\$|:) ?(.*)$/;

/**
 * What pnpm is doing, from one line of its output (the default reporter, not on a terminal), or
 * null when the line does not tell. `state` carries what earlier lines said (the package count).
 */
export function pnpmPhase(rawLine, state = {}) {
  const line = rawLine.trim();
  if (/^Verifying lockfile/i.test(line) || /supply-chain/i.test(line)) {
    return 'checking the lockfile';
  }
  const progress =
    /^Progress: resolved (\d+), reused (\d+), downloaded (\d+), added (\d+)(, done)?/.exec(line);
  if (progress) {
    const [, resolved, , , added, done] = progress;
    if (done) return 'linking packages';
    return `downloading packages: ${added} of ${resolved}`;
  }
  if (/^Downloading \S+/.test(line) && !state.phase) return 'downloading packages';
  const script = SCRIPT_LINE.exec(line);
  if (script) {
    const [, name, event, mark, rest] = script;
    if (mark === '$') return `${name} ${event} script`;
    if (/^Done\b/.test(rest)) return `${name} built`;
    if (/^Failed\b/.test(rest)) return `${name} failed`;
    if (/\b(gyp info|CC\(target\)|CXX\(target\)|SOLINK|make: Entering)/.test(rest)) {
      return `${name} compiling`;
    }
    if (/prebuild-install/.test(rest)) return `${name} looking for a prebuilt binary`;
    return null;
  }
  if (/^Done in /.test(line)) return 'done';
  return null;
}

/**
 * Starts the live line for a step; call `stop()` when the step ends (it clears the line on a
 * terminal, so the step's own result line follows cleanly).
 *
 * Options (all but prefix and label have defaults, for the tests):
 *   stream: where it writes (process.stderr); tty: whether that is a terminal (stream.isTTY);
 *   columns: the terminal's width (stream.columns), the line is cut to fit;
 *   now, setInterval, clearInterval: the clock;
 *   phases: pnpmPhase, or null for a step whose output says nothing useful;
 *   everyMs: how often (TTY_EVERY_MS on a terminal, LOG_EVERY_MS otherwise).
 * Returns { feed(chunk), phase(text), stop() }: feed() is given the step's output as it comes.
 */
export function startProgress(options) {
  const {
    prefix,
    label,
    stream = process.stderr,
    tty = Boolean(stream.isTTY),
    now = Date.now,
    setInterval: every = setInterval,
    clearInterval: cancel = clearInterval,
    phases = pnpmPhase,
  } = options;
  const everyMs = options.everyMs ?? (tty ? TTY_EVERY_MS : LOG_EVERY_MS);
  const started = now();
  const state = { phase: null };
  let partial = '';
  let shown = false;

  const line = () => progressLine(prefix, label, now() - started, state.phase);
  const draw = () => {
    if (tty) {
      const width = Math.max(20, (options.columns || stream.columns || 80) - 1);
      const text = line();
      const cut = text.length > width ? `${text.slice(0, width - 1)}…` : text;
      stream.write(`\r\x1b[K${cut}`);
      shown = true;
    } else {
      stream.write(`${line()}\n`);
    }
  };
  // The first line comes after `everyMs`: a step that ends sooner shows none.
  const timer = every(draw, everyMs);
  timer?.unref?.();

  return {
    /** The step's output as it comes: each whole line may name the phase. */
    feed(chunk) {
      if (!phases) return;
      const lines = (partial + chunk.toString()).split(/\r?\n|\r/);
      partial = lines.pop() ?? '';
      if (partial.length > 4096) partial = '';
      for (const l of lines) {
        const phase = phases(l, state);
        if (phase) state.phase = phase;
      }
    },
    /** Names the phase directly. */
    phase(text) {
      state.phase = text;
    },
    /** Stops the line (and clears it on a terminal); returns the step's time in ms. */
    stop() {
      cancel(timer);
      if (tty && shown) stream.write('\r\x1b[K');
      shown = false;
      return now() - started;
    },
  };
}
