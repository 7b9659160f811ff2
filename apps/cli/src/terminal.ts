/**
 * The terminal front door: a thin adapter that reads lines, hands each to the owner session and
 * prints the reply. With no model configured it runs the offline session.
 *
 * @module
 */
import { createInterface } from 'node:readline';
import { OfflineSession } from '@keel/agent';
import { MemoryStore } from '@keel/memory';
import type { Config } from './config.js';

/** Options for {@link runTerminal}. */
export interface TerminalOptions {
  /** Print each reply as one JSON line instead of text. */
  json?: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/**
 * Runs the terminal until end of input or `/quit`. Works on a TTY (with a prompt) and on piped
 * input (one reply per line, no prompt).
 */
export async function runTerminal(config: Config, options: TerminalOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const tty = Boolean((input as NodeJS.ReadStream).isTTY) && !options.json;
  const store = MemoryStore.open(config.dbPath);
  const session = new OfflineSession(store, { channel: 'terminal' });
  const write = (text: string) => output.write(`${text}\n`);
  if (!options.json) {
    write(session.banner());
    write(`data folder: ${config.home}`);
  }
  const rl = createInterface({ input, output, terminal: tty, prompt: 'you › ' });
  if (tty) rl.prompt();
  try {
    for await (const line of rl) {
      const reply = session.handle(line);
      if (options.json) {
        write(
          JSON.stringify({
            line,
            reply: reply.text,
            episode_id: reply.episodeId ?? null,
            write: reply.write ?? null,
          }),
        );
      } else if (reply.text)
        write(tty ? `keel › ${reply.text.replace(/\n/g, '\n       ')}` : reply.text);
      if (reply.quit) break;
      if (tty) rl.prompt();
    }
  } finally {
    rl.close();
    store.close();
  }
}
