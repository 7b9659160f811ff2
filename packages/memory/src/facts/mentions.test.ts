// Purge by mention through the real store: every place that can hold the owner's words gives up a
// mention typed without its accents while an unrelated control in the same place survives; recall
// finds nothing of the purged value afterwards; and the purged content stays refused to every
// writer but the owner.

import { describe, expect, it } from 'vitest';
import { FACTS_PLACE } from '../facts/mentions.js';
import { PURGED } from '../redaction.js';
import type { MemoryStore } from '../store.js';
import {
  count,
  expectKeelError,
  factResults,
  journalRows,
  openTempStore,
  slot,
  turn,
} from '../test-helpers.js';
import { REFUSED_FORGOTTEN_CONTENT } from './review.js';

const VALUE = 'Begoña Ibarrola';
const TYPED = 'begona ibarrola'; // as the owner types it at the door: no accent, lower case
const CONTROL = 'Lucía Montserrat';

/** Writes the value and the control into every place that can hold the owner's words. */
function seedEveryPlace(store: MemoryStore, now: number) {
  const ids: Record<string, number> = {};
  for (const [name, said] of [
    ['value', VALUE],
    ['control', CONTROL],
  ] as const) {
    const upper = said.toUpperCase();
    // The owner's turn, and keel's reply confirming it.
    const ep = turn(store, `my friend ${upper} moved to Bilbao last spring`);
    store.addEpisode({
      kind: 'conversation',
      channel: 'terminal',
      role: 'keel',
      text: `Noted: ${said} lives in Bilbao now.`,
    });
    // Beliefs: one whose value says it, one whose key does.
    const belief = store.remember({
      kind: 'relationship',
      key: name === 'value' ? 'friend' : 'colleague',
      value: said,
      source: 'owner_stated',
      episodeId: ep,
    }).fact!;
    ids[`${name}_belief`] = belief.id;
    ids[`${name}_keyed`] = store.remember({
      kind: 'note',
      key: `${said}_birthday`,
      value: 'in late May',
      source: 'owner_stated',
      episodeId: ep,
    }).fact!.id;
    // The session: a turn's input, its messages, a failed turn's error, the anchor.
    const session = store.session();
    const t = session.startTurn('terminal', `what do you know about ${said}?`);
    session.completeTurn(
      t,
      [
        { role: 'user', content: `what do you know about ${said}?` },
        { role: 'assistant', content: [{ type: 'text', text: `${said} moved to Bilbao.` }] },
      ],
      { provider: 'test', model: 'test', factsUsed: [] },
      () => 1,
    );
    const failed = session.startTurn('terminal', `and ${said}'s address?`);
    session.failTurn(failed, 'failed', 'MODEL_ERROR', `timed out asking about ${said}`);
    // A reminder to tell the owner, and the belief queue's reason.
    store.interrupts.record({
      itemKey: `${name}-call`,
      text: `call ${said} about the flat`,
      episodeId: ep,
      dueAt: now + 60_000,
      now,
    });
    store.reminders.create({
      text: `ask ${said} for the keys`,
      dueAt: now + 3_600_000,
      phrase: 'in an hour',
      episodeId: ep,
      channel: 'terminal',
      createdBy: 'owner',
    });
    store.beliefQueue.advanceWatermark(now);
    const queued = store.beliefQueue.forGate(3, 50).find((q) => q.episode_id === ep)!;
    store.beliefQueue.decide(queued.id, {
      state: 'believed',
      gate: 'pattern',
      reason: `a durable fact about ${said}`,
      decidedAt: now,
      attempt: 1,
    });
    // The think service: a run's summary and error, and the curator's diary.
    const run = store.thinkRuns.start('tick', now);
    store.thinkRuns.finish(run, now, {
      status: 'failed',
      code: 'MODEL_ERROR',
      error: `reflection on ${said} failed`,
      summary: { notes: [`${said} moved`] },
    });
    store.diary.record(
      name === 'value' ? '2025-01-06' : '2025-01-07',
      run,
      { added: 1, corroborated: 0, superseded: 0, conflicts: 0, pruned: 0 },
      `merged two beliefs about ${said}`,
      now,
    );
    // A model's request to forget, with its reason.
    store.requestForget(belief.id, { actor: 'model', why: `${said} asked to be left out` });
    // A tool call's arguments and result, and an "always" grant for that exact call.
    store.toolCalls.record({
      turnId: t,
      channel: 'terminal',
      tool: 'shell',
      origin: 'builtin',
      effect: 'run',
      arguments: { command: `grep "${said}" contacts.txt` },
      policy: 'ask',
      approval: 'asked-yes',
      approvedBy: 'owner (terminal)',
      startedAt: now,
      durationMs: 12,
      exit: '0',
      isError: false,
      result: `${said}, Bilbao`,
    });
    store.toolGrants.add({
      tool: 'shell',
      scope: 'exact',
      exact: `grep "${said}" contacts.txt`,
      channel: 'terminal',
      now,
    });
  }
  store.session().setAnchor(`the owner talked about ${VALUE} and ${CONTROL}`, 1);
  return { value_belief: ids.value_belief!, value_keyed: ids.value_keyed! };
}

