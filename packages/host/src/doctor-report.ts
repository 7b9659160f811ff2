/**
 * The doctor report: what `keel doctor` prints and `keel web`'s health page shows, assembled once
 * here ({@link doctorReport}); the doors only print it. It opens the store with the full integrity
 * check (a damaged file is then read only and never written), chooses the chat model, runs the
 * live checks (`runChecks`), checks the journal (incremental from the last whole check unless
 * `full`), and reads the think service's state, the tools, the newest capture failures, the
 * beliefs the journal does not explain, the newest backup and the recovery file.
 *
 * @module
 */
import { type ChatChoice, chooseChatModel } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { LATEST_VERSION, MemoryStore, type VectorStatus } from '@keel/memory';
import { backupsPath } from './backups.js';
import { CHECK_TIMEOUT_MS, type CheckResult, runChecks, type ServiceFacts } from './checks.js';
import type { KeelConfig } from './config.js';
import { readLockHolder } from './lock.js';
import { closeStore, configuredEmbedder, damageError, openStore } from './open.js';
import { pendingRecovery } from './recovery.js';
import { newestBackup } from './restore.js';
import { commandRunner, type ServiceSetup } from './service/manager.js';
import { serviceStatus } from './service/status.js';

/** Capture failures the report lists, newest first. */
export const DOCTOR_CAPTURE_FAILURES = 5;

/** What the doctor report says about the embedder and the vector arm. */
export interface EmbedderReport {
  embedder: { name: string; model: string; dim: number } | null;
  vectors: {
    available: boolean;
    reason: string | null;
    state?: VectorStatus['state'];
    stored?: VectorStatus['stored'];
    counts?: VectorStatus['vectors'];
    pending?: number;
  };
  recall_mode: 'hybrid' | 'lexical';
}

/** The embedder and vector-arm fields of the doctor report (never throws: it reports). */
export async function embedderReport(
  config: KeelConfig,
  store: MemoryStore,
): Promise<EmbedderReport> {
  let selection: Awaited<ReturnType<typeof configuredEmbedder>>;
  try {
    selection = await configuredEmbedder(config);
  } catch (err) {
    const reason = KeelError.isInstance(err) ? `${err.code}: ${err.message}` : String(err);
    return { embedder: null, vectors: { available: false, reason }, recall_mode: 'lexical' };
  }
  if (!selection.embedder || !selection.info) {
    return {
      embedder: null,
      vectors: { available: false, reason: `no embedder: ${selection.reason}` },
      recall_mode: 'lexical',
    };
  }
  const embedder = {
    name: selection.info.provider,
    model: selection.info.model,
    dim: selection.info.dim,
  };
  try {
    const status = (await store.useEmbedder(selection.embedder, selection.reason))!;
    return {
      embedder,
      vectors: {
        available: status.state === 'active',
        reason: status.reason,
        state: status.state,
        stored: status.stored,
        counts: status.vectors,
        pending: status.pending,
      },
      recall_mode: status.state === 'active' ? 'hybrid' : 'lexical',
    };
  } catch (err) {
    const reason = KeelError.isInstance(err) ? `${err.code}: ${err.message}` : String(err);
    return { embedder, vectors: { available: false, reason }, recall_mode: 'lexical' };
  }
}

/** Options of {@link doctorReport}. */
export interface DoctorOptions {
  /** Make the checks that use the network (the model, Discord, Ollama). */
  live: boolean;
  /** Hash every journal entry again (else only those after the last whole check). */
  full: boolean;
  /**
   * Where and for whom keel installs its services (the CLI knows: it names itself), for the
   * service checks; null where that is not known (the services are then not judged).
   */
  services: ServiceSetup | null;
}

/** The doctor report, as `keel doctor --json` prints it. */
export type DoctorReport = ReturnType<typeof assemble>;

/**
 * Assembles the doctor report (see the module's description). A damaged database is reported,
 * not thrown: the report says so and how to get back.
 *
 * @throws what opening the store throws other than damage (`SCHEMA_FROM_FUTURE`, …).
 */
