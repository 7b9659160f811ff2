/**
 * `keel why <id>`: why keel believes something, as `MemoryStore.why` answers it: the belief, every
 * version of its slot (former values labelled), each version's evidence episodes (the door, when,
 * what was said), who changed it when, and any version the journal does not explain. The text is
 * `whyLines` of `@keel/tools`, the same the `/why` slash command and the model's `why` tool show.
 *
 * @module
 */
import { type BeliefExplanation, parseFactId } from '@keel/memory';
import { explained, whyLines } from '@keel/tools';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, emit, wantsJson } from '../output.js';
import { factJson, withStore } from './shared.js';

/**
 * `keel why --json`: `{ fact, chain: [fact… + former], evidence: [{ fact_id, episode: { id,
 * channel, role, speaker, occurred_at, text, source_doc, source_id } }], changes: [{ seq, at,
 * actor, op, fact_id, summary }], unexplained: [id…] }`. `chain` is newest first; `former` is true
 * for a superseded version; `channel` is the door the episode came through.
 */
export function whyJson(why: BeliefExplanation) {
  return {
    fact: factJson(why.fact),
    chain: why.chain.map((f) => ({ ...factJson(f), former: f.status === 'superseded' })),
    evidence: why.evidence.map(({ factId, episode: e }) => ({
      fact_id: factId,
      episode: {
        id: e.id,
        channel: e.channel,
        role: e.role,
        speaker: e.speaker,
        occurred_at: e.occurred_at,
        text: e.text,
        source_doc: e.source_doc,
        source_id: e.source_id,
      },
    })),
    changes: why.changes.map((c) => ({
      seq: c.seq,
      at: c.at,
      actor: c.actor,
      op: c.op,
      fact_id: c.factId,
      summary: c.summary,
    })),
    unexplained: why.unexplained,
  };
}

/**
 * Registers `keel why <id>`.
 *
 * @throws KeelError `INVALID_INPUT` (not a fact id), `NOT_FOUND` (no such fact), printed with its fix.
 */
export function registerWhyCommand(program: Command, config: Config): void {
  program
    .command('why')
    .description(
      'why keel believes something: the belief, its former values, their evidence and who changed it when',
    )
    .argument('<id>', 'fact id, e.g. 42 or f42')
    .action(
      action((ref: string, _opts: unknown, cmd: Command) =>
        withStore(
          config,
          (store) => {
            const why = explained(store, parseFactId(ref));
            emit(wantsJson(cmd), whyJson(why), () => whyLines(why, config.think.tz).join('\n'));
          },
          'none',
        ),
      ),
    );
}
