/**
 * Honesty on words nobody wrote down: runs the owner phrasings of `bench/honesty/` (a development
 * half and a held-out half, written without reading keel's capture, secret or forgetting code)
 * through the real store and prints, per class, how many cases keel kept honestly.
 *
 * Each case is a short conversation in the terminal, offline (keel's own rules decide what to
 * keep), with writes proposed by the chat model's `remember` tool (the real agent turn, against a
 * scripted fake model) or by reflection (the think service's `applyDelta`), the owner's forget,
 * purge or answer to a pending question; then expectations about what keel holds. The case format
 * is in `bench/honesty/README.md`.
 *
 * Two figures the goal names are counted apart: secrets kept (a `withheld` text found in any of
 * keel's files, byte for byte) and forgotten values re-learned (after a forget or purge, a value
 * that should not be current or should be gone, found current or still stored).
 *
 * The held-out half prints per-class counts only; its failing expectations are written to the
 * results file by kind, never by text, so nobody tunes on them.
 *
 *   node --import tsx bench/honesty.ts [--half dev|heldout|both] [--set cases|round2|…|all]
 *     [--label name] [--verbose] [--only id-or-class]
 *
 * @module
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, OfflineSession } from '@keel/agent';
import { FakeChatModel } from '@keel/agent/test';
import { foldText, localDay, mentions, resolveAsOf } from '@keel/language';
import { type Fact, type Kind, MemoryStore, type RecallResult } from '@keel/memory';
import { dbOf } from '@keel/memory/internal';
import { applyDelta } from '@keel/think';
import {
  type BenchOptions,
  heading,
  isMain,
  printTable,
  REPO_ROOT,
  type SummaryRow,
} from './lib.js';
import { writeQuestions, writeResults } from './results.js';

/** One step of a case (see bench/honesty/README.md). */
type Step =
  | { say: string; at?: string }
  | { model_remember: { kind: Kind; key: string; value: string }; cites: number; at?: string }
  | {
      reflect: {
        op: 'upsert' | 'retract';
        subject: string;
        kind: Kind;
        key: string;
        value?: string;
        when?: string;
      };
      cites: number[];
      at?: string;
    }
  | { forget: string; at?: string }
  | { purge: string; at?: string }
  | { answer_pending: string; yes: boolean; at?: string };

/** What must hold after a case's steps. */
interface Expect {
  current?: string[];
  stated?: string[];
  not_current?: string[];
  history?: string[];
  pending?: string[];
  no_pending?: true;
  no_contradiction?: { old: string; new: string }[];
  valid_from?: { value: string; date: string | null }[];
  valid_to?: { value: string; date: string | null }[];
  no_beliefs?: true;
  withheld?: string[];
  kept_text?: string[];
  gone?: string[];
  recall?: { query: string; finds: string }[];
  not_recalled?: { query: string; text: string }[];
  as_of?: { when: string; query: string; finds: string; start_unknown?: boolean }[];
  flagged?: string[];
}

/** One case. */
interface Case {
  id: string;
  class: string;
  lang: string;
  note: string;
  tz?: string;
  now?: string;
  steps: Step[];
  expect: Expect;
}

/** One expectation that did not hold. */
interface Miss {
  /** The expectation's kind (`current`, `withheld`, …). */
  kind: keyof Expect;
  /** What it was about (the text), for the development half only. */
  what: string;
  /** What keel had instead, for the development half only. */
  saw?: string;
}

/** A case's outcome. */
interface Outcome {
  id: string;
  class: string;
  lang: string;
  passed: boolean;
  misses: Miss[];
  /** `withheld` texts found in keel's files. */
  secretsKept: number;
  /** After a forget or purge: values found current or still stored. */
  relearned: number;
  /** A step that threw (keel's error code and message). */
  error?: string;
}

