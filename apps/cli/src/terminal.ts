/**
 * The terminal front door: a thin adapter that reads lines, hands each to the owner session and
 * prints the reply. With a model it streams the agent's answer (Ctrl-C cancels the running turn
 * and keeps the session); without one it runs the offline session and says so.
 *
 * A line ending in a backslash continues on the next line (multi-line input).
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
} from '@keel/agent';
import { KeelError } from '@keel/errors';
import { openKeel } from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import type { Config } from './config.js';

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
  const agent = choice.model ? new Agent({ store, model: choice.model }) : null;
  const status = () => statusLine(store, choice);
  if (!options.json) {
    write(agent ? status() : offline.banner());
    write(`data folder: ${config.home} · /help lists commands`);
  }

  const rl = createInterface({ input, output, terminal: tty, prompt: 'you › ' });
  let running: AbortController | null = null;
  rl.on('SIGINT', () => {
    if (running) {
      running.abort();
      return;
    }
    rl.close();
  });
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
          ? await runSlashCommand(store, line.trim(), { channel: 'terminal', status }).catch(
              (err: unknown): TurnReply => ({ text: errorText(err) }),
            )
          : await offline.handle(line);
        reply = r.text;
        quit = Boolean(r.quit);
        extra = { episode_id: r.episodeId ?? null, write: r.write ?? null };
        if (!options.json && reply)
          write(tty ? `keel › ${reply.replace(/\n/g, '\n       ')}` : reply);
      } else if (!line.trim()) {
        if (tty) rl.prompt();
        continue;
      } else {
        running = new AbortController();
        let streamed = false;
        if (!options.json) output.write(tty ? 'keel › ' : '');
        try {
          const result = await agent.turn({
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
          extra = { turn_id: result.turnId, facts_used: result.factsUsed, writes: result.writes };
          if (!options.json) output.write(streamed ? '\n' : `${reply}\n`);
        } catch (err) {
          reply = errorText(err);
          extra = { error: KeelError.isInstance(err) ? err.code : 'INTERNAL' };
          if (!options.json) write(`${streamed ? '\n' : ''}${reply}`);
        } finally {
          running = null;
        }
      }
      if (options.json) write(JSON.stringify({ line, reply, ...extra }));
      if (quit) break;
      if (tty) rl.prompt();
    }
  } finally {
    rl.close();
    store.close();
  }
}
