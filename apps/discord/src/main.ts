#!/usr/bin/env node
/**
 * The Discord front door as a process (`keel discord`, or the systemd/launchd service). Settings
 * come from `@keel/host`'s `loadConfig`: `DISCORD_TOKEN` and `KEEL_DISCORD_OWNER_ID` are required
 * (without an owner it refuses to start: fail closed), the model and the embedder are chosen as
 * for the terminal. SIGTERM, SIGINT or SIGHUP stops it gracefully (the turn in progress gets
 * `KEEL_DISCORD_GRACE_MS` to finish, then is cancelled); so does the end of the `keel` CLI that
 * started it. `--json` prints an error as one line `{"error": {"code", "message", "fix"}}` on stdout
 * too. Exit codes: 0 stopped, 2 an error with a code (configuration, another `keel discord`
 * running, a damaged database, a token Discord refuses), 1 anything else (no connection:
 * `DISCORD_UNAVAILABLE` is printed, and a service manager tries again).
 *
 * One door runs per KEEL_HOME (`$KEEL_HOME/discord.lock`, which `keel restore` respects). The
 * database is checked in full at start: a damaged one is told to the owner by DM and the door does
 * not start (the DMs sent meanwhile stay on Discord and are caught up once it is restored).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import {
  acquireServiceLock,
  damageError,
  discordDoor,
  EXIT,
  type KeelConfig,
  keepForRecovery,
  loadConfig,
  openKeel,
  ownerNotifier,
  recoveryPath,
  reportError,
  serviceLockPath,
  stopWhenParentGone,
} from '@keel/host';
import { KeelDiscord } from './bot.js';

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/** Tells the owner by DM that the door did not start because the database is damaged. */
async function tellOwner(config: KeelConfig, err: unknown): Promise<void> {
  const damage = damageError(err);
  const { notify } = ownerNotifier(config);
  if (!damage || !notify) return;
  try {
    await notify(
      `keel discord did not start: keel's database is damaged, and keel writes nothing to it (${damage.message}). What you send me meanwhile stays here and is caught up once it is restored. To restore it: stop keel think, run keel restore <file> (keel doctor names the newest backup), then keel recover, and start me again.`,
    );
  } catch (e) {
    log(`discord: could not tell the owner: ${(e as Error).message}`);
  }
}

/** True when Discord refused the token (nothing to retry: exit 2); else a connection failure. */
function tokenRefused(err: unknown): boolean {
  const e = err as { code?: unknown; status?: unknown } | null;
  return e?.code === 'TokenInvalid' || e?.status === 401;
}

async function main(json: boolean): Promise<number> {
  let bot: KeelDiscord;
  let close: () => void;
  let graceMs: number;
  let loaded: KeelConfig | null = null;
  try {
    const config = loadConfig(process.env);
    loaded = config;
    stopWhenParentGone(config.process.parentPid, { name: 'discord', log });
    const { graceMs: grace, ...connection } = discordDoor(config);
    graceMs = grace;
    acquireServiceLock(serviceLockPath(config.home, 'discord'), 'discord', { log });
    const keel = await openKeel(config, {
      chat: true,
      checkIntegrity: true,
      onEmbedderError: 'lexical',
    });
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
        recovery: {
          path: recoveryPath(config.home),
          keep: (input) => keepForRecovery(config.home, input),
        },
      });
    } catch (err) {
      keel.close();
      throw err;
    }
  } catch (err) {
    if (loaded) await tellOwner(loaded, err);
    return reportError(err, json);
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
    await bot.stop(0).catch(() => {});
    close();
    const refused = tokenRefused(err);
    const code = reportError(
      new KeelError(
        'DISCORD_UNAVAILABLE',
        `keel discord could not connect to Discord: ${(err as Error).message}${refused ? ' (Discord refused the token)' : ''}`,
        { cause: err },
      ),
      json,
    );
    // A refused token is the owner's to fix (exit 2: not restarted); a lost connection is retried.
    return refused ? code : EXIT.failed;
  }
  await stopped;
  close();
  log('discord: stopped');
  return 0;
}

const json = process.argv.slice(2).includes('--json');

/** Exits once stdout has been flushed (a pipe may be asynchronous). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

main(json).then(exit, (err) => exit(reportError(err, json)));