const DEFAULT_NOW = '2026-03-10T12:00:00Z';
/** Scripts written without spaces between words, and Korean (whose particles attach to words): a whole-word match cannot apply. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Hangul}]/u;

/** Whether stored `text` holds `needle`, folded: whole words, or a substring in unspaced scripts. */
function holds(text: string | null | undefined, needle: string): boolean {
  if (!text) return false;
  if (mentions(text, needle)) return true;
  const n = foldText(needle);
  return n !== '' && (UNSPACED.test(needle) || /\p{M}/u.test(n)) && foldText(text).includes(n);
}

/** A fact's words as the owner would read them: its value and its key (slug separators as spaces). */
function factText(f: Fact): string {
  return `${f.value} ${f.key.replace(/[_.]/g, ' ')}`;
}

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/**
 * Every text keel stores, by table: each TEXT column of each table, FTS5 content tables included,
 * FTS5 index internals and vector tables left out (they hold no text as written).
 */
function storedTexts(store: MemoryStore): string[] {
  const db = dbOf(store);
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
  )
    .map((t) => t.name)
    .filter(
      (n) =>
        !n.startsWith('sqlite_') &&
        !/_(data|idx|docsize|config|vocab)$/.test(n) &&
        !/^vec|_vec|vectors/.test(n),
    );
  const out: string[] = [];
  for (const t of tables) {
    let rows: Record<string, unknown>[];
    try {
      rows = db.prepare(`SELECT * FROM "${t.replaceAll('"', '""')}"`).all() as Record<
        string,
        unknown
      >[];
    } catch {
      continue; // a virtual table whose module is not loaded here
    }
    for (const r of rows) for (const v of Object.values(r)) if (typeof v === 'string') out.push(v);
  }
  return out;
}

/** The review queue as text, every list but the model's guesses (weak, stale). */
function pendingText(store: MemoryStore): string[] {
  const q = store.review() as unknown as Record<string, unknown>;
  return Object.entries(q)
    .filter(([k, v]) => Array.isArray(v) && !['weak', 'stale'].includes(k))
    .flatMap(([, v]) => (v as unknown[]).map((item) => JSON.stringify(item)));
}

function pendingCount(store: MemoryStore): number {
  return pendingText(store).length;
}

/** The result's words: a fact's value and key, an episode's text. */
function resultText(r: RecallResult): string {
  return r.type === 'fact' ? `${r.value} ${r.key.replace(/[_.]/g, ' ')}` : r.text;
}

/** Runs one case in a fresh home; returns its outcome. */
async function runCase(c: Case, dev: boolean): Promise<Outcome> {
  const home = mkdtempSync(join(tmpdir(), 'keel-honesty-'));
  const tz = c.tz ?? 'UTC';
  let clock = Date.parse(c.now ?? DEFAULT_NOW);
  const store = MemoryStore.open(join(home, 'keel.db'), { now: () => clock });
  const outcome: Outcome = {
    id: c.id,
    class: c.class,
    lang: c.lang,
    passed: false,
    misses: [],
    secretsKept: 0,
    relearned: 0,
  };
  try {
    await runSteps(c, store, tz, (at, first) => {
      if (at) clock = Date.parse(at);
      else if (!first) clock += 60_000;
    });
    await checkExpectations(c, store, tz, home, outcome, () => clock);
  } catch (err) {
    outcome.error =
      err instanceof Error
        ? `${(err as { code?: string }).code ?? err.name}: ${err.message}`
        : String(err);
  } finally {
    try {
      store.close();
    } catch {
      // closed already
    }
  }
  if (!outcome.error) checkFiles(c, home, outcome);
  rmSync(home, { recursive: true, force: true });
  outcome.passed = !outcome.error && outcome.misses.length === 0;
  if (!dev) for (const m of outcome.misses) delete m.saw;
  if (!dev) for (const m of outcome.misses) m.what = '';
  return outcome;
}

