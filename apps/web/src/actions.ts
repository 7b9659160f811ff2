/**
 * The owner's actions on the web page, each a POST (the gate in `auth.ts` has checked its CSRF
 * token and Origin) through the same store functions the CLI's verbs use: confirm, reject, forget,
 * keep, answer a question, edit a value (an owner-stated write through the write review), and
 * purge (the purge every door shares: `@keel/tools`' `forgetAndPurge` and `purgeText`). Each is
 * journaled with the actor `web` and the channel `web`: the owner, acting through this page.
 * After an action the browser is sent back (303) to the page it came from, with a short notice
 * that names ids, never a value.
 *
 * @module
 */
import { secretNotice } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { embedWrittenNow } from '@keel/host';
import type { MemoryStore } from '@keel/memory';
import { forgetAndPurge, purgeText } from '@keel/tools';
import type { Context, Hono } from 'hono';
import type { WebEnv } from './app.js';
import type { WebKeel } from './keel.js';
import { factId, needStore } from './shared.js';

/** How the web page acts for the owner: the channel and the journal's actor. */
export const AS_WEB = { channel: 'web', actor: 'web' } as const;

/** A form's fields (strings only). */
async function form(c: Context<WebEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Where to send the browser back to: a path of this site (`back`), else `fallback`. */
function back(fields: Record<string, string>, fallback: string, notice: string): string {
  const path = fields.back && /^\/(?!\/)[^\s\\]*$/.test(fields.back) ? fields.back : fallback;
  const url = new URL(path, 'http://keel.invalid');
  url.searchParams.set('notice', notice);
  return `${url.pathname}${url.search}`;
}

/** The store, when it takes changes; else the error that says why not. */
function writable(keel: WebKeel): MemoryStore {
  const store = needStore(keel);
  if (keel.readOnly) {
    throw new KeelError('DB_CORRUPT', keel.readOnly, {
      fix: 'Nothing was changed. See the health page for how to get back (keel restore).',
    });
  }
  return store;
}

/** Registers the POST routes on `app`. */
export function registerActions(app: Hono<WebEnv>, keel: WebKeel): void {
  app.post('/beliefs/:id/confirm', async (c) => {
    const fields = await form(c);
    const id = factId(c.req.param('id'));
    const r = writable(keel).confirm(id, AS_WEB);
    const note = `confirmed f${id}${r.superseded ? `; it supersedes f${r.superseded.id}` : ''}`;
    return c.redirect(back(fields, `/beliefs/${id}`, note), 303);
  });

  app.post('/beliefs/:id/reject', async (c) => {
    const fields = await form(c);
    const id = factId(c.req.param('id'));
    writable(keel).reject(id, AS_WEB);
    return c.redirect(
      back(fields, `/beliefs/${id}`, `rejected f${id}: it will not come back`),
      303,
    );
  });

  app.post('/beliefs/:id/forget', async (c) => {
    const fields = await form(c);
    const id = factId(c.req.param('id'));
    writable(keel).forget(id, { purge: false, ...AS_WEB });
    const note = `forgot f${id} (retracted; a tombstone keeps it from coming back)`;
    return c.redirect(back(fields, `/beliefs/${id}`, note), 303);
  });

  app.post('/beliefs/:id/keep', async (c) => {
    const fields = await form(c);
    const id = factId(c.req.param('id'));
    const kept = writable(keel).keep(id);
    const note = kept ? `kept f${id}; it is not forgotten` : `nothing asked to forget f${id}`;
    return c.redirect(back(fields, '/review', note), 303);
  });

  app.post('/beliefs/:id/edit', async (c) => edit(c, keel));

  app.post('/questions/:id/answer', async (c) => {
    const fields = await form(c);
    const id = Number(c.req.param('id'));
    const answer = fields.answer === 'yes' ? 'yes' : fields.answer === 'no' ? 'no' : null;
    if (!Number.isSafeInteger(id) || answer === null) {
      throw new KeelError('INVALID_INPUT', 'a question is answered yes or no', {
        fix: 'Use the buttons on the review page.',
      });
    }
    const r = writable(keel).answer(id, answer, AS_WEB);
    const note =
      answer === 'yes' ? `q${id}: yes; f${r.fact.id} no longer holds` : `q${id}: no; it stays`;
    return c.redirect(back(fields, '/review', note), 303);
  });

  app.post('/purge', async (c) => purge(c, keel));
}

/** The owner states a belief's new value: an owner-stated write to its slot. */
async function edit(c: Context<WebEnv>, keel: WebKeel): Promise<Response> {
  const fields = await form(c);
  const id = factId(c.req.param('id') ?? '');
  const store = writable(keel);
  const fact = store.fact(id);
  if (!fact) throw new KeelError('NOT_FOUND', `no belief f${id}`, { details: { id } });
  const value = (fields.value ?? '').trim();
  if (!value) {
    throw new KeelError('INVALID_INPUT', 'the new value is empty', {
      fix: 'Write the value as it is now, or use forget.',
    });
  }
  const mark = store.vectorMark();
  const r = store.remember({
    scope: fact.scope,
    kind: fact.kind,
    key: fact.key,
    value,
    source: 'owner_stated',
    ...AS_WEB,
  });
  if (r.fact?.status === 'active' && (store.vectorMark() > mark || mark === 0)) {
    await embedWrittenNow(keel.config, store, mark);
  }
  const note = r.secret
    ? secretNotice([r.secret])
    : `${r.decision}: ${r.reason}${r.fact ? ` (f${r.fact.id})` : ''}`;
  // From the review page, back to it; from the belief's page, to the value now current.
  const from = fields.back?.startsWith('/review') ? fields : {};
  return c.redirect(back(from, r.fact ? `/beliefs/${r.fact.id}` : `/beliefs/${id}`, note), 303);
}

/** The purge, once the owner said yes on the purge page. */
async function purge(c: Context<WebEnv>, keel: WebKeel): Promise<Response> {
  const fields = await form(c);
  const store = writable(keel);
  if (fields.fact) {
    const id = factId(fields.fact);
    const done = await forgetAndPurge(store, id, AS_WEB);
    const reached = done.receipt?.total ?? 0;
    const note = `forgot and purged f${id}: ${done.forget.erasedFacts.length} row(s) of its slot and ${reached} other mention(s) erased${backupNote(done.backups)}`;
    return c.redirect(back({}, '/beliefs', note), 303);
  }
  let text = fields.text?.trim() ?? '';
  if (fields.episode) {
    const episode = store.episode(Number(fields.episode));
    if (!episode) throw new KeelError('NOT_FOUND', `no turn e${fields.episode}`);
    text = episode.text;
  }
  if (!text) {
    throw new KeelError('INVALID_INPUT', 'nothing to purge was named', {
      fix: 'Open purge from a belief or a turn.',
    });
  }
  const done = await purgeText(store, text, { actor: AS_WEB.actor });
  const note = `purged: ${done.receipt.total} row(s) reached; its words are tombstoned${backupNote(done.backups)}`;
  return c.redirect(back({}, fields.episode ? '/conversations' : '/beliefs', note), 303);
}

function backupNote(backups: { reached: number; error: unknown }[] | null): string {
  if (backups === null || backups.length === 0) return '';
  const rewritten = backups.filter((b) => b.reached > 0).length;
  const failed = backups.filter((b) => b.error).length;
  return `; backups: ${rewritten} rewritten${failed ? `, ${failed} not reached (see keel doctor)` : ''}`;
}
