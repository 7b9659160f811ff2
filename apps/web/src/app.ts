/**
 * The web page as a hono app: the owner-only gate (`auth.ts`) in front of every route, the pages
 * (beliefs, a belief's why, review, purge, conversations, think, health) and the owner's actions
 * (`actions.ts`). Errors become a page with the error's code and its one-line fix.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type DoctorReport, doctorReport, formatJson, readLockHolder } from '@keel/host';
import { localDay } from '@keel/language';
import type { BeliefExplanation, Fact, MemoryStore } from '@keel/memory';
import { forgetPurgeTarget } from '@keel/tools';
import { type Context, Hono } from 'hono';
import { DateTime } from 'luxon';
import { registerActions } from './actions.js';
import { type OwnerVariables, ownerOnly, type WebSession, webHeaders } from './auth.js';
import type { WebKeel } from './keel.js';
import { factId, needStore } from './shared.js';
import { STYLE } from './style.js';
import { beliefPage } from './views/belief.js';
import { beliefQuery, beliefsPage } from './views/beliefs.js';
import { conversationsPage } from './views/conversations.js';
import { healthPage } from './views/health.js';
import { messagePage, type PageContext } from './views/layout.js';
import { type PurgeSubject, purgePage } from './views/purge.js';
import { reviewPage } from './views/review.js';
import { thinkPage } from './views/think.js';

/** What {@link webApp} is given. */
export interface WebAppOptions {
  keel: WebKeel;
  /** The start token the printed URL carries. */
  token: string;
  /** The port bound on 127.0.0.1. */
  port: number;
  /** The sessions started (default a new map). */
  sessions?: Map<string, WebSession>;
  /** The doctor report for the health page (default `@keel/host`'s `doctorReport`). */
  health?: (live: boolean) => Promise<DoctorReport>;
  /** The clock, ms since epoch. */
  now?: () => number;
}

/** The hono app's environment. */
export type WebEnv = { Variables: OwnerVariables };