/** Runs a case's steps against the store, moving the clock before each. */
async function runSteps(
  c: Case,
  store: MemoryStore,
  tz: string,
  tick: (at: string | undefined, first: boolean) => void,
): Promise<void> {
  const offline = new OfflineSession(store, { channel: 'terminal', tz });
  const sayEpisodes: number[] = [];
  const says = c.steps.filter((s): s is { say: string; at?: string } => 'say' in s);
  const modelWrites = new Map<number, { kind: Kind; key: string; value: string }[]>();
  for (const s of c.steps) {
    if ('model_remember' in s) {
      const list = modelWrites.get(s.cites) ?? [];
      list.push(s.model_remember);
      modelWrites.set(s.cites, list);
    }
  }
  let first = true;
  for (const step of c.steps) {
    if ('model_remember' in step) continue; // runs inside the turn it cites
    tick(step.at, first);
    first = false;
    if ('say' in step) {
      const index = says.indexOf(step);
      const writes = modelWrites.get(index);
      if (writes) {
        const model = new FakeChatModel([
          {
            content: writes.map((w, i) => ({
              type: 'tool_use' as const,
              id: `t${i}`,
              name: 'remember',
              input: { kind: w.kind, key: w.key, value: w.value },
            })),
          },
          'Noted.',
        ]);
        const r = await new Agent({ store, model, tz }).turn({
          text: step.say,
          channel: 'terminal',
        });
        sayEpisodes[index] = r.ownerEpisodeId;
      } else {
        const r = await offline.handle(step.say);
        if (r.episodeId === undefined)
          throw new Error(`say #${index} stored no episode: ${r.text}`);
        sayEpisodes[index] = r.episodeId;
      }
    } else if ('reflect' in step) {
      const ids = step.cites.map((i) => sayEpisodes[i]!);
      const allowed = new Map(ids.map((id) => [id, store.episode(id)!]));
      const d = step.reflect;
      applyDelta(
        store,
        {
          op: d.op === 'retract' ? 'retract' : 'add',
          subject: d.subject,
          kind: d.kind,
          key: d.key,
          ...(d.value !== undefined ? { value: d.value } : {}),
          ...(d.when !== undefined ? { when: d.when } : {}),
          episodes: ids,
        },
        allowed,
        tz,
        'reflection',
      );
    } else if ('forget' in step) {
      for (const f of store.activeFacts('owner').filter((f) => holds(f.value, step.forget))) {
        store.forget(f.id, { channel: 'terminal' });
      }
    } else if ('purge' in step) {
      purge(store, step.purge);
    } else if ('answer_pending' in step) {
      answer(store, step.answer_pending, step.yes);
    }
  }
}

/** The owner purges everything that mentions `text`, answering yes. */
function purge(store: MemoryStore, text: string): void {
  const s = store as unknown as { purgeMentions?: (v: string, o: { actor: 'owner' }) => unknown };
  if (typeof s.purgeMentions === 'function') {
    s.purgeMentions(text, { actor: 'owner' });
    return;
  }
  for (const f of store.activeFacts('owner').filter((f) => holds(f.value, text))) {
    store.forget(f.id, { channel: 'terminal', purge: true, otherSlots: 'erase' });
  }
}

/** The owner answers the open question that mentions `text`: a pending question, or a pending conflict. */
function answer(store: MemoryStore, text: string, yes: boolean): void {
  const asking = store as unknown as {
    questions?: () => { id: number }[];
    answer?: (id: number, a: 'yes' | 'no', o: { channel: string }) => unknown;
  };
  const question = asking.questions?.().find((q) => holds(JSON.stringify(q), text));
  if (question && asking.answer) {
    asking.answer(question.id, yes ? 'yes' : 'no', { channel: 'terminal' });
    return;
  }
  const item = store.review().pending.find((p) => holds(JSON.stringify(p), text));
  if (!item) throw new Error(`no pending question mentions ${JSON.stringify(text)}`);
  if (yes) store.confirm(item.fact.id, { channel: 'terminal' });
  else store.reject(item.fact.id, { channel: 'terminal' });
}

