/**
 * The `keel` command: every memory verb, each a thin adapter over `@keel/memory`, and with no verb
 * the terminal client. Every verb takes `--json`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { type ChatChoice, chooseChatModel, historyLine } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { readLockHolder } from '@keel/host';
import {
  type EmbedderSelection,
  type Fact,
  type ImportFormat,
  LATEST_VERSION,
  MemoryStore,
  parseFactId,
  parseImport,
  parseSlot,
  SOURCES,
  type Source,
} from '@keel/memory';
import { formatFactLine, formatResultLine } from '@keel/prompt';
import { SingleBar } from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ask } from './commands/ask.js';
import { registerDiscordCommand } from './commands/discord.js';
import {
  configuredEmbedder,
  embedderReport,
  openStoreWithEmbedder,
  registerModelCommands,
} from './commands/models.js';
import { registerThinkCommand } from './commands/think.js';
import { type Config, loadConfig } from './config.js';
import { action, EXIT, emit, reportError, wantsJson } from './output.js';
import { runTerminal } from './terminal.js';

/** The fields of a fact the CLI prints in `--json`. */
function factJson(f: Fact) {
  return {
    id: f.id,
    scope: f.scope,
    kind: f.kind,
    key: f.key,
    value: f.value,
    confidence: f.confidence,
    evidence_count: f.evidence_count,
    source: f.source,
    status: f.status,
    created_at: f.created_at,
    last_seen_at: f.last_seen_at,
    valid_from: f.valid_from,
    supersedes_id: f.supersedes_id,
    superseded_by_id: f.superseded_by_id,
    conflicts_with_id: f.conflicts_with_id,
    status_reason: f.status_reason,
  };
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

function parseDate(value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('must be a date such as 2026-03-01');
  return t;
}

function parseConfidence(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

/** Runs `fn` with an open store and closes it. */
function withStore<T>(config: Config, fn: (store: MemoryStore) => T): T {
  const store = MemoryStore.open(config.paths.db);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/**
 * Builds the `keel` program. Actions set `process.exitCode`; nothing calls `process.exit` so
 * output is always flushed.
 */
export function buildProgram(config: Config = loadConfig()): Command {
  const program = new Command('keel')
    .description(
      'keel: a personal agent that remembers honestly. With no verb, opens the terminal.',
    )
    .option('--json', 'print JSON')
    .showHelpAfterError('(keel --help lists every verb)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error:') ? '' : s) })
    .helpCommand('help [verb]', 'show help for a verb')
    .exitOverride();

  const json = wantsJson;

  program.action(
    action((_opts: unknown, cmd: Command) => runTerminal(config, { json: json(cmd) })),
  );

  program
    .command('remember')
    .description('store a belief: keel remember <kind>/<key> <value…>')
    .argument('<slot>', 'kind/key, e.g. preference/coffee')
    .argument('<value...>', 'the value')
    .addOption(
      new Option('--source <source>', 'who says so').choices([...SOURCES]).default('owner_stated'),
    )
    .option('--episode <id>', 'the episode this comes from (default: a new one)', parsePositiveInt)
    .option('--valid-from <date>', 'true since (e.g. 2026-03-01)', parseDate)
    .option(
      '--confidence <0..1>',
      'requested confidence (the evidence gate caps it)',
      parseConfidence,
    )
    .addOption(
      new Option('--scope <scope>', 'whose belief').choices(['owner', 'agent']).default('owner'),
    )
    .action(
      action(
        (
          slotRef: string,
          words: string[],
          opts: {
            source: Source;
            episode?: number;
            validFrom?: number;
            confidence?: number;
            scope: 'owner' | 'agent';
          },
          cmd: Command,
        ) =>
          withStore(config, (store) => {
            const slot = parseSlot(slotRef, opts.scope);
            const r = store.remember({
              ...slot,
              value: words.join(' '),
              source: opts.source,
              channel: 'cli',
              ...(opts.episode === undefined ? {} : { episodeId: opts.episode }),
              ...(opts.validFrom === undefined ? {} : { validFrom: opts.validFrom }),
              ...(opts.confidence === undefined ? {} : { confidence: opts.confidence }),
            });
            emit(
              json(cmd),
              {
                decision: r.decision,
                reason: r.reason,
                episode_id: r.episodeId,
                fact: r.fact && factJson(r.fact),
              },
              () => `${r.decision}: ${r.reason}${r.fact ? `\n${formatFactLine(r.fact)}` : ''}`,
            );
          }),
      ),
    );

  program
    .command('ask')
    .description('one turn with the agent, non-interactively (offline without a model)')
    .argument('<message...>', 'what to say')
    .action(
      action((words: string[], _opts: unknown, cmd: Command) =>
        ask(config, words.join(' '), json(cmd)),
      ),
    );

  program
    .command('recall')
    .description('what keel remembers about a query, best first')
    .argument('<query...>', 'the query (any text; it is never passed to FTS5 as syntax)')
    .option('--limit <n>', 'results to return (1-200)', parsePositiveInt, 10)
    .addOption(
      new Option('--type <type>', 'only facts or only episodes').choices(['fact', 'episode']),
    )
    .action(
      action(
        async (
          words: string[],
          opts: { limit: number; type?: 'fact' | 'episode' },
          cmd: Command,
        ) => {
          if (!words.join(' ').trim()) throw new KeelError('INVALID_INPUT', 'the query is empty');
          const store = await openStoreWithEmbedder(config);
          try {
            const r = await store.recall(words.join(' '), {
              limit: opts.limit,
              ...(opts.type ? { type: opts.type } : {}),
            });
            emit(json(cmd), r, () =>
              [
                `recall: ${r.mode}${r.reason ? ` (${r.reason})` : ''}`,
                ...(r.results.length ? r.results.map(formatResultLine) : ['nothing found']),
              ].join('\n'),
            );
          } finally {
            store.close();
          }
        },
      ),
    );

  program
    .command('history')
    .description('every version of a belief, newest first, with the links between them')
    .argument('<slot>', 'kind/key')
    .action(
      action((slotRef: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          const slot = parseSlot(slotRef);
          const versions = store.history(slot);
          emit(json(cmd), { slot, versions: versions.map(factJson) }, () =>
            versions.length ? versions.map(historyLine).join('\n') : `no history for ${slotRef}`,
          );
        }),
      ),
    );

  program
    .command('forget')
    .description(
      'retract a belief (it will not be re-learned); --purge erases its value everywhere',
    )
    .argument('<id>', 'fact id, e.g. 42 or f42')
    .option('--purge', 'erase the value from facts, the index, the journal and its episodes')
    .action(
      action((ref: string, opts: { purge?: boolean }, cmd: Command) =>
        withStore(config, (store) => {
          const r = store.forget(parseFactId(ref), { purge: Boolean(opts.purge), channel: 'cli' });
          emit(
            json(cmd),
            {
              fact: factJson(r.fact),
              purged: r.purged,
              erased_facts: r.erasedFacts,
              redacted_journal: r.redactedJournal,
              redacted_episodes: r.redactedEpisodes,
            },
            () =>
              r.purged
                ? `forgot and purged f${r.fact.id}: ${r.erasedFacts.length} row(s), ${r.redactedJournal} journal entries, ${r.redactedEpisodes.length} episode(s) redacted`
                : `forgot f${r.fact.id} (retracted; a tombstone keeps it from coming back)`,
          );
        }),
      ),
    );

  program
    .command('review')
    .description('pending conflicts, weakly evidenced beliefs and stale beliefs to re-validate')
    .option(
      '--threshold <0..1>',
      'list non-owner beliefs below this confidence',
      parseConfidence,
      0.75,
    )
    .action(
      action((opts: { threshold: number }, cmd: Command) =>
        withStore(config, (store) => {
          const q = store.review(opts.threshold);
          emit(
            json(cmd),
            {
              threshold: q.threshold,
              pending: q.pending.map((p) => ({
                fact: factJson(p.fact),
                contradicts: p.current && factJson(p.current),
              })),
              weak: q.weak.map(factJson),
              stale: q.stale.map(factJson),
            },
            () => {
              const lines: string[] = [];
              for (const p of q.pending) {
                lines.push(`pending ${formatFactLine(p.fact)}`);
                if (p.current) lines.push(`   contradicts ${formatFactLine(p.current)}`);
              }
              for (const f of q.weak) lines.push(`weak    ${formatFactLine(f)}`);
              for (const f of q.stale) lines.push(`stale   ${formatFactLine(f)}`);
              if (q.stale.length) {
                lines.push('stale: no new evidence for a long time; is it still true?');
              }
              if (lines.length) lines.push('keel confirm <id> accepts; keel reject <id> drops.');
              return lines.length ? lines.join('\n') : 'nothing to review';
            },
          );
        }),
      ),
    );

  program
    .command('confirm')
    .description('confirm a belief: owner_confirmed at 1.0, superseding what it contradicted')
    .argument('<id>', 'fact id')
    .action(
      action((ref: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          const r = store.confirm(parseFactId(ref), { channel: 'cli' });
          emit(
            json(cmd),
            { fact: factJson(r.fact), superseded: r.superseded && factJson(r.superseded) },
            () =>
              `confirmed ${formatFactLine(r.fact)}${r.superseded ? `\nsupersedes f${r.superseded.id}` : ''}`,
          );
        }),
      ),
    );

  program
    .command('reject')
    .description('reject a belief: rejected, with a tombstone so it does not come back')
    .argument('<id>', 'fact id')
    .action(
      action((ref: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          const f = store.reject(parseFactId(ref), { channel: 'cli' });
          emit(json(cmd), { fact: factJson(f) }, () => `rejected f${f.id}`);
        }),
      ),
    );

  program
    .command('import')
    .description('import a conversation; every turn becomes an episode (rerunning adds nothing)')
    .argument('<file>', 'a JSON file')
    .addOption(
      new Option('--format <format>', 'the file format')
        .choices(['locomo', 'longmemeval'])
        .makeOptionMandatory(),
    )
    .option('--no-embed', 'store the turns only; keel reindex embeds them later')
    .action(
      action((file: string, opts: { format: ImportFormat; embed: boolean }, cmd: Command) =>
        importFile(config, file, opts.format, opts.embed, json(cmd)),
      ),
    );

  program
    .command('verify')
    .description('walk the journal chain and check every invariant; exit 1 on any break')
    .action(
      action((_opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          const r = store.verify();
          emit(json(cmd), r, () =>
            [
              `journal: ${r.journal.entries} entries, ${r.journal.breaks.length} break(s)`,
              `facts: ${r.counts.facts} (${r.counts.active} active), episodes: ${r.counts.episodes}, tombstones: ${r.counts.tombstones}`,
              ...r.problems.map(
                (p) => `BROKEN ${p.check}: ${p.detail}${p.fix ? ` (fix: ${p.fix})` : ''}`,
              ),
              r.ok ? 'ok' : `${r.problems.length} problem(s)`,
            ].join('\n'),
          );
          return r.ok ? EXIT.ok : EXIT.failed;
        }),
      ),
    );

  program
    .command('doctor')
    .description('what is configured and what is degraded')
    .action(action((_opts: unknown, cmd: Command) => doctor(config, json(cmd))));

  registerModelCommands(program, config);
  registerDiscordCommand(program);
  registerThinkCommand(program);
  return program;
}

