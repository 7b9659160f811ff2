/**
 * `keel doctor`: what is configured and what is degraded: the data folder, the database's schema
 * and integrity, full-text and vector search, the embedder, the chat model, the memory's size and
 * the think service (its lock holder and its state, read through the store's repositories). Exits
 * 1 when the database is damaged.
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
          reason: `offline: ${chat.reason}; set ANTHROPIC_API_KEY or run Ollama`,
        },
    ollama_host: config.chat.ollamaHost,
    counts: {
      facts: stats.facts,
      active: stats.active,
      pending: stats.pending,
      episodes: stats.episodes,
    },
    think: thinkStatus(config, store),
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