/** Checks every expectation but the byte search (which needs the store closed). */
async function checkExpectations(
  c: Case,
  store: MemoryStore,
  tz: string,
  _home: string,
  o: Outcome,
  now: () => number,
): Promise<void> {
  const e = c.expect;
  const forgot = c.steps.some((s) => 'forget' in s || 'purge' in s);
  const miss = (kind: keyof Expect, what: string, saw?: string) =>
    o.misses.push({ kind, what, ...(saw !== undefined ? { saw } : {}) });
  const all = dbOf(store).prepare("SELECT * FROM facts WHERE scope = 'owner'").all() as Fact[];
  const active = all.filter((f) => f.status === 'active');
  const shown = (fs: Fact[]) =>
    fs
      .map((f) => `${f.kind}/${f.key}=${f.value} [${f.status} ${f.source} ${f.confidence}]`)
      .join('; ');

  for (const x of e.current ?? [])
    if (!active.some((f) => holds(f.value, x))) miss('current', x, shown(all));
  for (const x of e.stated ?? []) {
    const ok = active.some(
      (f) =>
        holds(f.value, x) &&
        (f.source === 'owner_stated' || f.source === 'owner_confirmed') &&
        f.confidence >= 1,
    );
    if (!ok) miss('stated', x, shown(all));
  }
  for (const x of e.not_current ?? []) {
    if (active.some((f) => holds(factText(f), x))) {
      miss('not_current', x, shown(active));
      if (forgot) o.relearned++;
    }
  }
  for (const x of e.history ?? []) {
    if (
      !all.some((f) => (f.status === 'superseded' || f.status === 'retracted') && holds(f.value, x))
    )
      miss('history', x, shown(all));
  }
  const pending = pendingText(store);
  for (const x of e.pending ?? [])
    if (!pending.some((p) => holds(p, x))) miss('pending', x, pending.join(' | '));
  if (e.no_pending && pendingCount(store) > 0) miss('no_pending', '', pending.join(' | '));
  for (const { old, new: next } of e.no_contradiction ?? []) {
    const oldCurrent = active.some((f) => holds(f.value, old) && !holds(f.value, next));
    const asked = pending.some((p) => holds(p, old) || holds(p, next));
    if (oldCurrent && !asked) miss('no_contradiction', `${old} → ${next}`, shown(active));
  }
  for (const { value, date } of e.valid_from ?? []) {
    const f = active.find((f) => holds(f.value, value));
    const got = f ? (f.valid_from === null ? null : localDay(f.valid_from, tz)) : 'no belief';
    if (got !== date) miss('valid_from', `${value} ${date}`, String(got));
  }
  for (const { value, date } of e.valid_to ?? []) {
    const fs = all.filter((f) => holds(f.value, value));
    const got = fs.map((f) => (f.valid_to === null ? null : localDay(f.valid_to, tz)));
    if (!got.includes(date)) miss('valid_to', `${value} ${date}`, JSON.stringify(got));
  }
  if (e.no_beliefs && all.length > 0) miss('no_beliefs', '', shown(all));
  const texts = storedTexts(store);
  for (const x of e.kept_text ?? [])
    if (!texts.some((t) => t.includes(x) || holds(t, x))) miss('kept_text', x);
  for (const x of e.gone ?? []) {
    const left = texts.filter((t) => holds(t, x));
    if (left.length > 0) {
      miss('gone', x, left.slice(0, 3).join(' | '));
      if (forgot) o.relearned++;
    }
  }
  for (const { query, finds } of e.recall ?? []) {
    const r = await store.recall(query, { limit: 5, tz });
    if (!r.results.some((x) => holds(resultText(x), finds)))
      miss('recall', `${query} → ${finds}`, r.results.map(resultText).join(' | '));
  }
  for (const { query, text } of e.not_recalled ?? []) {
    const r = await store.recall(query, { limit: 5, tz });
    if (r.results.some((x) => holds(resultText(x), text)))
      miss('not_recalled', `${query} ↛ ${text}`, r.results.map(resultText).join(' | '));
  }
  for (const a of e.as_of ?? []) {
    const asOf = resolveAsOf(a.when, now(), tz);
    const r = asOf === null ? null : await store.recall(a.query, { limit: 5, tz, asOf });
    const hit = r?.results.find((x) => x.type === 'fact' && holds(resultText(x), a.finds));
    const ok = hit && (!a.start_unknown || (hit.type === 'fact' && hit.valid_from === null));
    if (!ok)
      miss(
        'as_of',
        `${a.when}: ${a.query} → ${a.finds}`,
        r ? r.results.map(resultText).join(' | ') : 'unread date',
      );
  }
  if (e.flagged?.length) await checkFlagged(store, tz, e.flagged, miss);
}