/** What `keel import` did about vectors. */
interface ImportVectors {
  /** The embedder used ("ollama nomic-embed-text (768-d)"), or null when none ran. */
  embedder: string | null;
  /** Rows embedded by this import (its turns, and any row that was waiting). */
  embedded: number;
  /** Rows still waiting for a vector (keel reindex embeds them). */
  pending: number;
  /** Why some or all vectors were not made; null when nothing is missing. */
  reason: string | null;
}

/**
 * Embeds what an import queued, when an embedder is configured and can run: in batches, with a
 * progress bar, interruptible with Ctrl-C (what is embedded stays). Never throws for the
 * embedder's sake: the turns are stored either way, and the result says what is pending and why.
 */
async function embedImported(
  config: Config,
  store: MemoryStore,
  embed: boolean,
  showBar: boolean,
): Promise<ImportVectors> {
  const waiting = () => store.pendingVectors();
  const none = (reason: string): ImportVectors => ({
    embedder: null,
    embedded: 0,
    pending: waiting(),
    reason,
  });
  if (!embed) return none('--no-embed');
  let selection: EmbedderSelection;
  try {
    selection = await configuredEmbedder(config);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    return none(`${err.code}: ${err.message}`);
  }
  if (!selection.embedder || !selection.info) return none(`no embedder: ${selection.reason}`);
  const name = `${selection.info.provider} ${selection.info.model} (${selection.info.dim}-d)`;
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once('SIGINT', onSigint);
  const bar = new SingleBar({
    format: 'embedding [{bar}] {percentage}% | {value}/{total} rows | {eta_formatted} left',
    stream: process.stderr,
  });
  let started = false;
  let embedded = 0;
  try {
    const status = await store.useEmbedder(selection.embedder, selection.reason);
    if (status?.state !== 'active') {
      return { ...none(status?.reason ?? 'vectors paused'), embedder: name };
    }
    const r = await store.embedPending({
      signal: stop.signal,
      onProgress: (done, total) => {
        embedded = done;
        if (!showBar) return;
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
    });
    return { embedder: name, embedded: r.embedded, pending: r.remaining, reason: null };
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    return { embedder: name, embedded, pending: waiting(), reason: `${err.code}: ${err.message}` };
  } finally {
    if (started) bar.stop();
    process.off('SIGINT', onSigint);
  }
}

async function importFile(
  config: Config,
  file: string,
  format: ImportFormat,
  embed: boolean,
  asJson: boolean,
): Promise<void> {
  let bytes: Buffer;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    bytes = readFileSync(file);
  } catch (err) {
    throw new KeelError('FILE_UNREADABLE', `cannot read ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new KeelError('IMPORT_FORMAT', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = parseImport(data, format);
  const store = MemoryStore.open(config.paths.db);
  try {
    const showBar = !asJson && process.stderr.isTTY;
    const bar = new SingleBar({
      format: 'importing [{bar}] {percentage}% | {value}/{total} turns | {eta_formatted} left',
      stream: process.stderr,
    });
    if (showBar) bar.start(parsed.turns.length, 0);
    const started = performance.now();
    const r = store.importTurns(parsed, {
      path: file,
      fileSha256: createHash('sha256').update(bytes).digest('hex'),
      onProgress: (done) => showBar && bar.update(done),
    });
    if (showBar) bar.stop();
    const seconds = (performance.now() - started) / 1000;
    const embedStarted = performance.now();
    const vectors = await embedImported(config, store, embed, showBar);
    const embedSeconds = (performance.now() - embedStarted) / 1000;
    emit(
      asJson,
      {
        ...r,
        seconds: Math.round(seconds * 1000) / 1000,
        turns_per_second: Math.round(r.total / Math.max(seconds, 1e-6)),
        vectors: { ...vectors, seconds: Math.round(embedSeconds * 1000) / 1000 },
      },
      () =>
        [
          `imported ${r.added} new turn(s) of ${r.total} from ${file} (${r.existing} already stored) in ${seconds.toFixed(2)} s`,
          ...(r.skipped.length
            ? [
                `skipped ${r.skipped.length} malformed turn(s), e.g. ${r.skipped[0]!.where}: ${r.skipped[0]!.reason}`,
              ]
            : []),
          ...(vectors.embedded > 0
            ? [
                `embedded ${vectors.embedded} row(s) with ${vectors.embedder} in ${embedSeconds.toFixed(1)} s`,
              ]
            : []),
          ...(vectors.reason === null || vectors.pending === 0
            ? []
            : vectors.embedder !== null
              ? [
                  `vectors pending for ${vectors.pending} row(s) (${vectors.reason}); keel reindex will fill them`,
                ]
              : [
                  `no vectors for ${vectors.pending} row(s) (${vectors.reason}): recall of them is lexical; keel reindex embeds them once an embedder is set up`,
                ]),
        ].join('\n'),
    );
  } finally {
    store.close();
  }
}

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

/** Runs the program on `argv` and resolves to the exit code. */
export async function main(argv: string[] = process.argv): Promise<number> {
  const wantsJson = argv.includes('--json');
  let program: Command;
  try {
    program = buildProgram();
  } catch (err) {
    return reportError(err, wantsJson); // a bad setting (CONFIG_INVALID)
  }
  const verb = argv.slice(2).find((a) => !a.startsWith('-'));
  if (
    verb !== undefined &&
    verb !== 'help' &&
    !program.commands.some((c) => c.name() === verb || c.aliases().includes(verb))
  ) {
    return reportError(
      new KeelError('INVALID_INPUT', `unknown verb "${verb}"; \`keel --help\` lists every verb`),
      wantsJson,
    );
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.exitCode === 0
      ) {
        return EXIT.ok;
      }
      // A verb with sub-verbs given none (e.g. `keel models`): its help was shown.
      if (err.code === 'commander.help') return EXIT.failed;
      return reportError(
        new KeelError('INVALID_INPUT', err.message.replace(/^error:\s*/, '')),
        wantsJson,
      );
    }
    return reportError(err, wantsJson);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}