export async function doctorReport(
  config: KeelConfig,
  options: DoctorOptions,
): Promise<DoctorReport> {
  let store: MemoryStore;
  let integrity = 'ok';
  try {
    store = openStore(config, 'full');
  } catch (err) {
    const damage = damageError(err);
    if (!damage) throw err;
    const problems = (damage.details as { problems?: string[] } | undefined)?.problems;
    integrity = problems?.length ? problems.join('; ') : damage.message;
    store = MemoryStore.open(config.paths.db, { readonly: true });
  }
  let chat: ChatChoice;
  let chatError: KeelError | null = null;
  try {
    chat = await chooseChatModel(config.chat);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    chatError = err;
    chat = { model: null, provider: 'offline', reason: `${err.code}: ${err.message}` };
  }
  let lastTickAt: number | null = null;
  try {
    lastTickAt = store.thinkRuns.lastTick()?.started_at ?? null;
  } catch (err) {
    if (integrity === 'ok') throw err; // a damaged file may not be readable: then not judged
  }
  const services = await serviceFacts(options.services);
  const checks = runChecks(config, {
    live: options.live,
    services: (name) => services.get(name) ?? null,
    chat: chatError ?? chat,
    ...(integrity === 'ok' ? { lastTickAt } : {}),
  });
  try {
    const vectors =
      integrity === 'ok'
        ? await embedderReport(config, store)
        : {
            embedder: null,
            vectors: { available: false, reason: 'not checked: the database is damaged' },
            recall_mode: 'lexical' as const,
          };
    return assemble(config, store, {
      integrity,
      vectors,
      chat,
      checks: await checks,
      live: options.live,
      full: options.full,
    });
  } finally {
    if (integrity === 'ok') closeStore(store);
    else store.close();
  }
}

/**
 * What the service manager says of the think service and the Discord door (installed, reachable,
 * their state, the last lines of their log), for the service checks; empty without a setup.
 */
async function serviceFacts(setup: ServiceSetup | null): Promise<Map<string, ServiceFacts>> {
  const facts = new Map<string, ServiceFacts>();
  if (!setup) return facts;
  // Doctor's other live checks stop at CHECK_TIMEOUT_MS: a hung service manager does too.
  const status = await serviceStatus(
    ['think', 'discord'],
    { ...setup, run: setup.run ?? commandRunner(CHECK_TIMEOUT_MS) },
    { logLines: 3 },
  );
  for (const s of status.services) {
    facts.set(s.name, {
      installed: s.installed,
      manager: status.manager,
      managerReachable: status.reachable,
      state: s.state,
      logLines: s.logLines,
    });
  }
  return facts;
}

/** A check in snake_case, with null for what it does not have. */
function checkJson(c: CheckResult) {
  return {
    name: c.name,
    ok: c.ok,
    status: c.status,
    detail: c.detail,
    code: c.code ?? null,
    fix: c.fix ?? null,
    duration_ms: c.durationMs,
  };
}

/** What the report is made of, once gathered. */
interface Gathered {
  integrity: string;
  vectors: EmbedderReport;
  chat: ChatChoice;
  checks: CheckResult[];
  live: boolean;
  full: boolean;
}

