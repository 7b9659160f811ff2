#!/usr/bin/env node
/**
 * The think service as a process (`keel think`, or the systemd/launchd service): the one module of
 * `apps/think` that reads the environment.
 *
 * Arguments: `--once` (one tick, then exit), `--curate` (with `--once`: the nightly curator now),
 * `--json` (each run's report as one JSON line on stdout; otherwise one human line).
 *
 * Environment: `KEEL_HOME`; the service's own variables (see `loadThinkConfig`):
 * `KEEL_THINK_INTERVAL_MIN`, `KEEL_QUIET_HOURS`, `KEEL_TZ`, `KEEL_CURATE_AT`, `OLLAMA_HOST`,
 * `KEEL_GATE_MODEL`; the model variables the terminal uses (`KEEL_CHAT_PROVIDER`,
 * `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `KEEL_MODEL`, `KEEL_OLLAMA_CHAT_MODEL`); and for DMs to
 * the owner `DISCORD_TOKEN`, `KEEL_DISCORD_OWNER_ID`, `KEEL_DISCORD_API_URL`.
 *
 * The log goes to stderr. SIGTERM, SIGINT or SIGHUP stops it gracefully (the run in flight is
 * cancelled and recorded, the store closed, the lock released). When `KEEL_PARENT_PID` is set (the
 * `keel` CLI sets it to its own PID when it spawns this), the service checks every second that
 * that process is still its parent and, once it is gone (e.g. `keel` was killed with SIGKILL),
 * sends itself SIGTERM: the same graceful stop, rather than running on as an orphan holding the
 * lock. Exit codes: 0 done or stopped, 2 an error with a code (configuration, another service
 * running, the store), 1 anything else.
 *
 * @module
 */
import { chooseChatModel, loadChatConfig } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { chooseBeliefGate } from '@keel/gate';
import { keelHome, MemoryStore } from '@keel/memory';
import { sendToOwner, validateOwnerId } from '@keel/outbound';
import { loadThinkConfig, parseParentPid, parseThinkArgs, type ThinkArgs } from './config.js';
import { lockPath } from './lock.js';
import { runThink } from './run.js';
import { createSession, formatReport, runService, watchParent } from './service.js';
import type { Notify, ThinkConfig } from './types.js';

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/** Prints an error as the CLI does (`error CODE: message` and `fix: …`); returns the exit code. */
function report(err: unknown, json: boolean): number {
  const known = KeelError.isInstance(err);
  const e = known
    ? err.toJSON()
    : {
        code: 'INTERNAL',
        message: err instanceof Error ? (err.stack ?? err.message) : String(err),
        fix: 'This is a bug in keel; please report it with the command you ran.',
      };
  process.stderr.write(`error ${e.code}: ${e.message}\nfix: ${e.fix}\n`);
  if (json) process.stdout.write(`${JSON.stringify({ error: e })}\n`);
  return known ? 2 : 1;
}

/** DMs to the owner when both DISCORD_TOKEN and KEEL_DISCORD_OWNER_ID are set; else null. */
function ownerNotify(env: NodeJS.ProcessEnv): Notify | null {
  const token = env.DISCORD_TOKEN?.trim() ?? '';
  const ownerId = env.KEEL_DISCORD_OWNER_ID?.trim() ?? '';
  if (!token || !ownerId) {
    log(
      'think: DISCORD_TOKEN and KEEL_DISCORD_OWNER_ID are not both set: nothing urgent is sent to the owner',
    );
    return null;
  }
  validateOwnerId(ownerId);
  const apiUrl = env.KEEL_DISCORD_API_URL?.trim();
  return async (text) => {
    await sendToOwner({ token, ownerId, ...(apiUrl ? { apiUrl } : {}) }, text);
  };
}

/**
 * With `KEEL_PARENT_PID` set: once that process is gone, stops this one as SIGTERM would (before
 * the service has installed its handlers, SIGTERM's default simply ends the process: nothing is
 * held yet).
 */
function stopWithParent(env: NodeJS.ProcessEnv): void {
  const raw = env.KEEL_PARENT_PID?.trim();
  if (!raw) return;
  const parentPid = parseParentPid(raw);
  if (parentPid === null) {
    log(`think: KEEL_PARENT_PID "${raw}" is not a PID: not watching the parent process`);
    return;
  }
  watchParent({
    parentPid,
    onGone: () => {
      log(`think: the keel process that started this one (PID ${parentPid}) is gone: stopping`);
      process.kill(process.pid, 'SIGTERM');
    },
  });
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  stopWithParent(env);
  let args: ThinkArgs = { once: false, curate: false, json: argv.includes('--json') };
  let config: ThinkConfig;
  let notify: Notify | null;
  let chat: ReturnType<typeof loadChatConfig>;
  try {
    args = parseThinkArgs(argv);
    config = loadThinkConfig(env);
    chat = loadChatConfig(env);
    notify = ownerNotify(env);
  } catch (err) {
    return report(err, args.json);
  }
  const home = keelHome(env);
  try {
    if (!args.once) {
      log(
        `think: every ${config.intervalMin} min; curator at ${config.curateAt}:00 ${config.tz}; quiet hours ${config.quietHours ? `${config.quietHours.start}-${config.quietHours.end}` : 'none'}`,
      );
    }
    const result = await runService({
      lockPath: lockPath(home),
      intervalMs: config.intervalMin * 60_000,
      once: args.once,
      log,
      onReport: (r) => process.stdout.write(`${args.json ? JSON.stringify(r) : formatReport(r)}\n`),
      open: async () => {
        const choice = await chooseChatModel(chat);
        if (choice.model) {
          log(`think: model: ${choice.provider} ${choice.model.model} (${choice.reason})`);
        } else {
          log(
            `think: no model configured: reflection and the curator are skipped (${choice.reason}); queued turns wait, the night's upkeep still runs`,
          );
        }
        const store = MemoryStore.openHome(home);
        // A damaged page is found now, not by a night that fails and retries every hour.
        const [check] = store.quickCheck(1);
        if (check !== 'ok') {
          store.close();
          throw new KeelError(
            'DB_CORRUPT',
            `the database is damaged (${check ?? 'no answer'}); keel verify has details`,
          );
        }
        return createSession({
          store,
          config,
          model: choice.model,
          notify,
          now: Date.now,
          log,
          chooseGate: chooseBeliefGate,
          run: runThink,
          runOptions: args.once ? { curate: args.curate ? 'now' : 'auto' } : {},
        });
      },
    });
    if (result.stoppedBy) log(`think: stopped (${result.ticks} run(s) completed)`);
    return 0;
  } catch (err) {
    return report(err, args.json);
  }
}

/** Exits once stdout has been flushed (a pipe may be asynchronous). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

main(process.argv.slice(2), process.env).then(exit, (err) => exit(report(err, false)));
