// Discord's review shows pending questions with Yes and No buttons that answer the question, and a
// click runs the same /answer the terminal uses; fact buttons keep their shape.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { runSlashCommand } from '@keel/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buttonCommand, parseReviewButton, questionButtonId, renderReview } from './review.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-discord-review-'));
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
  const e = store.addEpisode({ channel: 'discord', role: 'owner', text: 'Acme is behind me' });
  const { question } = store.ask(job.id, {
    actor: 'owner',
    said: 'Acme is behind me',
    episodeId: e.id,
  });
  return { job, question };
}

const ctx = { channel: 'discord', status: () => 'ok' };

describe('pending questions on Discord', () => {
  it('are listed with Yes and No buttons naming the question', () => {
    const { job, question } = seed();
    const [page] = renderReview(store.review());
    expect(page!.content).toContain(`q${question.id}: does "Acme is behind me" mean f${job.id}`);
    const ids = page!.components.flatMap((r) =>
      r.components.map((b) => (b as { custom_id: string }).custom_id),
    );
    expect(ids).toEqual([
      questionButtonId('yes', question.id),
      questionButtonId('no', question.id),
    ]);
  });

  it('Yes runs /answer … yes and closes the belief', async () => {
    const { job, question } = seed();
    const action = parseReviewButton(questionButtonId('yes', question.id))!;
    const { command, suffix } = buttonCommand(action);
    expect([command, suffix]).toEqual([`/answer q${question.id} yes`, `:q${question.id}`]);
    await runSlashCommand(store, command, ctx);
    expect(store.fact(job.id)!.status).toBe('retracted');
  });

  it('No runs /answer … no and keeps it; a fact button is unchanged', async () => {
    const { job, question } = seed();
    await runSlashCommand(
      store,
      buttonCommand(parseReviewButton(`keel:no:q${question.id}`)!).command,
      ctx,
    );
    expect(store.fact(job.id)!.status).toBe('active');
    expect(store.review().questions).toEqual([]);
    expect(buttonCommand(parseReviewButton(`keel:confirm:${job.id}`)!)).toEqual({
      command: `/confirm ${job.id}`,
      suffix: `:${job.id}`,
    });
    expect(parseReviewButton('keel:yes:12')).toBeNull();
  });
});