/** The report (`--json` prints it as it is). */
function assemble(config: KeelConfig, store: MemoryStore, g: Gathered) {
  const { integrity, vectors, chat } = g;
  const sqlite = store.sqliteVersion();
  const stats = store.stats();
  const journal = journalCheck(store, integrity, g.full);
  const backup = newestBackup(config.home);
  const recovery = pendingRecovery(config.home);
  return {
    /** False when the database is damaged, its journal broken, or a live check failed (exit 1). */
    ok: integrity === 'ok' && journal?.ok === true && g.checks.every((c) => c.ok),
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
    model: modelJson(chat),
    ollama_host: config.chat.ollamaHost,
    counts: {
      facts: stats.facts,
      active: stats.active,
      pending: stats.pending,
      episodes: stats.episodes,
    },
    think: thinkStatus(config, store),
    /** The model's tools: which built-ins are on, where they reach, what the log and grants hold. */
    tools: toolsStatus(config, store, integrity),
    /** The newest captures that failed (their turns went on), newest first; null if unreadable. */
    capture_failures: captureFailures(store, integrity),
    /** Current beliefs the journal does not explain (left out of recall); null if unreadable. */
    unexplained: integrity === 'ok' ? store.unexplainedBeliefs() : null,
    /** The journal check (`keel verify`): every break with its fix; null when damaged. */
    journal,
    /** The newest copy in `$KEEL_HOME/backups` (`keel backup`), and when it was made. */
    backup: {
      folder: backupsPath(config.home),
      newest: backup?.path ?? null,
      at: backup ? new Date(backup.at).toISOString() : null,
    },
    /** Lines kept in the recovery file while the database was damaged (`keel recover`). */
    recovery,
    /** Whether the checks that use the network ran (`--offline`: not). */
    live: g.live,
    /** The live checks: does what is configured work? */
    checks: g.checks.map(checkJson),
    degraded: [
      ...(vectors.recall_mode === 'lexical' ? ['vectors: lexical-only recall'] : []),
      ...(chat.model ? [] : ['model: offline terminal']),
      ...(integrity === 'ok'
        ? []
        : [
            `database: damaged (${integrity}); restore a backup with keel restore <file>${backup ? ` (newest: ${backup.path})` : ' (keel backup makes them)'}${recovery.lines ? ', then keel recover' : ''}`,
          ]),
      ...(journal && !journal.ok
        ? [`journal: ${journal.problems.length} break(s); keel verify names them`]
        : []),
      ...(integrity === 'ok' && recovery.lines > 0
        ? [`recovery: ${recovery.lines} line(s) wait in ${recovery.path}; keel recover`]
        : []),
    ],
  };
}

/** The chat model as the report names it, with how to get one when there is none. */
function modelJson(chat: ChatChoice) {
  return chat.model
    ? {
        configured: true,
        provider: chat.provider,
        name: chat.model.model as string | null,
        reason: `${chat.provider} ${chat.model.model} (${chat.reason})`,
      }
    : {
        configured: false,
        provider: 'offline',
        name: null,
        reason: `offline: ${chat.reason}; run keel setup to choose a model (or set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run Ollama)`,
      };
}

/**
 * The model's tools as the configuration and the database show them: the built-ins on, the
 * workspace and roots, how many calls the tool log holds, the owner's standing "always" answers
 * and the reminders waiting (null counts when the database is damaged).
 */
function toolsStatus(config: KeelConfig, store: MemoryStore, integrity: string) {
  const readable = integrity === 'ok';
  return {
    enabled: config.tools.enabled,
    workspace: config.tools.workspace,
    roots: config.tools.roots,
    mcp_config: config.tools.mcpConfig,
    calls: readable ? store.toolCalls.count() : null,
    grants: readable ? store.toolGrants.list().length : null,
    reminders_pending: readable
      ? store.reminders.list().filter((r) => r.status === 'pending').length
      : null,
  };
}

/**
 * The think service as the database and its lock file show it: whether a service holds the lock
 * (its PID alive), the last tick, the last curated night, and what waits in the belief queue.
 */
function thinkStatus(config: KeelConfig, store: MemoryStore) {
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
 * The journal check `keel verify` makes (the chain, its anchor, the triggers, replay against the
 * rows): incremental from the last whole check (less than a day old) unless `full`; every break
 * with its fix; null when the database is damaged (not read).
 */
function journalCheck(store: MemoryStore, integrity: string, full: boolean) {
  if (integrity !== 'ok') return null;
  // The file passed the quick check when it was opened (`openStore(config, 'full')`).
  const r = store.verify({ incremental: !full, quickChecked: true });
  return {
    ok: r.ok,
    entries: r.journal.entries,
    head: r.end.seq,
    anchor: r.anchorFile,
    /** `whole`: every entry hashed again; `incremental`: those from `hashed_from` on. */
    scope: r.scope,
    /** The first entry hashed again (1: every entry). */
    hashed_from: r.journal.from,
    problems: r.problems.map((p) => ({ check: p.check, detail: p.detail, fix: p.fix ?? null })),
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
