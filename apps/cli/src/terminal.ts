/**
 * The terminal front door: a thin adapter that reads lines, hands each to the owner session and
 * prints the reply. With a model it streams the agent's answer (Ctrl-C cancels the running turn
 * and keeps the session); without one it runs the offline session and says so.
 *
 * A line ending in a backslash continues on the next line (multi-line input).
 *
 * The model proposes; the owner decides what is forgotten: after a turn in which the model asked to
 * forget a belief, a TTY asks the owner right there (`y`/`yes` forgets it, anything else keeps it;
 * Ctrl-C leaves the request waiting). Piped input and `--json` never prompt (a question would eat
 * the owner's next line): they say the request waits for `/forget <id>` or `/keep <id>`. What a
 * turn kept is said under the reply, one line per belief (`keptLines` of `@keel/agent`: `Kept:
 * sister name — Ada [f12] (/forget 12 to undo).`), and nothing when it kept nothing. A capture
 * that failed is said in one line (the turn went on), and so is a reply still cut at the length
 * limit (`truncated` in `--json`).
 *
 * The database is checked before anything is written: at start (the verdict cache spares a full
 * read when it can) and before each line (a stat while nothing but keel has touched the file).
 * When it is damaged — or a turn meets a damaged page, or a write finds the journal does not match
 * its anchor — keel says which, in the error's words (`error DB_CORRUPT` or `error JOURNAL_BROKEN`,
 * its fix, and `stopState` of `@keel/host`), and stops writing to it: that line and every later one
 * (piped lines included) is kept in the recovery file instead, each answered with where, until the
 * input ends; then it exits 2.
 *
 * With `--json` each line is answered by one JSON line of one shape, online or offline, for a
 * slash command and on a damaged database alike: `{"line"}`, the turn as `turnJson` prints it
 * (`reply`, `provider`, `model`, `reason`, `mode`, `turn_id`, `episode_id`, `facts_used`,
 * `writes`, `withheld`, `capture_error`, `truncated`), then `error` (`{"code", "message", "fix"}`)
 * and `recovery` (the file the line was kept in), null where they have no value.
 *
 * @module
 */