/** A flagged belief reaches the model marked: the next turn's request is read line by line. */
async function checkFlagged(
  store: MemoryStore,
  tz: string,
  flagged: string[],
  miss: (kind: keyof Expect, what: string, saw?: string) => void,
): Promise<void> {
  const model = new FakeChatModel('ok');
  await new Agent({ store, model, tz }).turn({
    text: `what do you know about ${flagged.join(', ')}?`,
    channel: 'terminal',
  });
  const call = model.calls[0];
  const request = JSON.stringify([call?.system, call?.messages]);
  const lines = request.split(/\\n/);
  for (const x of flagged) {
    const carrying = lines.filter((l) => holds(l, x) && !l.includes('what do you know about'));
    if (carrying.length === 0 || carrying.some((l) => !l.includes('[flagged:')))
      miss('flagged', x, carrying.join(' | ') || 'not in the request');
  }
}

/** The byte search: a withheld text must be in none of keel's files. */
function checkFiles(c: Case, home: string, o: Outcome): void {
  const withheld = c.expect.withheld ?? [];
  if (withheld.length === 0) return;
  const blobs = files(home).map((p) => readFileSync(p));
  for (const x of withheld) {
    const needle = Buffer.from(x, 'utf8');
    if (blobs.some((b) => b.includes(needle))) {
      o.misses.push({ kind: 'withheld', what: x });
      o.secretsKept++;
    }
  }
}

/** Per-class rows of a half: passed / total and the two counted figures. */
function table(outcomes: Outcome[]): string[][] {
  const classes = [...new Set(outcomes.map((o) => o.class))].sort();
  const row = (name: string, os: Outcome[]) => {
    const passed = os.filter((o) => o.passed).length;
    return [
      name,
      `${passed}/${os.length}`,
      `${((100 * passed) / Math.max(1, os.length)).toFixed(1)}%`,
      String(os.reduce((n, o) => n + o.secretsKept, 0)),
      String(os.reduce((n, o) => n + o.relearned, 0)),
      String(os.filter((o) => o.error).length),
    ];
  };
  return [
    ...classes.map((k) =>
      row(
        k,
        outcomes.filter((o) => o.class === k),
      ),
    ),
    row('all', outcomes),
  ];
}

const HEADER = ['class', 'passed', '%', 'secrets kept', 're-learned', 'errors'];
/**
 * The case sets, each split once into `<set>.dev.json` and `<set>.heldout.json` in
 * `bench/honesty/`: `cases` (the first round, 333 cases), then each later round (`round2`, …),
 * written under the same rules (see the README there).
 */
const SETS: readonly string[] = readdirSync(join(REPO_ROOT, 'bench', 'honesty'))
  .filter((f) => f.endsWith('.dev.json'))
  .map((f) => f.slice(0, -'.dev.json'.length))
  .sort((a, b) => (a === 'cases' ? -1 : b === 'cases' ? 1 : a.localeCompare(b)));

/**
 * Runs the chosen halves, prints a table per half and writes the results.
 *
 * @returns each half's outcomes, by half name.
 */
