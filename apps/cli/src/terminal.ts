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
 * the owner's next line): they say the request waits for `/forget <id>` or `/keep <id>`. A capture
 * that failed is said in one line (the turn went on).
 *
 * @module
 */
import { createInterface } from 'node:readline';
import {
  Agent,
  type ChatChoice,
  OfflineSession,
  runSlashCommand,
  type TurnReply,
  type TurnResult,
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { openKeel } from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import { captureErrorJson, writeJson } from './commands/shared.js';
import type { Config } from './config.js';
import {
  captureErrorLine,
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

/** The status line: which model and which recall mode are in use. */
export function statusLine(store: MemoryStore, choice: ChatChoice): string {
  const s = store.stats();
  const model = choice.model
    ? `${choice.provider} ${choice.model.model}`
    : `offline (${choice.reason})`;
  return `keel · model: ${model} · recall: ${s.mode} · ${s.active} beliefs, ${s.pending} pending, ${s.episodes} episodes`;
}

function errorText(err: unknown): string {
  if (KeelError.isInstance(err)) return `error ${err.code}: ${err.message}\nfix: ${err.fix}`;
  throw err;
}

/**
 * Runs the terminal until end of input or `/quit`. Works on a TTY (prompt, streaming, Ctrl-C)
 * and on piped input (one reply per line).
 */
export async function runTerminal(config: Config, options: TerminalOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const tty = Boolean((input as NodeJS.ReadStream).isTTY) && !options.json;
  const write = (text: string) => output.write(`${text}\n`);
  const { chat: choice, store } = await openKeel(config, { chat: true });
  const offline = new OfflineSession(store, { channel: 'terminal' });
  const agent = choice.model
    ? new Agent({ store, model: choice.model, tz: config.think.tz })
    : null;
  const status = () => statusLine(store, choice);
  if (!options.json) {
    write(agent ? status() : offline.banner());
    write(`data folder: ${config.home} · /help lists commands`);
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
  /** Asks one question on the TTY; null when Ctrl-C or the end of input came first. */
  const question = (query: string): Promise<string | null> =>
    new Promise((resolve) => {
      if (closed) return resolve(null);
      const controller = new AbortController();
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
    const r = await runSlashCommand(store, `/${verb} ${id}`, { channel: 'terminal', status }).catch(
      (err: unknown): TurnReply => ({ text: errorText(err) }),
    );
    write(`keel › ${r.text}`);
  };
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
      let extra: Record<string, unknown> = {};
      let quit = false;
      if (!agent || line.trim().startsWith('/')) {
        const r = agent
          ? await runSlashCommand(store, line.trim(), {
              channel: 'terminal',
              status,
              tz: config.think.tz,
            }).catch((err: unknown): TurnReply => ({ text: errorText(err) }))
          : await offline.handle(line);
        reply = r.text;
        quit = Boolean(r.quit);
        extra = {
          episode_id: r.episodeId ?? null,
          write: r.write ?? null,
          capture_error: r.captureError ?? null,
        };
        if (!options.json && reply)
          write(tty ? `keel › ${reply.replace(/\n/g, '\n       ')}` : reply);
      } else if (!line.trim()) {
        if (tty) rl.prompt();
        continue;
      } else {
        running = new AbortController();
        let streamed = false;
        let result: TurnResult | null = null;
        if (!options.json) output.write(tty ? 'keel › ' : '');
        try {
          result = await agent.turn({
            text: line,
            channel: 'terminal',
            signal: running.signal,
            onText: (delta) => {
              streamed = true;
              if (!options.json) output.write(delta);
            },
            onRetry: (info) => {
              if (!options.json && streamed) output.write(`\n[retrying after ${info.reason}]\n`);
              streamed = false;
            },
          });
          reply = result.reply;
          if (!options.json) output.write(streamed ? '\n' : `${reply}\n`);
        } catch (err) {
          reply = errorText(err);
          extra = { error: KeelError.isInstance(err) ? err.code : 'INTERNAL' };
          if (!options.json) write(`${streamed ? '\n' : ''}${reply}`);
        } finally {
          running = null;
        }
        if (result) {
          const asks = forgetAsks(store, result.writes);
          extra = {
            turn_id: result.turnId,
            facts_used: result.factsUsed,
            writes: result.writes.map((w) => writeJson(w, forgetRequestJson(asks, 'terminal'))),
            capture_error: captureErrorJson(result.captureError),
          };
          if (!options.json) {
            if (result.captureError) write(captureErrorLine(result.captureError));
            for (const ask of asks) {
              if (tty) await decide(ask);
              else write(forgetWaitingLine(ask, 'terminal'));
            }
          }
        }
      }
      if (options.json) write(JSON.stringify({ line, reply, ...extra }));
      if (quit) break;
      if (tty && !closed) rl.prompt();
    }
  } finally {
    rl.close();
    store.close();
  }
}