describe('findMentions and purgeMentions', () => {
  it('every place gives up a mention typed without accents; a control in the same place survives', () => {
    const { store, clock } = openTempStore();
    const ids = seedEveryPlace(store, clock.t);
    clock.advance();

    const places = store.ownerTextHolders().map((h) => h.place);
    const before = store.findMentions(TYPED);
    // Every holder and the beliefs hold a mention before the purge (the test seeds them all).
    for (const place of [FACTS_PLACE, ...places]) {
      expect(before.places[place] ?? 0, place).toBeGreaterThan(0);
    }
    expect(before.beliefs.map((f) => f.id).sort()).toEqual(
      [ids.value_belief, ids.value_keyed].sort(),
    );
    const episode = before.mentions.find((m) => m.place === 'episodes')!;
    expect(episode.excerpt).toContain('BEGOÑA IBARROLA');
    const controlBefore = store.findMentions(CONTROL);

    const receipt = store.purgeMentions(TYPED, { actor: 'owner' });
    for (const place of [FACTS_PLACE, ...places]) {
      expect(receipt.reached[place]?.count ?? 0, place).toBeGreaterThan(0);
      expect(receipt.reached[place]!.ids.length).toBe(receipt.reached[place]!.count);
    }
    expect(receipt.retracted.sort()).toEqual([ids.value_belief, ids.value_keyed].sort());
    expect(receipt.reached.facts!.ids).toEqual(
      [ids.value_belief, ids.value_keyed].sort((a, b) => a - b),
    );
    expect(JSON.stringify(receipt)).not.toMatch(/begona|begoña/i);

    // Nothing mentions it any more, in any spelling.
    for (const spelling of [TYPED, VALUE, 'BEGOÑA', 'Ibarrola']) {
      expect(store.findMentions(spelling).total, spelling).toBe(0);
    }
    // The control is where it was, in every place, and its beliefs are current.
    const controlAfter = store.findMentions(CONTROL);
    expect(controlAfter.places).toEqual(controlBefore.places);
    expect(store.current(slot('relationship', 'colleague'))?.value).toBe(CONTROL);
    // The rest of a text is kept, the mention replaced.
    const reply = store.episode(episode.id)!;
    expect(reply.text).toBe(`my friend ${PURGED} moved to Bilbao last spring`);
    // The beliefs are retracted, their value erased and the key cut.
    const keyed = store.fact(ids.value_keyed)!;
    expect(keyed).toMatchObject({ status: 'retracted', value: PURGED, key: 'purged_birthday' });
    expect(store.fact(ids.value_belief)).toMatchObject({ status: 'retracted', value: PURGED });
    // No byte of it is left in the tables (the tombstone keeps hashes only).
    const like = `%${'ibarrola'}%`;
    for (const [table, column] of [
      ['facts', 'value'],
      ['facts', 'key'],
      ['tombstones', 'key'],
      ['tombstones', 'content'],
      ['journal', 'payload'],
      ['episodes', 'text'],
      ['tool_calls', 'arguments'],
      ['tool_calls', 'excerpt'],
      ['tool_grants', 'exact'],
    ]) {
      expect(
        count(store, `SELECT count(*) AS n FROM ${table} WHERE ${column} LIKE ?`, like),
        `${table}.${column}`,
      ).toBe(0);
    }
    // The journal still verifies, and the purge is journaled by its actor with hashes only.
    expect(store.verify().ok).toBe(true);
    expect(
      count(store, `SELECT count(*) AS n FROM journal WHERE op = 'purge' AND actor = 'owner'`),
    ).toBe(1);
  });

  it('after a purge, recall of the value finds nothing while a control belief is still recalled', async () => {
    const { store, clock } = openTempStore();
    seedEveryPlace(store, clock.t);
    clock.advance();
    expect(factResults(await store.recall('Begoña')).length).toBeGreaterThan(0);
    store.purgeMentions('Begona', { actor: 'owner' });
    const after = await store.recall('Begoña');
    expect(after.results.filter((r) => /begon/i.test(JSON.stringify(r)))).toEqual([]);
    const control = factResults(await store.recall('Lucía'));
    expect(control.map((r) => r.value)).toContain(CONTROL);
  });

  it('a key made from a purged value loses each of its words, in every place that stores it', () => {
    const { store, clock } = openTempStore();
    const ep = turn(store, 'remember that I used to work at Sunnyvale Dynamics');
    const belief = store.remember({
      kind: 'note',
      key: 'used_work_sunnyvale',
      value: 'I used to work at Sunnyvale Dynamics',
      source: 'owner_stated',
      episodeId: ep,
      actor: 'owner',
    }).fact!;
    const control = store.remember({
      kind: 'note',
      key: 'sunnyside_cafe',
      value: 'my favourite breakfast is at Sunnyside Cafe',
      source: 'owner_stated',
      episodeId: ep,
      actor: 'owner',
    }).fact!;
    clock.advance();
    store.purgeMentions('Sunnyvale Dynamics', { actor: 'owner' });
    expect(store.fact(belief.id)!.key).toBe('used_work_purged');
    // Nowhere: the journal's payloads, the tombstone the retraction left.
    expect(JSON.stringify(journalRows(store))).not.toMatch(/sunnyvale/i);
    expect(count(store, "SELECT count(*) AS n FROM tombstones WHERE key LIKE '%sunnyvale%'")).toBe(
      0,
    );
    // Control: a key that shares no word with the value keeps it.
    expect(store.fact(control.id)).toMatchObject({ key: 'sunnyside_cafe', status: 'active' });
  });

  it('only walks the places asked for, and refuses an unknown place or a value with no word', () => {
    const { store, clock } = openTempStore();
    seedEveryPlace(store, clock.t);
    const r = store.purgeMentions(TYPED, { actor: 'owner', only: ['interrupts'] });
    expect(Object.keys(r.reached)).toEqual(['interrupts']);
    expect(store.findMentions(TYPED).places.interrupts).toBeUndefined();
    expect(store.findMentions(TYPED).places.episodes).toBeGreaterThan(0);
    expectKeelError(
      () => store.purgeMentions(TYPED, { actor: 'owner', only: ['nowhere'] }),
      'INVALID_INPUT',
    );
    expectKeelError(() => store.purgeMentions(' ?! ', { actor: 'owner' }), 'INVALID_INPUT');
    expectKeelError(() => store.findMentions(''), 'INVALID_INPUT');
  });

  it('the purged content is refused to every writer but the owner, whose word lifts it', () => {
    const { store, clock } = openTempStore();
    const ep = turn(store, 'my friend Begoña lives in Bilbao');
    store.remember({
      kind: 'relationship',
      key: 'friend',
      value: 'Begoña',
      source: 'owner_stated',
      episodeId: ep,
    });
    clock.advance();
    store.purgeMentions('Begona', { actor: 'owner' });
    const later = turn(store, 'should I visit begona in bilbao?');
    for (const write of [
      {
        kind: 'relationship' as const,
        key: 'friend',
        value: 'begona',
        source: 'inferred' as const,
        actor: 'model' as const,
      },
      {
        kind: 'note' as const,
        key: 'visit',
        value: 'Visit BEGOÑA in Bilbao',
        source: 'observed' as const,
        actor: 'reflection' as const,
      },
      {
        kind: 'note' as const,
        key: 'begona_trip',
        value: 'a trip in June',
        source: 'inferred' as const,
        actor: 'curator' as const,
      },
      {
        kind: 'relationship' as const,
        key: 'friend',
        value: 'Begoña',
        source: 'imported' as const,
        actor: 'import' as const,
      },
    ]) {
      const r = store.remember({ ...write, episodeId: later });
      expect(r.decision, write.key).toBe('ignore');
      expect(r.reason, write.key).toMatch(/only the owner can restore it$/);
      // A longer value, or a key, that mentions it is refused by the purged content.
      if (write.actor === 'reflection' || write.actor === 'curator') {
        expect(r.reason).toBe(REFUSED_FORGOTTEN_CONTENT);
      }
    }
    // control: another value from the same turn is written
    expect(
      store.remember({
        kind: 'profile',
        key: 'travel_city',
        value: 'Bilbao',
        source: 'observed',
        episodeId: later,
        actor: 'reflection',
      }).decision,
    ).toBe('create');
    // The refusals did not write the value or its key back anywhere: the one mention left is the
    // owner's own turn after the purge.
    expect(store.findMentions('Begona').mentions.map((m) => [m.place, m.id])).toEqual([
      ['episodes', later],
    ]);
    // The owner's own word brings it back and lifts the tombstone for later writers.
    const owner = turn(store, 'remember that my friend is Begoña');
    expect(
      store.remember({
        kind: 'relationship',
        key: 'friend',
        value: 'Begoña',
        source: 'owner_stated',
        episodeId: owner,
      }).decision,
    ).toBe('create');
    const model = store.remember({
      kind: 'note',
      key: 'visit',
      value: 'visit Begoña',
      source: 'inferred',
      episodeId: owner,
      actor: 'model',
    });
    expect(model.decision).toBe('create');
  });
});
