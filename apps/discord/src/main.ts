#!/usr/bin/env node
/**
 * The Discord front door as a process (`keel discord`, or the systemd/launchd service): the one
 * module of `apps/discord` that reads the environment.
 *
 * - `DISCORD_TOKEN` (required): the bot token.
 * - `KEEL_DISCORD_OWNER_ID` (required): the owner's Discord user id; without it the process
 *   refuses to start.
 * - `KEEL_DISCORD_API_URL`: the REST API base (a proxy or a test server).
 * - `KEEL_HOME`, and the model variables the terminal uses: `KEEL_CHAT_PROVIDER`,
 *   `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `KEEL_MODEL`, `OLLAMA_HOST`, `KEEL_OLLAMA_CHAT_MODEL`.
 *
 * SIGTERM or SIGINT stops it gracefully (the turn in progress gets `KEEL_DISCORD_GRACE_MS`,
 * default 15000, to finish, then is cancelled). When `KEEL_PARENT_PID` is set (the `keel` CLI sets
 * it to its own PID when it spawns this), it checks every second that that process is still its
 * parent and, once it is gone (e.g. `keel` was killed with SIGKILL), sends itself SIGTERM: the same
 * graceful stop, rather than running on as an orphan. Exit codes: 0 stopped, 2 configuration error,
 * 1 anything else.
 *
 * @module
 */
import { type ChatChoice, chooseChatModel, loadChatConfig } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { keelHome, MemoryStore } from '@keel/memory';
import { KeelDiscord } from './bot.js';

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/**
 * With `KEEL_PARENT_PID` set: checks now and every second (an unref'd timer) that this process's
 * parent is still that PID and alive; once not, stops this process as SIGTERM would (before the
 * handlers are installed, SIGTERM's default simply ends it).
 */
function stopWithParent(env: NodeJS.ProcessEnv): void {
  const raw = env.KEEL_PARENT_PID?.trim();
  if (!raw) return;
  const parentPid = /^\d+$/.test(raw) ? Number(raw) : 0;
  if (!Number.isSafeInteger(parentPid) || parentPid <= 0) {
    log(`discord: KEEL_PARENT_PID "${raw}" is not a PID: not watching the parent process`);
    return;
  }
  const alive = () => {
    try {
      process.kill(parentPid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
  const check = () => {
    if (process.ppid === parentPid && alive()) return;
    clearInterval(timer);
    log(`discord: the keel process that started this one (PID ${parentPid}) is gone: stopping`);
    process.kill(process.pid, 'SIGTERM');
  };
  const timer = setInterval(check, 1000);
  timer.unref();
  check();
}

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  stopWithParent(env);
  const token = env.DISCORD_TOKEN?.trim() ?? '';
  const ownerId = env.KEEL_DISCORD_OWNER_ID?.trim() ?? '';
  if (!ownerId) {
    log(
      'error INVALID_INPUT: KEEL_DISCORD_OWNER_ID is not set; keel answers nobody on Discord without an owner (fail closed)',
    );
    return 2;
  }
  if (!token) {
    log('error INVALID_INPUT: DISCORD_TOKEN is not set');
    return 2;
  }
  const home = keelHome(env);
  const apiUrl = env.KEEL_DISCORD_API_URL?.trim();
  const graceMs = Number(env.KEEL_DISCORD_GRACE_MS ?? 15_000);
  let choice: ChatChoice;
  try {
    // The same choice as the terminal's: KEEL_CHAT_PROVIDER, else Anthropic with a key, else
    // Ollama when it answers, else offline.
    choice = await chooseChatModel(loadChatConfig(env));
  } catch (err) {
    log(`error ${KeelError.isInstance(err) ? err.code : ''}: ${(err as Error).message}`);
    return 2;
  }
  const store = MemoryStore.openHome(home);
  let bot: KeelDiscord;
  try {
    bot = new KeelDiscord({
      token,
      ownerId,
      store,
      model: choice.model,
      log,
      ...(apiUrl ? { apiUrl } : {}),
    });
  } catch (err) {
    store.close();
    log(`error ${KeelError.isInstance(err) ? err.code : ''}: ${(err as Error).message}`);
    return 2;
  }
  let stopping: Promise<void> | null = null;
  const stop = (signal: string) => {
    if (stopping) return stopping;
    log(`discord: ${signal}: stopping`);
    stopping = bot.stop(Number.isFinite(graceMs) ? graceMs : 15_000);
    return stopping;
  };
  const stopped = new Promise<void>((resolveStop) => {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(sig, () => void stop(sig).then(resolveStop, resolveStop));
    }
  });
  try {
    log(
      `discord: model: ${choice.model ? `${choice.provider} ${choice.model.model}` : 'offline'} (${choice.reason})`,
    );
    await bot.start();
  } catch (err) {
    log(`discord: could not connect: ${(err as Error).message}`);
    await bot.stop(0).catch(() => {});
    store.close();
    return 1;
  }
  await stopped;
  store.close();
  log('discord: stopped');
  return 0;
}

main(process.env).then(
  (code) => process.exit(code),
  (err) => {
    log(`discord: fatal: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
