#!/usr/bin/env node
/**
 * The Discord front door as a process (`keel discord`, or the systemd/launchd service). Settings
 * come from `@keel/host`'s `readConfig` (the environment over `$KEEL_HOME/config.toml`): the token
 * and the owner id (`DISCORD_TOKEN` / `discord.token`, `KEEL_DISCORD_OWNER_ID` /
 * `discord.owner_id`) are required (without an owner it refuses to start: fail closed), the model
 * and the embedder are chosen as for the terminal. SIGTERM, SIGINT or SIGHUP stops it gracefully
 * (the turn in progress gets `discord.grace_ms` to finish, then is cancelled); so does the end of
 * the `keel` CLI that started it. `--json` prints an error as one line
 * `{"error": {"code", "message", "fix"}}` on stdout too. Exit codes: 0 stopped, 2 an error with a
 * code (configuration, another `keel discord` running, a database that takes no writes, a token
 * Discord refuses: `DISCORD_AUTH`), 1 anything else (no connection: `DISCORD_UNAVAILABLE` is printed, and
 * a service manager tries again).
 *
 * One door runs per KEEL_HOME (`$KEEL_HOME/discord.lock`, which `keel restore` respects). The
 * database is checked in full at start: a damaged one is told to the owner by DM and the door does
 * not start (the DMs sent meanwhile stay on Discord and are caught up once it is restored).
 *
 * `main.js pair [--json]` (`keel discord pair`) pairs the owner instead ({@link pairDiscord}): it
 * needs only `DISCORD_TOKEN`, holds the door's lock meanwhile (the door must not answer the code),
 * opens no database, prints the code and waits for it; then prints the owner's id (the value of
 * `KEEL_DISCORD_OWNER_ID`) and exits 0. `main.js invite [--json]` (`keel discord invite`) prints
 * the link that adds the bot to the owner's server and what in the application's settings stands
 * in the way. Both live in `verbs.ts`.
 *
 * @module
 */
import {
  acquireServiceLock,
  damageError,
  discordDoor,
  EXIT,
  type KeelConfig,
  type KeelTools,
  keepForRecovery,
  mcpServerLine,
  openKeel,
  openTools,
  ownerNotifier,
  readConfig,
  recoveryPath,
  reportError,
  serviceLockPath,
  stopNotice,
  stopWhenParentGone,
  terminalText,
} from '@keel/host';
import { discordError } from '@keel/outbound';
import { KeelDiscord } from './bot.js';
import { inviteVerb, pairVerb } from './verbs.js';

/** The door's one writer of log lines (they may quote what the owner or the model said). */
const log = (line: string) =>
  process.stderr.write(terminalText(`${new Date().toISOString()} ${line}\n`));

/**
 * Tells the owner by DM that the door did not start because the database takes no writes, in the
 * words of its error (a damaged database, or a journal that does not match its anchor), with its
 * code and fix.
 */
async function tellOwner(config: KeelConfig, err: unknown): Promise<void> {
  const { notify } = ownerNotifier(config);
  const notice =
    damageError(err) &&
    stopNotice(
      err,
      'keel writes nothing to its database. What you send me meanwhile stays here and is caught up once it is restored. To get back: stop keel think, do what the fix says, and start me again.',
    );
  if (!notice || !notify) return;
  try {
    await notify(`keel discord did not start: ${notice}`);
  } catch (e) {
    log(`discord: could not tell the owner: ${(e as Error).message}`);
  }
}

/** The door's tools; what was wrong in `mcp.json` is logged, and a file keel cannot read leaves the built-ins alone. */
async function discordTools(config: KeelConfig): Promise<KeelTools> {
  try {
    const tools = await openTools(config, { waitForServers: true });
    for (const p of tools.problems) log(`discord: mcp.json: ${p.message} (fix: ${p.fix})`);
    for (const s of tools.hub?.status() ?? []) log(`discord: MCP server ${mcpServerLine(s)}`);
    return tools;
  } catch (err) {
    log(`discord: MCP servers not started: ${(err as Error).message}`);
    return openTools(config, { mcp: false });
  }
}

async function main(json: boolean): Promise<number> {
  let bot: KeelDiscord;
  let close: () => void;
  let graceMs: number;
  let loaded: KeelConfig | null = null;
  try {
    const config = readConfig(process.env);
    loaded = config;
    stopWhenParentGone(config.process.parentPid, { name: 'discord', log });
    const { graceMs: grace, ...connection } = discordDoor(config);
    graceMs = grace;
    acquireServiceLock(serviceLockPath(config.home, 'discord'), 'discord', { log });
    const keel = await openKeel(config, {
      chat: true,
      checkIntegrity: true,
      onEmbedderError: 'lexical',
      warmRecall: true,
    });
    // The model's tools, only when there is a model; mcp.json's problems are logged, not fatal.
    const tools = keel.chat.model ? await discordTools(config) : null;
    close = () => {
      void tools?.close();
      keel.close();
    };
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
        tz: config.think.tz,
        ...(tools ? { tools: tools.toolbox } : {}),
        approvalTimeoutMs: config.tools.approvalTimeoutMs,
      });
    } catch (err) {
      close();
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
    // One mapping for every door that talks to Discord: a refused token is DISCORD_AUTH (the
    // owner's to fix, exit 2: not restarted); anything else is DISCORD_UNAVAILABLE, retried.
    const failure = discordError(err, loaded?.discord.apiUrl ?? 'https://discord.com/api');
    const code = reportError(failure, json);
    return failure.code === 'DISCORD_AUTH' ? code : EXIT.failed;
  }
  await stopped;
  close();
  log('discord: stopped');
  return 0;
}

const args = process.argv.slice(2);
const json = args.includes('--json');

/** Exits once stdout has been flushed (a pipe may be asynchronous). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

const run =
  args[0] === 'pair' ? pairVerb(json) : args[0] === 'invite' ? inviteVerb(json) : main(json);
run.then(exit, (err) => exit(reportError(err, json)));