export async function runHonesty(argv = process.argv.slice(2)): Promise<Record<string, Outcome[]>> {
  const { values } = parseArgs({
    args: argv,
    options: {
      half: { type: 'string', default: 'both' },
      set: { type: 'string', default: 'all' },
      label: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      only: { type: 'string' },
    },
    allowPositionals: true,
  });
  const halves = values.half === 'both' ? ['dev', 'heldout'] : [values.half!];
  const sets = values.set === 'all' ? [...SETS] : [values.set!];
  const results: Record<string, { rows: string[][]; outcomes: Outcome[] }> = {};
  for (const [set, half] of sets.flatMap((x) => halves.map((h) => [x, h] as const))) {
    if (!SETS.includes(set)) throw new Error(`--set: one of ${SETS.join(', ')} or all`);
    const dev = half === 'dev';
    const name = set === 'cases' ? half : `${set}.${half}`;
    const cases = JSON.parse(
      readFileSync(join(REPO_ROOT, 'bench', 'honesty', `${set}.${half}.json`), 'utf8'),
    ) as Case[];
    const chosen = values.only
      ? cases.filter((c) => c.id.includes(values.only!) || c.class === values.only)
      : cases;
    const outcomes: Outcome[] = [];
    for (const c of chosen) outcomes.push(await runCase(c, dev));
    heading(`honesty: ${name} half (${chosen.length} cases)`);
    const rows = table(outcomes);
    printTable(HEADER, rows);
    if (dev && values.verbose) {
      for (const o of outcomes.filter((x) => !x.passed)) {
        console.log(`\n✗ ${o.id}${o.error ? ` ERROR ${o.error}` : ''}`);
        for (const m of o.misses)
          console.log(`  ${m.kind}: ${m.what}${m.saw !== undefined ? `\n     saw: ${m.saw}` : ''}`);
      }
    }
    results[name] = { rows, outcomes };
  }
  const [firstHalf, ...rest] = Object.entries(results);
  if (!firstHalf) return {};
  writeResults(
    'honesty',
    [`${firstHalf[0]}: ${HEADER[0]}`, ...HEADER.slice(1)],
    firstHalf[1].rows,
    [
      'A case passes when every expectation holds; "secrets kept" counts withheld texts found in keel\'s files; "re-learned" counts values current or stored again after the owner forgot or purged them.',
      'The held-out half is never tuned on: its failures are recorded by kind only.',
    ],
    values.label,
    rest.map(([half, r]) => ({
      header: [`${half}: ${HEADER[0]}`, ...HEADER.slice(1)],
      rows: r.rows,
    })),
  );
  writeQuestions(
    'honesty',
    Object.fromEntries(Object.entries(results).map(([h, r]) => [h, r.outcomes])),
    values.label,
  );
  return Object.fromEntries(Object.entries(results).map(([h, r]) => [h, r.outcomes]));
}

/** Both halves, for `pnpm bench`: the held-out half's figures against the goal. */
export async function benchHonesty(options: BenchOptions): Promise<SummaryRow[]> {
  const halves = await runHonesty([
    '--half',
    'both',
    ...(options.label ? ['--label', options.label] : []),
  ]);
  const rows: SummaryRow[] = [];
  for (const [name, held] of Object.entries(halves)) {
    if (!name.endsWith('heldout')) continue;
    const label = name === 'heldout' ? 'held-out' : `${name.replace('.heldout', '')} held-out`;
    for (const k of [...new Set(held.map((o) => o.class))].sort()) {
      const os = held.filter((o) => o.class === k);
      const share = os.filter((o) => o.passed).length / Math.max(1, os.length);
      rows.push({
        bench: 'honesty',
        metric: `${label} ${k}`,
        value: `${(100 * share).toFixed(1)}%`,
        target: '≥ 95%',
        met: share >= 0.95,
      });
    }
    rows.push(
      {
        bench: 'honesty',
        metric: `${label} secrets kept`,
        value: String(held.reduce((n, o) => n + o.secretsKept, 0)),
        target: '0',
        met: held.every((o) => o.secretsKept === 0),
      },
      {
        bench: 'honesty',
        metric: `${label} forgotten values re-learned`,
        value: String(held.reduce((n, o) => n + o.relearned, 0)),
        target: '0',
        met: held.every((o) => o.relearned === 0),
      },
    );
  }
  return rows;
}

if (isMain(import.meta.url)) await runHonesty();
