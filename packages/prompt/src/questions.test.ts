// A pending question is shown to the model beside the belief it may end, marked PENDING, in both
// blocks; a belief without one is shown as it is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildStaticBlock, buildTurnBlock } from './blocks.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-prompt-q-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function seed() {
  const job = store.remember({
    kind: 'profile',
    key: 'employer',
    value: 'Acme',
    source: 'owner_stated',
  }).fact!;
  const home = store.remember({
    kind: 'profile',
    key: 'home',
    value: 'Lisbon',
    source: 'owner_stated',
  }).fact!;
  const e = store.addEpisode({ channel: 'terminal', role: 'owner', text: 'Acme let me go' });
  const { question } = store.ask(job.id, {
    actor: 'owner',
    said: 'Acme let me go',
    episodeId: e.id,
  });
  return { job, home, question };
}

describe('pending questions in the prompt', () => {
  it('the static block shows the question under its belief, and only there', () => {
    const { job, home, question } = seed();
    const block = buildStaticBlock(store.activeFacts('owner'), undefined, 'UTC', store.questions());
    const lines = block.text.split('\n');
    const at = lines.findIndex((l) => l.includes(`[f${job.id}]`));
    expect(lines[at + 1]).toContain(
      `PENDING question q${question.id}: does "Acme let me go" mean f${job.id} profile/employer: Acme no longer holds?`,
    );
    const homeAt = lines.findIndex((l) => l.includes(`[f${home.id}]`));
    expect(lines[homeAt + 1] ?? '').not.toContain('PENDING');
  });

  it('the turn block shows it beside a recalled belief', async () => {
    const { job, question } = seed();
    const recall = await store.recall('Acme');
    expect(recall.results.some((r) => r.type === 'fact' && r.id === job.id)).toBe(true);
    const block = buildTurnBlock(recall, { questions: store.questions() });
    expect(block.text).toContain(`PENDING question q${question.id}`);
    // Control: without questions the belief is shown alone.
    expect(buildTurnBlock(recall).text).not.toContain('PENDING question');
  });
});
