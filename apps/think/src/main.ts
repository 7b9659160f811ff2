#!/usr/bin/env node
/**
 * The think service as a process (`keel think`, or the systemd/launchd service). Arguments:
 * `--once` (one tick, then exit), `--curate` (with `--once`: the nightly curator now), `--json`
 * (each run's report as one JSON line on stdout, under `@keel/host`'s `formatJson` contract:
 * snake_case keys, ISO instants; an error as one `{"error": …}` line). Settings come from
 * `@keel/host`'s `readConfig` (the environment over `$KEEL_HOME/config.toml`); the log goes to
 * stderr. SIGTERM, SIGINT or SIGHUP stops it gracefully; so does the end of the
 * `keel` CLI that started it. Exit codes are `@keel/host`'s `EXIT`.
 *
 * A database that takes no writes stops the service (exit 2: a service manager does not restart
 * it): damaged (`DB_CORRUPT`, found at start or by a tick) or its journal broken (`JOURNAL_BROKEN`,
 * met by a write); the owner is told by DM when Discord is configured, in the words of the error
 * ({@link stoppedNotice}).
 *
 * @module
 */
import {
  formatJson,
  formatQuietHours,
  type KeelConfig,
  lockPath,
  openKeel,
  ownerNotifier,
  readConfig,
  reportError,
  stopWhenParentGone,
  terminalText,
} from '@keel/host';
import { parseThinkArgs } from './args.js';
import { runThink } from './run.js';
import { createSession, formatReport, runService, stoppedNotice } from './service.js';

/** The service's one writer of lines for a person (its log; the diary is the model's words). */
const log = (line: string) =>
  process.stderr.write(terminalText(`${new Date().toISOString()} ${line}\n`));

/**
 * Tells the owner (a Discord DM, when configured) that the service stopped because the database
 * takes no writes, in the words of its error (a damaged database, or a journal that does not match
 * its anchor), with the error's fix.
 */
async function tellOwner(config: KeelConfig, err: unknown): Promise<void> {
  const notice = stoppedNotice(err);
  const { notify } = ownerNotifier(config);
  if (!notice || !notify) return;
  try {
    await notify(notice);
  } catch (e) {
    log(`think: could not tell the owner: ${(e as Error).message}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  let loaded: KeelConfig | null = null;
  try {
    const args = parseThinkArgs(argv);
    const config = readConfig(process.env);
    loaded = config;
    stopWhenParentGone(config.process.parentPid, { name: 'think', log });
    const { intervalMin, curateAt, tz, quietHours } = config.think;
    if (!args.once) {
      log(
        `think: every ${intervalMin} min; curator at ${curateAt}:00 ${tz}; quiet hours ${quietHours ? formatQuietHours(quietHours) : 'none'}`,
      );
    }
    const result = await runService({
      lockPath: lockPath(config.home),
      intervalMs: intervalMin * 60_000,
      once: args.once,
      log,
      onReport: (r) =>
        process.stdout.write(`${args.json ? formatJson(r) : terminalText(formatReport(r))}\n`),
      open: async () => {
        // A damaged page is found now, not by a night that fails and retries every hour.
        const keel = await openKeel(config, {
          chat: true,
          checkIntegrity: true,
          onEmbedderError: 'lexical',
        });
        const { chat, owner, embedder } = keel;
        log(
          chat.model
            ? `think: model: ${chat.provider} ${chat.model.model} (${chat.reason})`
            : `think: no model configured: reflection and the curator are skipped (${chat.reason}); queued turns wait, the night's upkeep still runs`,
        );
        log(
          `think: recall: ${embedder.name ? `hybrid (${embedder.name})` : `lexical (${embedder.reason})`}`,
        );
        if (!owner.notify) log(`think: ${owner.reason}`);
        return createSession({
          store: keel.store,
          config: config.think,
          model: chat.model,
          notify: owner.notify,
          now: Date.now,
          log,
          chooseGate: keel.chooseGate,
          run: runThink,
          runOptions: args.once ? { curate: args.curate ? 'now' : 'auto' } : {},
        });
      },
    });
    if (result.stoppedBy) log(`think: stopped (${result.ticks} run(s) completed)`);
    return 0;
  } catch (err) {
    if (loaded) await tellOwner(loaded, err);
    return reportError(err, json);
  }
}

/** Exits once stdout has been flushed (a pipe may be asynchronous). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

main(process.argv.slice(2)).then(exit, (err) => exit(reportError(err, false)));
