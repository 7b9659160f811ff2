/**
 * The memory verbs, each a thin adapter over `@keel/memory`: `keel remember` (store a belief),
 * `keel recall` and `keel history` (read), and the owner's corrections `keel forget`, `keel keep`,
 * `keel review`, `keel answer`, `keel confirm` and `keel reject`. Every verb takes `--json`.
 *
 * @module
 */
import { cappedLine, secretNotice } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { embedWrittenNow, openKeel, type RecoveryInput, type RecoveryRemember } from '@keel/host';
import { resolveAsOf } from '@keel/language';
import {
  type ForgetResult,
  type MemoryStore,
  type PurgeReceipt,
  parseAnswer,
  parseFactId,
  parseQuestionId,
  parseSlot,
  questionText,
  SOURCES,
  type Source,
} from '@keel/memory';
import { formatFactLine, formatResultLine } from '@keel/prompt';
import { forgetAndPurge, forgetPurgeTarget, historyLine, MEMORY_COMMANDS } from '@keel/tools';
import { type Command, Option } from 'commander';
import type { Config } from '../config.js';
import { action, emit, wantsJson as json } from '../output.js';
import { backupLines, backupsJson, confirmErase, receiptJson, receiptLines } from './purge.js';
import {
  factJson,
  keepOnDamage,
  parseConfidence,
  parseDate,
  parsePositiveInt,
  withStore,
  withStoreAsync,
  writeResultJson,
} from './shared.js';

/**
 * What `keel remember` keeps in the recovery file when the database is damaged: the command as the
 * owner typed it, and the belief it asks for (`keel recover` writes it through the write review).
 */
function rememberedLine(
  slotRef: string,
  value: string,
  opts: { source: Source; validFrom?: number; replaces?: boolean; scope: 'owner' | 'agent' },
): RecoveryInput {
  let remember: RecoveryRemember | null = null;
  try {
    remember = {
      ...parseSlot(slotRef, opts.scope),
      value,
      source: opts.source,
      ...(opts.validFrom === undefined ? {} : { validFrom: opts.validFrom }),
      ...(opts.replaces ? { replaces: true } : {}),
    };
  } catch {
    // not a slot: the words alone are kept
  }
  return {
    channel: 'cli',
    text: `remember ${slotRef} ${value}`,
    ...(remember ? { remember } : {}),
  };
}

/** Registers `keel remember <kind>/<key> <value…>`. */
export function registerRememberCommand(program: Command, config: Config): void {
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
      '--replaces',
      'with --valid-from earlier than the current value: this value replaces it (else it is kept as history)',
    )
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
            replaces?: boolean;
            confidence?: number;
            scope: 'owner' | 'agent';
          },
          cmd: Command,
        ) =>
          keepOnDamage(config, rememberedLine(slotRef, words.join(' '), opts), () =>
            withStoreAsync(config, async (store) => {
              const slot = parseSlot(slotRef, opts.scope);
              const mark = store.vectorMark();
              const r = store.remember({
                ...slot,
                value: words.join(' '),
                source: opts.source,
                channel: 'cli',
                ...(opts.episode === undefined ? {} : { episodeId: opts.episode }),
                ...(opts.validFrom === undefined ? {} : { validFrom: opts.validFrom }),
                ...(opts.replaces ? { replaces: true } : {}),
                ...(opts.confidence === undefined ? {} : { confidence: opts.confidence }),
              });
              emit(json(cmd), writeResultJson(r), () =>
                [
                  `${r.decision}: ${r.reason}`,
                  ...(r.secret ? [secretNotice([r.secret])] : []),
                  ...(r.fact ? [formatFactLine(r.fact)] : []),
                  ...(r.confidenceCapped ? [cappedLine(r.confidenceCapped)] : []),
                ].join('\n'),
              );
              // Found by meaning at once, not after the next think tick: the new belief is
              // embedded now, within a short bound (else it waits for the tick, as before). A
              // store whose vectors were never in use (mark 0) gets them on this first binding.
              const queued = store.vectorMark() > mark || mark === 0;
              if (r.fact?.status === 'active' && queued) await embedWrittenNow(config, store, mark);
            }),
          ),
      ),
    );
}

