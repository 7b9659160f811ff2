/**
 * `keel ask <message>`: one turn in the owner session, non-interactively. Prints the reply
 * (streamed on a terminal); with `--json`, the turn as `turnJson` prints it, the same keys online
 * and offline: `{"reply", "provider", "model", "reason", "mode", "turn_id", "episode_id",
 * "facts_used", "writes", "withheld", "capture_error", "truncated"}`. A reply still cut at the
 * length limit after keel asked the model to continue says so (`truncated`, and a line under the
 * text); so does a credential withheld from the message (`withheld`) and a confidence the evidence
 * gate capped (a write's `confidence_capped`). What the turn kept is said under the reply, one line
 * per belief (`keptLines` of `@keel/agent`: `Kept: sister name — Ada [f12] (keel forget 12 to
 * undo).`), and nothing when it kept nothing. Without a model it answers as the offline terminal
 * does and says so.
 *
 * It never asks a question: a request of the model to forget a belief is printed as waiting for
 * `keel forget <id>` or `keel keep <id>` (in `--json`, a write with decision `forget_requested`);
 * a capture that failed is said in one line (`capture_error`), and the turn still succeeds.
 *
 * @module
 */
import {
  Agent,
  cappedLines,
  OfflineSession,
  type TurnWait,
  underReply,
  waitNotice,
} from '@keel/agent';
import { openKeel } from '@keel/host';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { doorTools } from '../door-tools.js';
import { action, EXIT, emit, say, wantsJson } from '../output.js';
import { forgetAsks, forgetRequestJson, forgetWaitingLine } from '../turn-notes.js';
import { keepOnDamage, turnJson, writeJson } from './shared.js';

/** Registers `keel ask <message…>`. */
export function registerAskCommand(program: Command, config: Config): void {
  program
    .command('ask')
    .description('one turn with the agent, non-interactively (offline without a model)')
    .argument('<message...>', 'what to say')
    .action(
      action((words: string[], _opts: unknown, cmd: Command) =>
        ask(config, words.join(' '), wantsJson(cmd)),
      ),
    );
}

/**
 * Runs one turn and prints it. The database is checked first; when it is damaged the message is
 * kept in the recovery file and nothing is written to the database.
 *
 * @returns the exit code.
 * @throws KeelError from the agent or the offline session (model errors, `TOO_LARGE`,
 *   `SESSION_BUSY`, a slash command's `NOT_FOUND`, …); `DB_CORRUPT` naming the recovery file the
 *   message was kept in.
 */
export function ask(config: Config, message: string, asJson: boolean): Promise<number> {
  return keepOnDamage(config, { channel: 'cli', text: message }, () =>
    turn(config, message, asJson),
  );
}

async function turn(config: Config, message: string, asJson: boolean): Promise<number> {
  const keel = await openKeel(config, { chat: true, checkIntegrity: 'cached' });
  const { chat: choice, store } = keel;
  let failure: unknown;
  let closeTools: (() => Promise<void>) | null = null;
  try {
    if (!choice.model) {
      const r = await new OfflineSession(store, {
        channel: 'cli',
        tz: config.think.tz,
        commands: 'shell',
      }).handle(message);
      // A line that failed (TOO_LARGE, a slash command's NOT_FOUND, …) is an error like the
      // agent's: its code and fix, `{"error": …}` under --json, exit 2.
      if (r.error) throw r.error;
      const facts = r.recall?.results.filter((x) => x.type === 'fact').map((x) => x.id) ?? [];
      emit(
        asJson,
        turnJson({
          reply: r.text,
          provider: 'offline',
          model: null,
          reason: choice.reason,
          mode: r.recall?.mode ?? store.stats().mode,
          turnId: null,
          episodeId: r.episodeId ?? null,
          factsUsed: facts,
          writes: r.write ? [writeJson(r.write, forgetRequestJson([], 'shell'))] : [],
          withheld: r.withheld ?? [],
          captureError: r.captureError,
          truncated: false,
        }),
        () => [r.text, ...(r.write ? cappedLines([r.write]) : [])].join('\n'),
      );
      return EXIT.ok;
    }
    const tools = await doorTools(config);
    const agent = new Agent({
      store,
      model: choice.model,
      tz: config.think.tz,
      tools: tools.toolbox,
    });
    closeTools = tools.close;
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    let streamed = false;
    try {
      const result = await agent.turn({
        text: message,
        channel: 'cli',
        signal: controller.signal,
        ...(asJson
          ? {}
          : {
              onText: (delta: string) => {
                streamed = true;
                say(delta);
              },
              onRetry: () => {
                if (streamed) say('\n[retrying]\n');
                streamed = false;
              },
              // On stderr, so the reply on stdout stays the reply.
              onWait: (wait: TurnWait) => {
                process.stderr.write(`${waitNotice(wait)}\n`);
              },
            }),
      });
      const asks = forgetAsks(store, result.writes);
      if (streamed) say('\n');
      emit(
        asJson,
        turnJson({
          reply: result.reply,
          provider: result.provider,
          model: result.model,
          reason: choice.reason,
          mode: result.mode,
          turnId: result.turnId,
          episodeId: result.ownerEpisodeId,
          factsUsed: result.factsUsed,
          writes: result.writes.map((w) => writeJson(w, forgetRequestJson(asks, 'shell'))),
          withheld: result.withheld,
          captureError: result.captureError,
          truncated: result.truncated,
        }),
        () =>
          [
            ...(streamed ? [] : [result.reply]),
            ...underReply(store, result, { style: 'shell' }),
            ...asks.map((a) => forgetWaitingLine(a, 'shell')),
          ].join('\n'),
      );
      return EXIT.ok;
    } finally {
      process.off('SIGINT', onSigint);
    }
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    await closeTools?.();
    keel.close(failure);
  }
}
