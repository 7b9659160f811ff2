#!/usr/bin/env node
/**
 * The Discord front door as a process (`keel discord`, or the systemd/launchd service). Settings
 * come from `@keel/host`'s `loadConfig`: `DISCORD_TOKEN` and `KEEL_DISCORD_OWNER_ID` are required
 * (without an owner it refuses to start: fail closed), the model and the embedder are chosen as
 * for the terminal. SIGTERM, SIGINT or SIGHUP stops it gracefully (the turn in progress gets
 * `KEEL_DISCORD_GRACE_MS` to finish, then is cancelled); so does the end of the `keel` CLI that
 * started it. Exit codes: 0 stopped, 2 an error with a code (configuration), 1 anything else (no
 * connection).
 *
 * @module
 */
import { discordDoor, loadConfig, openKeel, reportError, stopWhenParentGone } from '@keel/host';
import { KeelDiscord } from './bot.js';

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

async function main(): Promise<number> {
  let bot: KeelDiscord;
  let close: () => void;
  let graceMs: number;
  try {
    const config = loadConfig(process.env);
    stopWhenParentGone(config.process.parentPid, { name: 'discord', log });
    const { graceMs: grace, ...connection } = discordDoor(config);
    graceMs = grace;
    const keel = await openKeel(config, { chat: true, onEmbedderError: 'lexical' });
    close = keel.close;
    const { chat, embedder } = keel;
    log(
      `discord: model: ${chat.model ? `${chat.provider} ${chat.model.model}` : 'offline'} (${chat.reason}); recall: ${embedder.name ? `hybrid (${embedder.name})` : `lexical (${embedder.reason})`}`,
    );
    try {
      bot = new KeelDiscord({
        ...connection,
        store: keel.store,
        model: chat.model,
        log,
        tz: config.think.tz,
      });
    } catch (err) {
      keel.close();
      throw err;
    }
  } catch (err) {
    return reportError(err, false);
  }
  let stopping: Promise<void> | null = null;
  const stopped = new Promise<void>((resolveStop) => {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(sig, () => {
        if (!stopping) {
          log(`discord: ${sig}: stopping`);
          stopping = bot.stop(graceMs);
        }
        void stopping.then(resolveStop, resolveStop);
      });
    }
  });
  try {
    await bot.start();
  } catch (err) {
    log(`discord: could not connect: ${(err as Error).message}`);
    await bot.stop(0).catch(() => {});
    close();
    return 1;
  }
  await stopped;
  close();
  log('discord: stopped');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => process.exit(reportError(err, false)),
);