/** Registers `keel recall <query…>` and `keel history <slot>`. */
export function registerRecallCommands(program: Command, config: Config): void {
  program
    .command('recall')
    .description(MEMORY_COMMANDS.recall)
    .argument('<query...>', 'the query (any text; it is never passed to FTS5 as syntax)')
    .option('--limit <n>', 'results to return (1-200)', parsePositiveInt, 10)
    .addOption(
      new Option('--type <type>', 'only facts or only episodes').choices(['fact', 'episode']),
    )
    .option(
      '--as-of <when>',
      'what keel believes was true then: a date (2026-03-01) or words ("last March", "3 weeks ago")',
    )
    .action(
      action(
        async (
          words: string[],
          opts: { limit: number; type?: 'fact' | 'episode'; asOf?: string },
          cmd: Command,
        ) => {
          if (!words.join(' ').trim()) throw new KeelError('INVALID_INPUT', 'the query is empty');
          const asOf =
            opts.asOf === undefined
              ? undefined
              : resolveAsOf(opts.asOf, Date.now(), config.think.tz);
          if (asOf === null) {
            throw new KeelError(
              'INVALID_INPUT',
              `--as-of "${opts.asOf}" is not a date; use e.g. 2026-03-01 or "last March"`,
            );
          }
          const keel = await openKeel(config, { checkIntegrity: 'cached' });
          const store = keel.store;
          let failure: unknown;
          try {
            const r = await store.recall(words.join(' '), {
              limit: opts.limit,
              ...(opts.type ? { type: opts.type } : {}),
              ...(asOf === undefined ? {} : { asOf }),
              tz: config.think.tz,
            });
            // The window is [since, until): named as times, so --json prints them as instants.
            const { window, ...rest } = r;
            const printed = {
              ...rest,
              reason: r.reason ?? null,
              ...(window
                ? { window: { since: window.from, until: window.to, phrase: window.phrase } }
                : {}),
            };
            emit(json(cmd), printed, () =>
              [
                `recall: ${r.mode}${r.reason ? ` (${r.reason})` : ''}`,
                ...(r.results.length
                  ? r.results.map((x) => formatResultLine(x, config.think.tz))
                  : ['nothing found']),
                ...(r.unexplained || r.unexplainedEpisodes
                  ? [
                      `left out: ${[
                        ...(r.unexplained ?? []).map((id) => `f${id}`),
                        ...(r.unexplainedEpisodes ?? []).map((id) => `e${id}`),
                      ].join(
                        ', ',
                      )} (changed outside keel: the journal does not explain it; keel verify)`,
                    ]
                  : []),
              ].join('\n'),
            );
          } catch (err) {
            failure = err;
            throw err;
          } finally {
            keel.close(failure);
          }
        },
      ),
    );

  program
    .command('history')
    .description(MEMORY_COMMANDS.history)
    .argument('<slot>', 'kind/key')
    .action(
      action((slotRef: string, _opts: unknown, cmd: Command) =>
        withStore(
          config,
          (store) => {
            const slot = parseSlot(slotRef);
            const versions = store.history(slot);
            emit(json(cmd), { slot, versions: versions.map(factJson) }, () =>
              versions.length ? versions.map(historyLine).join('\n') : `no history for ${slotRef}`,
            );
          },
          'none',
        ),
      ),
    );
}

/** `keel forget`'s `--json`: the forget's result and, after a purge, the receipt of its mentions. */
function forgetJson(r: ForgetResult, receipt: PurgeReceipt | null) {
  return {
    fact: factJson(r.fact),
    purged: r.purged,
    erased_facts: r.erasedFacts,
    redacted_journal: r.redactedJournal,
    redacted_episodes: r.redactedEpisodes,
    reached: r.reached,
    other_slots: r.otherSlots.map(factJson),
    other_slots_erased: receipt !== null,
    mentions: receipt ? receiptJson(receipt) : null,
  };
}