import { createInterface } from 'node:readline';
import {
  Agent,
  type ChatChoice,
  cappedLines,
  memoryCounts,
  OfflineSession,
  TRUNCATED_NOTE,
  type TurnResult,
  underReply,
  waitNotice,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import {
  checkService,
  damageError,
  EXIT,
  keepForRecovery,
  type OpenKeel,
  openKeel,
  recoveryPath,
  stopState,
} from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import { runSlashCommand, type TurnReply } from '@keel/tools';
import { terminalApprover } from './approve.js';
import { firstStart } from './commands/setup.js';
import { keptLine, type TurnJsonInput, turnJson, writeJson } from './commands/shared.js';
import type { Config } from './config.js';
import { doorTools } from './door-tools.js';
import { asTyped } from './invocation.js';
import { printJsonLine, reportError, say } from './output.js';
import {
  type ForgetAsk,
  forgetAskLine,
  forgetAsks,
  forgetRequestJson,
  forgetWaitingLine,
} from './turn-notes.js';

/** Options for {@link runTerminal}. */
export interface TerminalOptions {
  /** Print each reply as one JSON line instead of text. */
  json?: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/**
 * What one line did, for its `--json` line: the turn's fields that have a value (the rest print as
 * null or empty), and the error and recovery file when the line could not be handled.
 */
interface LineOutcome {
  turn?: Partial<TurnJsonInput>;
  error?: { code: string; message: string; fix: string };
  recovery?: string;
}

/** An error as a `--json` line carries it: its code, message and fix. */
function errorJson(err: KeelError): { code: string; message: string; fix: string } {
  return { code: err.code, message: asTyped(err.message), fix: asTyped(err.fix) };
}

/** The status line: which model and which recall mode are in use. */
export function statusLine(store: MemoryStore, choice: ChatChoice): string {
  const s = store.stats();
  const model = choice.model
    ? `${choice.provider} ${choice.model.model}`
    : `offline (${choice.reason})`;
  return `keel · model: ${model} · recall: ${s.mode} · ${memoryCounts(s)}`;
}

/**
 * The terminal's word on the Discord door when it is paired and not running (no live holder of
 * its lock): the owner DMs the bot and nothing answers, so the terminal says so first, with the
 * fix (`keel doctor` says more). Null when it runs or is not configured.
 */
export function doorNotice(config: Config): string | null {
  const door = checkService(config, 'discord');
  if (door.status !== 'warn' && door.status !== 'fail') return null;
  return asTyped(`note: ${door.detail}\nfix: ${door.fix} (\`keel doctor\` checks it again)`);
}

/** An error as the terminal prints it; damage and unexpected errors are thrown on. */
function errorText(err: unknown): string {
  const damage = damageError(err);
  if (damage) throw damage;
  if (KeelError.isInstance(err)) {
    return asTyped(`error ${err.code}: ${err.message}\nfix: ${err.fix}`);
  }
  throw err;
}

/**
 * A slash command that failed, as the line's reply: the error's text, and the error itself for
 * `--json` (`error`); damage and unexpected errors are thrown on.
 */
function failedReply(err: unknown): TurnReply {
  return { text: errorText(err), error: err as KeelError };
}

/**
 * Why the database cannot take the terminal's lines: damage (`DB_CORRUPT`), or the file replaced
 * under it (a restore: `INVALID_STATE`), or a check that could not run. Null for other errors.
 */
function cannotWrite(err: unknown, checking: boolean): KeelError | null {
  const damage = damageError(err);
  if (damage) return damage;
  if (!checking) return null;
  return KeelError.isInstance(err)
    ? err
    : new KeelError('DB_OPEN_FAILED', `the database cannot be checked: ${(err as Error).message}`, {
        cause: err,
      });
}

/**
 * Runs the terminal until end of input or `/quit`. Works on a TTY (prompt, streaming, Ctrl-C)
 * and on piped input (one reply per line). On keel's first start (no config file, a person at the
 * terminal: see `offersFirstSetup`) `keel setup` runs first and the terminal opens with what it
 * saved.
 *
 * @returns the exit code: 0, or 2 when the database could not take the owner's lines (they are
 *   in the recovery file).
 * @throws KeelError from opening keel other than damage (`MODEL_AUTH`, `SCHEMA_FROM_FUTURE`, …).
 */
export async function runTerminal(loaded: Config, options: TerminalOptions = {}): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  // keel's first start (no config file, no database) with a person at the terminal: setup first.
  const config = await firstStart(loaded, { input, output, json: Boolean(options.json) });
  const tty = Boolean((input as NodeJS.ReadStream).isTTY) && !options.json;
  const write = (text: string) => say(`${text}\n`, output);
  /** Why the database takes no more lines (they go to the recovery file), or null. */
  let down: KeelError | null = null;
  let keel: OpenKeel<ChatChoice> | null = null;
  try {
    keel = await openKeel(config, { chat: true, checkIntegrity: 'cached', warmRecall: true });
  } catch (err) {
    down = cannotWrite(err, false);
    if (!down) throw err;
  }
  /** Stops writing to the database: says why and where the owner's lines go from now on. */
  const goDown = (why: KeelError): void => {
    down = why;
    keel?.close(why);
    keel = null;
    reportError(why, false);
    if (!options.json) {
      write(
        `${stopState(why)!.what}: keel is not writing to it now; each line you type is kept in ${recoveryPath(config.home)} instead, and keel recover stores them once the database is restored.`,
      );
    }
  };
  /** A line while the database takes none: kept in the recovery file (slash commands are not). */
  const keep = (line: string): { reply: string; quit: boolean; outcome: LineOutcome } => {
    const why = down!;
    const command = line.trim();
    const error = errorJson(why);
    if (command === '/quit') return { reply: '', quit: true, outcome: {} };
    if (command.startsWith('/')) {
      return {
        reply: `${command.split(/\s/)[0]} is not available: ${stopState(why)!.what} (${why.code}).`,
        quit: false,
        outcome: { error },
      };
    }
    const { path } = keepForRecovery(config.home, { channel: 'terminal', text: line });
    return {
      reply: `(not stored in memory) ${keptLine(path)}.`,
      quit: false,
      outcome: { error, recovery: path },
    };
  };
  if (down) goDown(down);
  const choice = keel?.chat ?? null;
  const store = keel?.store ?? null;
  const offline = store
    ? new OfflineSession(store, { channel: 'terminal', tz: config.think.tz })
    : null;
  // The model's tools (built-ins, MCP servers) are opened only when there is a model to call them.
  const tools = store && choice?.model && !down ? await doorTools(config) : null;
  const agent =
    store && choice?.model
      ? new Agent({
          store,
          model: choice.model,
          tz: config.think.tz,
          ...(tools ? { tools: tools.toolbox } : {}),
        })
      : null;
  const status = () => (store && choice ? statusLine(store, choice) : '');
  /** One line of `--json`: the same keys whatever the line was, online or offline. */
  const printLine = (line: string, reply: string, outcome: LineOutcome): void => {
    printJsonLine(
      {
        line,
        ...turnJson({
          reply,
          provider: choice?.provider ?? null,
          model: choice?.model?.model ?? null,
          reason: choice?.reason ?? null,
          mode: null,
          turnId: null,
          episodeId: null,
          factsUsed: [],
          writes: [],
          withheld: [],
          captureError: null,
          truncated: false,
          ...outcome.turn,
        }),
        error: outcome.error ?? null,
        recovery: outcome.recovery ?? null,
      },
      output,
    );
  };
  if (!options.json && keel) {
    write(agent ? status() : asTyped(offline!.banner()));
    write(`data folder: ${config.home} · /help lists commands`);
    const door = doorNotice(config);
    if (door) write(door);
  }

  const rl = createInterface({ input, output, terminal: tty, prompt: 'you › ' });
  let running: AbortController | null = null;
  let asking: AbortController | null = null;
  let closed = false;
  rl.once('close', () => {
    closed = true;
  });
  rl.on('SIGINT', () => {
    if (running) {
      running.abort();
      return;
    }
    if (asking) {
      asking.abort();
      return;
    }
    rl.close();
  });
  /** Asks one question on the TTY; null when Ctrl-C, the end of input or `signal` came first. */
  const question = (query: string, signal?: AbortSignal): Promise<string | null> =>
    new Promise((resolve) => {
      if (closed || signal?.aborted) return resolve(null);
      const controller = new AbortController();
      signal?.addEventListener('abort', () => controller.abort(), { once: true });
      asking = controller;
      let settled = false;
      const done = (answer: string | null) => {
        if (settled) return;
        settled = true;
        asking = null;
        rl.off('close', onClose);
        resolve(answer);
      };
      const onClose = () => done(null);
      rl.once('close', onClose);
      controller.signal.addEventListener('abort', () => done(null), { once: true });
      rl.question(query, { signal: controller.signal }, (answer) => done(answer));
    });
  /** The owner answers one request to forget: y/yes forgets, anything else keeps. */
  const decide = async (ask: ForgetAsk): Promise<void> => {
    const id = ask.fact.id;
    const answer = await question(`${forgetAskLine(ask)} Forget it? [y/N] `);
    if (answer === null) {
      write(`\nf${id} still waits for you: /forget ${id} or /keep ${id}`);
      return;
    }
    const verb = /^\s*y(es)?\s*$/i.test(answer) ? 'forget' : 'keep';
    if (!store || down) return;
    const r = await runSlashCommand(store, `/${verb} ${id}`, {
      channel: 'terminal',
      status,
      tz: config.think.tz,
    }).catch(failedReply);
    write(`keel › ${r.text}`);
  };
  /**
   * How a turn asks the owner before a tool runs: a question on the TTY, never when piped. The
   * question takes the line that held the reply's `keel › `, so the outcome is followed by it again:
   * what the model says next reads as keel's.
   */
  const approve =
    tty && !options.json
      ? terminalApprover(
          question,
          (line) => say(`${line}\nkeel › `, output),
          config.tools.approvalTimeoutMs,
        )
      : undefined;
  if (tty) rl.prompt();
  let pending = '';
  try {
    for await (const raw of rl) {
      if (raw.endsWith('\\')) {
        pending += `${raw.slice(0, -1)}\n`;
        if (tty) rl.setPrompt('   … ');
        if (tty) rl.prompt();
        continue;
      }
      const line = pending + raw;
      pending = '';
      if (tty) rl.setPrompt('you › ');
      let reply: string;
      let outcome: LineOutcome = {};
      let quit = false;
      // The database is checked before the line can write to it.
      if (!down && keel && line.trim()) {
        try {
          keel.store.checkIntegrity();
        } catch (err) {
          goDown(cannotWrite(err, true)!);
        }
      }
      if (down || !keel || !store || !offline) {
        if (!line.trim()) {
          if (tty) rl.prompt();
          continue;
        }
        ({ reply, quit, outcome } = keep(line));
        if (!options.json && reply) write(tty ? `keel › ${reply}` : reply);
        if (options.json) printLine(line, reply, outcome);
        if (quit) break;
        if (tty && !closed) rl.prompt();
        continue;
      }
      let result: TurnResult | null = null;
      try {
        if (!agent || line.trim().startsWith('/')) {
          const r = agent
            ? await runSlashCommand(store, line.trim(), {
                channel: 'terminal',
                status,
                tz: config.think.tz,
              }).catch(failedReply)
            : await offline.handle(line);
          reply = r.text;
          quit = Boolean(r.quit);
          outcome = {
            turn: {
              mode: r.recall?.mode ?? null,
              episodeId: r.episodeId ?? null,
              factsUsed: r.recall?.results.filter((x) => x.type === 'fact').map((x) => x.id) ?? [],
              writes: r.write ? [writeJson(r.write, forgetRequestJson([], 'terminal'))] : [],
              withheld: r.withheld ?? [],
              captureError: r.captureError ?? null,
            },
            ...(r.error ? { error: errorJson(r.error) } : {}),
          };
          if (!options.json && reply)
            write(tty ? `keel › ${reply.replace(/\n/g, '\n       ')}` : reply);
          if (!options.json && r.write) for (const l of cappedLines([r.write])) write(l);
        } else if (!line.trim()) {
          if (tty) rl.prompt();
          continue;
        } else {
          running = new AbortController();
          let streamed = false;
          if (!options.json) say(tty ? 'keel › ' : '', output);
          try {
            result = await agent.turn({
              text: line,
              channel: 'terminal',
              signal: running.signal,
              // Only a person at a TTY is asked; piped input and --json get the reason instead.
              ...(approve ? { approve } : {}),
              onText: (delta) => {
                streamed = true;
                if (!options.json) say(delta, output);
              },
              onRetry: (info) => {
                if (!options.json && streamed) say(`\n[retrying after ${info.reason}]\n`, output);
                streamed = false;
              },
              // Said on its own line while the turn waits (another turn, a silent model).
              onWait: (wait) => {
                if (!options.json)
                  output.write(`${tty || streamed ? '\n' : ''}${waitNotice(wait)}\n`);
              },
            });
            reply = result.reply;
            if (!options.json) say(streamed ? '\n' : `${reply}\n`, output);
            if (!options.json && result.truncated) write(TRUNCATED_NOTE);
          } catch (err) {
            if (damageError(err)) {
              if (!options.json) say('\n', output);
              throw err;
            }
            reply = errorText(err);
            outcome = { error: errorJson(err as KeelError) };
            if (!options.json) write(`${streamed ? '\n' : ''}${reply}`);
          } finally {
            running = null;
          }
        }
      } catch (err) {
        // A damaged page met mid-line: this line and the rest go to the recovery file.
        const why = cannotWrite(err, false);
        if (!why) throw err;
        goDown(why);
        ({ reply, quit, outcome } = keep(line));
        if (!options.json && reply) write(tty ? `keel › ${reply}` : reply);
        if (options.json) printLine(line, reply, outcome);
        if (tty && !closed) rl.prompt();
        continue;
      }
      if (result) {
        const asks = forgetAsks(store, result.writes);
        outcome = {
          turn: {
            provider: result.provider,
            model: result.model,
            mode: result.mode,
            turnId: result.turnId,
            episodeId: result.ownerEpisodeId,
            factsUsed: result.factsUsed,
            writes: result.writes.map((w) => writeJson(w, forgetRequestJson(asks, 'terminal'))),
            withheld: result.withheld,
            captureError: result.captureError,
            truncated: result.truncated,
          },
        };
        if (!options.json) {
          // What the turn kept, from the store, and the rest every door says under a reply (the
          // cut was said as the reply streamed).
          for (const l of underReply(store, result, { truncated: false })) write(l);
          for (const ask of asks) {
            if (tty) {
              try {
                await decide(ask);
              } catch (err) {
                const why = cannotWrite(err, false);
                if (!why) throw err;
                goDown(why);
                break;
              }
            } else write(forgetWaitingLine(ask, 'terminal'));
          }
        }
      }
      // What this line wrote leaves the file in a state keel vouches for.
      keel?.store.recordSound();
      if (options.json) printLine(line, reply, outcome);
      if (quit) break;
      if (tty && !closed) rl.prompt();
    }
  } finally {
    rl.close();
    await tools?.close();
    keel?.close();
  }
  return down ? EXIT.error : EXIT.ok;
}
