/**
 * A real pseudo-terminal for end-to-end tests: runs a command in its own tmux server (a socket of
 * its own, so nothing is shared with a tmux the developer runs), types into it with `send-keys`
 * and reads the screen with `capture-pane`, as a person at the terminal would.
 *
 * @example
 * const term = Tmux.start([process.execPath, CLI, 'setup'], { KEEL_HOME: home });
 * await term.waitFor(/Which model/);
 * term.keys('Enter');
 * term.type('sk-…');
 * expect(await term.exitCode()).toBe(0);
 * term.close();
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let sessions = 0;

/**
 * How long a wait on the screen or on the command's end lasts by default, ms. It bounds a hang,
 * not speed: a machine busy with other builds can take many seconds to draw one prompt.
 */
export const WAIT_MS = 60_000;

/** What the shell prints once the command has ended: every byte the command wrote comes before it. */
const ENDED = /\[tmux: the command ended with (\d+)\]/;

/** Whether tmux can be run here. */
export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

/** One command running in a tmux pane. */
export class Tmux {
  readonly #socket: string;
  readonly #dir: string;

  private constructor(socket: string, dir: string) {
    this.#socket = socket;
    this.#dir = dir;
  }

  /**
   * Starts `argv` in a new tmux server of its own, `cols` × `rows`, with exactly `env` as its
   * environment (plus what tmux sets: TERM, TMUX). When the command ends its exit code is kept
   * for {@link Tmux.exitCode} and the pane stays, so its last screen can still be read.
   *
   * @throws Error when tmux cannot start it.
   */
  static start(
    argv: string[],
    env: Record<string, string>,
    options: { cols?: number; rows?: number } = {},
  ): Tmux {
    const dir = mkdtempSync(join(tmpdir(), 'keel-tmux-'));
    const socket = `keel-test-${process.pid}-${++sessions}`;
    const exitFile = join(dir, 'exit');
    // The shell outlives the command (a Ctrl-C reaches both: the shell only notes it), prints a
    // last line after everything the command wrote, and keeps its exit code.
    const script = `trap : INT; "$@"; code=$?; printf '\\n[tmux: the command ended with %s]\\n' "$code"; echo "$code" > '${exitFile}'; exec sleep 600`;
    const r = spawnSync(
      'tmux',
      [
        '-L',
        socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-x',
        String(options.cols ?? 160),
        '-y',
        String(options.rows ?? 50),
        'sh',
        '-c',
        script,
        'sh',
        ...argv,
      ],
      { env: { ...env, TMUX: '' }, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`tmux could not start: ${r.stderr || r.error?.message}`);
    spawnSync('tmux', ['-L', socket, 'set-option', '-g', 'history-limit', '5000']);
    return new Tmux(socket, dir);
  }

  #tmux(args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.#socket, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr}`);
    return r.stdout;
  }

  /** Everything the pane shows and has scrolled away, wrapped lines joined. */
  screen(): string {
    return this.#tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', '0']);
  }

  /** Types `text` literally (no key names). */
  type(text: string): void {
    this.#tmux(['send-keys', '-t', '0', '-l', text]);
  }

  /** Presses keys by tmux's names: `Enter`, `Down`, `C-c`, `BSpace`, … */
  keys(...names: string[]): void {
    this.#tmux(['send-keys', '-t', '0', ...names]);
  }

  /**
   * Resolves with the screen once `pattern` has matched it `count` times (default once), polling
   * the screen. Wait for the line an assertion needs, not for an earlier one: the rest of a
   * screen is drawn later, and on a busy machine much later.
   *
   * @throws Error after `ms` (default {@link WAIT_MS}), with the screen.
   */
  async waitFor(pattern: RegExp, options: { count?: number; ms?: number } = {}): Promise<string> {
    const global = new RegExp(
      pattern.source,
      pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
    );
    const deadline = Date.now() + (options.ms ?? WAIT_MS);
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.screen();
      if ((screen.match(global)?.length ?? 0) >= (options.count ?? 1)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(
      `timed out waiting for ${pattern} (×${options.count ?? 1}); the screen:\n${screen}`,
    );
  }

  /**
   * The command's exit code once it has ended and the pane shows everything it wrote (the shell's
   * last line is on the screen), so {@link Tmux.screen} afterwards is the whole of it.
   *
   * @throws Error when it has not ended within `ms` (default {@link WAIT_MS}), with the screen.
   */
  async exitCode(ms = WAIT_MS): Promise<number> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      let code: number;
      try {
        code = Number(readFileSync(join(this.#dir, 'exit'), 'utf8').trim());
      } catch {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const screen = await this.waitFor(ENDED, { ms: Math.max(deadline - Date.now(), 1) });
      const shown = Number(ENDED.exec(screen)?.[1]);
      if (shown !== code) throw new Error(`the exit file says ${code}, the screen ${shown}`);
      return code;
    }
    throw new Error(`the command did not end within ${ms} ms; the screen:\n${this.screen()}`);
  }

  /** Ends the tmux server (and the command, if it still runs). */
  close(): void {
    spawnSync('tmux', ['-L', this.#socket, 'kill-server']);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