/** Registers `keel forget`, `keel keep`, `keel review`, `keel answer`, `keel confirm` and `keel reject`. */
export function registerReviewCommands(program: Command, config: Config): void {
  program
    .command('forget')
    .description(
      'retract a belief (it will not be re-learned); --purge erases its value everywhere',
    )
    .argument('<id>', 'fact id, e.g. 42 or f42')
    .option(
      '--purge',
      'erase every stored mention of the value (beliefs, turns, replies, journal, reminders…), after showing the list',
    )
    .option(
      '--all-slots',
      'with --purge: kept for scripts; other beliefs that mention it are always reached',
    )
    .option(
      '-y, --yes',
      'with --purge: erase without asking (required with --json or without a terminal)',
    )
    .action(
      action(async (ref: string, opts: { purge?: boolean; yes?: boolean }, cmd: Command) => {
        const id = parseFactId(ref);
        if (!opts.purge) {
          return withStore(config, (store) => {
            const r = store.forget(id, { purge: false, channel: 'cli' });
            emit(
              json(cmd),
              forgetJson(r, null),
              () => `forgot f${r.fact.id} (retracted; a tombstone keeps it from coming back)`,
            );
          });
        }
        // The list of what the purge erases: every stored mention of the value, folded (of what
        // still says it, when the value was purged already).
        const found = withStore(config, (store) => forgetPurgeTarget(store, id));
        if (found) {
          const go = await confirmErase(found.report, {
            yes: opts.yes,
            json: json(cmd),
            verb: `keel forget ${id} --purge`,
          });
          if (!go) {
            emit(false, null, () => `kept f${id}: nothing was forgotten or erased`);
            return;
          }
        }
        const done = await withStoreAsync(config, (store) =>
          forgetAndPurge(store, id, { channel: 'cli' }),
        );
        const { forget: r, receipt } = done;
        const backups = done.backups ?? [];
        emit(json(cmd), { ...forgetJson(r, receipt), backups: backupsJson(backups) }, () =>
          [
            done.already
              ? `f${r.fact.id} was purged already; ${receipt ? 'what still said it is erased' : 'nothing stored says it any more'}`
              : `forgot and purged f${r.fact.id}: ${r.erasedFacts.length} row(s) of its slot, ${r.redactedJournal} journal entries, ${r.redactedEpisodes.length} episode(s) redacted`,
            receipt ? receiptLines(receipt) : '',
            backupLines(config, backups),
          ]
            .filter(Boolean)
            .join('\n'),
        );
      }),
    );

  program
    .command('keep')
    .description(MEMORY_COMMANDS.keep)
    .argument('<id>', 'fact id, e.g. 42 or f42')
    .action(
      action((ref: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          const id = parseFactId(ref);
          const fact = store.fact(id);
          if (!fact) throw new KeelError('NOT_FOUND', `no fact ${id}`, { details: { id } });
          const kept = store.keep(id);
          emit(json(cmd), { kept, fact: factJson(fact) }, () =>
            kept
              ? `kept f${id}; it is not forgotten`
              : `nothing asked to forget f${id}; it stays as it is`,
          );
        }),
      ),
    );

  program
    .command('review')
    .description(
      'pending conflicts and questions, requests to forget, weak and stale beliefs to re-validate',
    )
    .option(
      '--threshold <0..1>',
      'list non-owner beliefs below this confidence',
      parseConfidence,
      0.75,
    )
    .action(
      action((opts: { threshold: number }, cmd: Command) =>
        withStore(
          config,
          (store) => {
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
                forget: q.forget.map((r) => ({
                  fact: factJson(r.fact),
                  why: r.why,
                  requested_at: r.requestedAt,
                })),
                questions: q.questions.map((x) => ({
                  id: `q${x.id}`,
                  question: questionText(x),
                  said: x.said,
                  fact: factJson(x.fact),
                  episode_id: x.episodeId,
                  actor: x.actor,
                  asked_at: x.askedAt,
                })),
              },
              () => {
                const lines: string[] = [];
                for (const p of q.pending) {
                  lines.push(`pending ${formatFactLine(p.fact)}`);
                  if (p.current) lines.push(`   contradicts ${formatFactLine(p.current)}`);
                }
                for (const x of q.questions) {
                  lines.push(`question ${questionText(x)}`);
                  lines.push(`   about ${formatFactLine(x.fact)}`);
                }
                if (q.questions.length) {
                  lines.push(
                    'question: keel answer q<id> yes (it no longer holds) or keel answer q<id> no.',
                  );
                }
                for (const r of q.forget) {
                  lines.push(`forget? ${formatFactLine(r.fact)}${r.why ? ` (why: ${r.why})` : ''}`);
                }
                if (q.forget.length) {
                  lines.push(
                    'forget?: keel asked to forget it; keel forget <id> or keel keep <id>.',
                  );
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
          },
          'none',
        ),
      ),
    );

  program
    .command('answer')
    .description(MEMORY_COMMANDS.answer)
    .argument('<question>', 'question id, e.g. q7')
    .argument('<answer>', 'yes or no')
    .action(
      action((ref: string, word: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => answerVerb(store, ref, parseAnswer(word), json(cmd))),
      ),
    );

  program
    .command('confirm')
    .description(MEMORY_COMMANDS.confirm)
    .argument('<id>', 'fact id')
    .action(
      action((ref: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          if (parseQuestionId(ref) !== null) return answerVerb(store, ref, 'yes', json(cmd));
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
    .description(MEMORY_COMMANDS.reject)
    .argument('<id>', 'fact id')
    .action(
      action((ref: string, _opts: unknown, cmd: Command) =>
        withStore(config, (store) => {
          if (parseQuestionId(ref) !== null) return answerVerb(store, ref, 'no', json(cmd));
          const f = store.reject(parseFactId(ref), { channel: 'cli' });
          emit(json(cmd), { fact: factJson(f) }, () => `rejected f${f.id}`);
        }),
      ),
    );
}

/**
 * Answers pending question `ref` ("q7") and prints what became of its belief.
 *
 * @throws KeelError `INVALID_INPUT` (not a question id), `NOT_FOUND`, `INVALID_STATE`.
 */
function answerVerb(store: MemoryStore, ref: string, answer: 'yes' | 'no', asJson: boolean): void {
  const id = parseQuestionId(ref);
  if (id === null) throw new KeelError('INVALID_INPUT', `"${ref}" is not a question id (e.g. q7)`);
  const r = store.answer(id, answer, { channel: 'cli' });
  emit(asJson, { question: `q${id}`, answer, fact: factJson(r.fact) }, () =>
    answer === 'yes'
      ? `q${id}: yes; f${r.fact.id} no longer holds (kept in history)\n${formatFactLine(r.fact)}`
      : `q${id}: no; f${r.fact.id} stays as it is`,
  );
}
