/**
 * `keel doctor`: what is configured and what is degraded: the data folder, the database's schema
 * and integrity, full-text and vector search, the embedder, the chat model, the memory's size, the
 * think service (its lock holder and its state, read through the store's repositories) and the
 * newest captures that failed (a failed capture never fails its turn; this is where it shows).
 * Exits 1 when the database is damaged, never for capture failures.
 *
 * @module
 */
import { type ChatChoice, chooseChatModel } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { readLockHolder } from '@keel/host';
import { LATEST_VERSION, MemoryStore } from '@keel/memory';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, EXIT, emit, wantsJson as json } from '../output.js';
import { embedderReport } from './models.js';

/** Capture failures the report lists, newest first. */
const DOCTOR_CAPTURE_FAILURES = 5;
/** A capture failure this recent (ms) counts as "failed recently" in the text report: 30 days. */
const RECENT_CAPTURE_MS = 30 * 86_400_000;

/** Registers `keel doctor`. */
export function registerDoctorCommand(program: Command, config: Config): void {
  program
    .command('doctor')
    .description('what is configured and what is degraded')
    .action(action((_opts: unknown, cmd: Command) => doctor(config, json(cmd))));
}

/** Prints the doctor report. @returns the exit code: 1 when the database is damaged. */
async function doctor(config: Config, asJson: boolean): Promise<number> {
  const store = MemoryStore.open(config.paths.db);
  let report: ReturnType<typeof doctorReport>;
  let chat: ChatChoice;
  try {
    chat = await chooseChatModel(config.chat);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    chat = { model: null, provider: 'offline', reason: `${err.code}: ${err.message}` };
  }
  try {
    report = doctorReport(config, store, await embedderReport(config, store), chat);
  } finally {
    store.close();
  }
  emit(asJson, report, () =>
    [
      `data folder   ${report.home}`,
      `database      ${report.database} (schema ${report.schema_version}, SQLite ${report.sqlite})`,
      `integrity     ${report.integrity === 'ok' ? 'ok' : `DAMAGED: ${report.integrity} (move the file aside and restore a backup)`}`,
      'full-text     FTS5 ok',
      `embedder      ${report.embedder ? `${report.embedder.name} ${report.embedder.model} (${report.embedder.dim}-d)` : 'none'}`,
      `vectors       ${
        report.vectors.available
          ? `on: ${report.vectors.counts?.facts ?? 0} facts, ${report.vectors.counts?.episodes ?? 0} episodes indexed${report.vectors.pending ? `, ${report.vectors.pending} waiting (keel reindex)` : ''}`
          : `off: ${report.vectors.reason}`
      }`,
      `recall mode   ${report.recall_mode}`,
      `model         ${report.model.reason}`,
      `memory        ${report.counts.active} active beliefs (${report.counts.pending} pending), ${report.counts.episodes} episodes`,
      `think         ${
        report.think.running
          ? `running (PID ${report.think.running.pid})`
          : 'not running (keel think)'
      }; last tick ${report.think.last_tick ? `${report.think.last_tick.status} at ${report.think.last_tick.at}` : 'never'}; last night ${report.think.last_night ?? 'never'}; ${report.think.queue.waiting} turn(s) waiting for the gate, ${report.think.queue.believed} for the curator`,
      `capture       ${
        report.capture_failures
          ? captureLine(report.capture_failures, Date.now())
          : 'unknown: the journal cannot be read (the database is damaged)'
      }`,
    ].join('\n'),
  );
  return report.integrity === 'ok' ? EXIT.ok : EXIT.failed;
}

/** The doctor report (`--json` prints it as it is). */
function doctorReport(
  config: Config,
  store: MemoryStore,
  vectors: Awaited<ReturnType<typeof embedderReport>>,
  chat: ChatChoice,
) {
  const sqlite = store.sqliteVersion();
  let integrity: string;
  try {
    integrity = store.quickCheck(5).join('; ');
  } catch (err) {
    integrity = (err as Error).message;
  }
  const stats = store.stats();
  return {
    home: config.home,
    database: config.paths.db,
    schema_version: LATEST_VERSION,
    sqlite,
    fts5: true,
    /** SQLite's quick_check: "ok", or what is damaged. */
    integrity,
    vectors: vectors.vectors,
    embedder: vectors.embedder,
    recall_mode: vectors.recall_mode,
    model: chat.model
      ? {
          configured: true,
          provider: chat.provider,
          name: chat.model.model,
          reason: `${chat.provider} ${chat.model.model} (${chat.reason})`,
        }
      : {
          configured: false,
          provider: 'offline',
          name: null,
          reason: `offline: ${chat.reason}; set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run Ollama`,
        },
    ollama_host: config.chat.ollamaHost,
    counts: {
      facts: stats.facts,
      active: stats.active,
      pending: stats.pending,
      episodes: stats.episodes,
    },
    think: thinkStatus(config, store),
    /** The newest captures that failed (their turns went on), newest first; null if unreadable. */
    capture_failures: captureFailures(store, integrity),
    degraded: [
      ...(vectors.recall_mode === 'lexical' ? ['vectors: lexical-only recall'] : []),
      ...(chat.model ? [] : ['model: offline terminal']),
      ...(integrity === 'ok' ? [] : [`database: damaged (${integrity}); keel verify has details`]),
    ],
  };
}

/**
 * The think service as the database and its lock file show it: whether a service holds the lock
 * (its PID alive), the last tick, the last curated night, and what waits in the belief queue.
 */
function thinkStatus(config: Config, store: MemoryStore) {
  const holder = readLockHolder(config.home);
  const running = holder?.alive
    ? { pid: holder.pid, since: new Date(holder.startedAt).toISOString() }
    : null;
  const tick = store.thinkRuns.lastTick();
  const night = store.diary.lastNight();
  const queue = store.beliefQueue.counts();
  return {
    running,
    last_tick: tick
      ? { status: tick.status, at: new Date(tick.started_at).toISOString(), gate: tick.gate }
      : null,
    last_night: night,
    queue,
  };
}

/**
 * The newest capture failures as the report shows them; null when the database is damaged and
 * the journal cannot be read (the rest of the report still stands).
 */
function captureFailures(store: MemoryStore, integrity: string) {
  try {
    return store.captureFailures(DOCTOR_CAPTURE_FAILURES).map((f) => ({
      at: new Date(f.at).toISOString(),
      episode_id: f.episodeId,
      code: f.code,
      message: f.message,
    }));
  } catch (err) {
    if (integrity === 'ok') throw err;
    return null;
  }
}

/**
 * The capture line: `2 failed recently: e41 TOO_LARGE value is …; e40 …` for failures in the last
 * {@link RECENT_CAPTURE_MS}, else `ok` (with the date of the last failure when there was one).
 */
function captureLine(
  failures: { at: string; episode_id: number | null; code: string; message: string }[],
  now: number,
): string {
  const recent = failures.filter((f) => now - Date.parse(f.at) <= RECENT_CAPTURE_MS);
  if (recent.length === 0) {
    return failures[0] ? `ok (last failure ${failures[0].at.slice(0, 10)})` : 'ok';
  }
  const clip = (s: string) => (s.length <= 80 ? s : `${s.slice(0, 79)}…`);
  const count =
    recent.length === DOCTOR_CAPTURE_FAILURES ? `${recent.length}+` : String(recent.length);
  return `${count} failed recently: ${recent
    .map((f) => `${f.episode_id === null ? '' : `e${f.episode_id} `}${f.code} ${clip(f.message)}`)
    .join('; ')}`;
}