/** Builds the app (see the module's description). */
export function webApp(options: WebAppOptions): Hono<WebEnv> {
  const { keel } = options;
  const now = options.now ?? Date.now;
  const health =
    options.health ??
    ((live: boolean) => doctorReport(keel.config, { live, full: false, services: null }));
  const app = new Hono<WebEnv>();
  app.use(webHeaders());
  app.use(
    ownerOnly({
      token: options.token,
      port: options.port,
      ...(options.sessions ? { sessions: options.sessions } : {}),
      open: ['/style.css'],
      refuse: (c, r) => c.html(messagePage(r.title, r.detail, r.fix), r.status),
      now,
    }),
  );
  const ctx = (c: Context<WebEnv>): PageContext => ({
    csrf: c.get('session').csrf,
    tz: keel.config.think.tz,
    now: now(),
    banners: keel.problems,
    notice: c.req.query('notice') ?? null,
    path: pathWithoutNotice(c.req.url),
  });
  app.onError((err, c) => {
    const e = KeelError.isInstance(err) ? err : null;
    const status = e?.code === 'NOT_FOUND' ? 404 : e ? 400 : 500;
    return c.html(
      messagePage(
        e ? 'That did not work' : 'Something broke',
        e?.message ?? String(err),
        e?.fix ?? 'Go back and try again; keel doctor (the health page) says what is wrong.',
        e?.code,
      ),
      status,
    );
  });
  app.get('/style.css', (c) => c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/', (c) => c.redirect('/beliefs', 303));

  app.get('/beliefs', async (c) => {
    const store = needStore(keel);
    const q = beliefQuery(c.req.query());
    const filter = {
      ...(q.kind ? { kind: q.kind } : {}),
      ...(q.source ? { source: q.source } : {}),
      ...(q.min === undefined ? {} : { minConfidence: q.min }),
    };
    if (!q.q) return c.html(beliefsPage(ctx(c), q, { listing: store.beliefs(filter) }));
    const recall = await store.recall(q.q, { type: 'fact', limit: 50, tz: keel.config.think.tz });
    const facts = recall.results
      .flatMap((r) => (r.type === 'fact' ? [store.fact(r.id)] : []))
      .filter((f): f is Fact => f !== undefined && passes(f, filter));
    return c.html(beliefsPage(ctx(c), q, { recall, facts }));
  });

  app.get('/beliefs/:id', (c) => {
    const store = needStore(keel);
    return c.html(beliefPage(ctx(c), explain(store, factId(c.req.param('id')))));
  });

  app.get('/review', (c) => c.html(reviewPage(ctx(c), needStore(keel).review())));

  app.get('/purge', (c) => {
    const store = needStore(keel);
    const subject = purgeSubject(store, c.req.query());
    const report =
      subject.kind === 'fact'
        ? (forgetPurgeTarget(store, subject.id)?.report ?? null)
        : store.findMentions(subject.text);
    return c.html(purgePage(ctx(c), subject, report));
  });

  app.get('/conversations', (c) => {
    const store = needStore(keel);
    return c.html(conversationsPage(ctx(c), conversationDay(store, keel, c.req.query('day'))));
  });

  app.get('/think', (c) => c.html(thinkPage(ctx(c), thinkView(needStore(keel), keel))));

  app.get('/health', async (c) => {
    const live = c.req.query('live') === '1';
    try {
      return c.html(healthPage(ctx(c), { report: await health(live) }));
    } catch (err) {
      const e = KeelError.isInstance(err)
        ? { code: err.code, message: err.message, fix: err.fix ?? 'keel doctor says more' }
        : { code: 'INTERNAL', message: String(err), fix: 'keel doctor says more' };
      return c.html(healthPage(ctx(c), { error: e }), 500);
    }
  });

  app.get('/health.json', async (c) =>
    c.body(formatJson(await health(false)), 200, { 'Content-Type': 'application/json' }),
  );

  registerActions(app, keel);
  return app;
}

/** A request's path and query without the notice a redirect added. */
function pathWithoutNotice(href: string): string {
  const url = new URL(href);
  url.searchParams.delete('notice');
  return `${url.pathname}${url.search}`;
}

function passes(
  f: Fact,
  filter: { kind?: string; source?: string; minConfidence?: number },
): boolean {
  return (
    (filter.kind === undefined || f.kind === filter.kind) &&
    (filter.source === undefined || f.source === filter.source) &&
    (filter.minConfidence === undefined || f.confidence >= filter.minConfidence)
  );
}

/** What the belief's page shows: the store's explanation of why keel believes it. */
function explain(store: MemoryStore, id: number): BeliefExplanation {
  const why = store.why(id);
  if (!why) throw new KeelError('NOT_FOUND', `no belief f${id}`, { details: { id } });
  return why;
}

/** What the purge page is about, from its query (`fact`, `episode` or `text`). */
function purgeSubject(store: MemoryStore, query: Record<string, string | undefined>): PurgeSubject {
  if (query.fact) return { kind: 'fact', id: factId(query.fact) };
  if (query.episode) {
    const id = Number(query.episode);
    const episode = Number.isSafeInteger(id) ? store.episode(id) : undefined;
    if (!episode) throw new KeelError('NOT_FOUND', `no turn e${query.episode}`);
    return { kind: 'episode', id, text: episode.text };
  }
  if (query.text?.trim()) return { kind: 'text', text: query.text.trim() };
  throw new KeelError('INVALID_INPUT', 'nothing to purge was named', {
    fix: 'Open purge from a belief, a turn, or give text.',
  });
}

/** Episodes read to find the days that hold some. */
const DAYS_SCAN = 2000;

/** The conversation of `day` (default the newest day with an episode) in the owner's zone. */
function conversationDay(store: MemoryStore, keel: WebKeel, day: string | undefined) {
  const tz = keel.config.think.tz;
  const days = [
    ...new Set(store.recentEpisodes(DAYS_SCAN).map((e) => localDay(e.occurred_at, tz))),
  ];
  const chosen =
    day && /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : (days[0] ?? localDay(Date.now(), tz));
  const start = DateTime.fromISO(chosen, { zone: tz }).startOf('day');
  const from = start.toMillis();
  const to = start.plus({ days: 1 }).toMillis();
  const ids = store.conversationBetween(from, to).map((t) => t.id);
  const episodes = ids.flatMap((id) => {
    const e = store.episode(id);
    return e ? [e] : [];
  });
  return { day: chosen, episodes, days };
}

/** What the think page shows. */
function thinkView(store: MemoryStore, keel: WebKeel) {
  const { think } = keel.config;
  const holder = readLockHolder(keel.config.home);
  return {
    runs: store.thinkRuns.recent(50),
    diary: store.diary.recent(14),
    reminders: store.reminders.list(),
    interrupts: store.interrupts.pending(),
    gate: {
      model: think.gateModel,
      host: think.ollamaHost,
      lastTick: store.thinkRuns.lastTick()?.gate ?? null,
    },
    running: holder?.alive ? { pid: holder.pid } : null,
    model: keel.model,
  };
}
