/**
 * The think pipeline's work, counted: how many frontier-model calls and tokens one day of owner
 * turns costs in the think service's tick and in its night, how many turns are sent to the model
 * and how many of them more than once, who puts rows in the pending-beliefs queue, and which facts
 * come out by source (in particular whether an explicit "remember that …", stored owner_stated at
 * the turn, is derived again as observed).
 *
 * A fresh KEEL_HOME in a temp folder; the same 50 owner turns of one day (fixed texts and
 * owner-local times, Europe/Berlin) through the real turn path (`Agent`, channel `terminal`, the
 * recording fake chat model answering each with a short reply); then one tick (`runThink`, curate
 * `never`) and one night (curate `now`), with the pattern gate and a recording fake frontier model
 * that answers reflection and curator requests with the deltas a careful model would propose for
 * the turns it is shown. Nobody is notified. No network, no Ollama; every figure is deterministic.
 *
 * Tokens are counted with gpt-tokenizer's `countTokens` (o200k) over the request's system parts
 * and message text (tool specs left out) and over the fake's reply text; the fake's own usage
 * figures (characters / 4 of the JSON request) are reported beside them.
 *
 * Run: `node --import tsx bench/think-pipeline.ts [--label before]` (or `KEEL_BENCH_LABEL=before`),
 * or `pnpm bench --only think-pipeline --label before`. Writes
 * `bench/results/think-pipeline-<label>.json` (label default: today's date).
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Agent,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ModelLimits,
} from '@keel/agent';
import { type FakeChatCall, FakeChatModel } from '@keel/agent/test';
import { type BeliefGate, PatternGate } from '@keel/gate';
import { loadConfig } from '@keel/host';
import { DB_FILENAME, MemoryStore } from '@keel/memory';
import { type RunDetails, runThink, type ThinkConfig } from '@keel/think';
import Database from 'better-sqlite3';
import { countTokens } from 'gpt-tokenizer';
import {
  type BenchOptions,
  heading,
  int,
  isMain,
  printTable,
  REPO_ROOT,
  type SummaryRow,
  withTempDir,
} from './lib.js';

// =============================================================================================
// keel adapter: every call into keel's APIs is in this section. When the store's API changes,
// only these functions need editing.
// =============================================================================================

/** The owner's zone and the curator's hour for the run. */
const TZ = 'Europe/Berlin';
const CURATE_AT = 3;

/** An open keel home: the store and the path of its database file (for the counting helper). */
interface Keel {
  store: MemoryStore;
  file: string;
  close(): void;
}

/** Opens `<home>/keel.db` as the apps resolve it (`loadConfig({ KEEL_HOME })`), on `clock`. */
function openKeel(home: string, clock: () => number): Keel {
  const dir = loadConfig({ KEEL_HOME: home }).home;
  const store = MemoryStore.openHome(dir, { now: clock });
  return { store, file: join(dir, DB_FILENAME), close: () => store.close() };
}

/** What one owner turn left, as the bench needs it. */
interface TurnOutcome {
  ownerEpisodeId: number;
  /** Writes applied at the turn (explicit captures): decision, kind/key and the source asked for. */
  writes: { decision: string; slot: string | null; source: string | null }[];
}

/** The owner's agent on `keel` with `model`; returns a function running one terminal turn. */
function makeAgent(keel: Keel, model: ChatModel): (text: string) => Promise<TurnOutcome> {
  const agent = new Agent({ store: keel.store, model });
  return async (text) => {
    const r = await agent.turn({ text, channel: 'terminal' });
    return {
      ownerEpisodeId: r.ownerEpisodeId,
      writes: r.writes.map((w) => ({
        decision: w.decision,
        slot: w.fact ? `${w.fact.kind}/${w.fact.key}` : null,
        source: w.fact?.source ?? null,
      })),
    };
  };
}

/** The pattern gate (no Ollama), counting its judgements into `counter.n`. */
function makeGate(counter: { n: number }): BeliefGate {
  const inner = new PatternGate();
  return {
    name: inner.name,
    judge: (text, options) => {
      counter.n++;
      return inner.judge(text, options);
    },
  };
}

/** What a think run reported, reduced to plain numbers. */
interface RunSummary {
  examined: number;
  queued: number;
  proposed: number;
  written: number;
  rejected: number;
  ignored: number;
  curatorTurns: number | null;
  curated: Record<string, number> | null;
  skipped: string[];
}

/**
 * One `runThink` on `keel` at the instant `now`: `tick` (curator never) or `night` (curator
 * now); weekly review never; nobody to notify.
 */
async function thinkRun(
  keel: Keel,
  mode: 'tick' | 'night',
  deps: { model: ChatModel; gate: BeliefGate; now: number },
): Promise<RunSummary> {
  const config: ThinkConfig = {
    intervalMin: 15,
    quietHours: { start: 23, end: 7 },
    tz: TZ,
    curateAt: CURATE_AT,
    ollamaHost: 'http://127.0.0.1:9',
    gateModel: 'none',
  };
  const r: RunDetails = await runThink(
    {
      store: keel.store,
      config,
      gate: deps.gate,
      model: deps.model,
      notify: null,
      now: () => deps.now,
    },
    { curate: mode === 'night' ? 'now' : 'never', weekly: 'never' },
  );
  return {
    examined: r.examined,
    queued: r.queued,
    proposed: r.proposed,
    written: r.written,
    rejected: r.rejected.length,
    ignored: r.ignored,
    curatorTurns: r.night?.turns ?? null,
    curated: r.curated ? { ...r.curated } : null,
    skipped: r.skipped,
  };
}

/** The text of a recorded request's system parts and of its messages' blocks, for counting. */
function requestText(call: FakeChatCall): { system: string; messages: string } {
  const block = (b: FakeChatCall['messages'][number]['content'][number]) =>
    b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : JSON.stringify(b.input);
  return {
    system: call.system.map((s) => s.text).join('\n'),
    messages: call.messages.map((m) => m.content.map(block).join('\n')).join('\n'),
  };
}

// =============================================================================================
// Counting: the one place that reads the database directly (better-sqlite3, read-only, on the
// file). Table and column names are the schema's, not the store's API.
// =============================================================================================

interface QueueRow {
  episode_id: number;
  queued_at: number;
  state: string;
}
interface FactRow {
  id: number;
  kind: string;
  key: string;
  value: string;
  source: string;
  status: string;
}
interface EvidenceRow {
  id: number;
  fact_id: number;
  episode_id: number;
  source: string;
}

/** A snapshot of the rows the bench counts. */
interface Snapshot {
  queue: QueueRow[];
  facts: FactRow[];
  evidence: EvidenceRow[];
  /** Owner conversation turns (the think service's input). */
  ownerTurns: number;
}

/** Reads the counted rows from the database file (a separate read-only connection). */
function readSnapshot(file: string): Snapshot {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      queue: db
        .prepare('SELECT episode_id, queued_at, state FROM belief_queue ORDER BY id')
        .all() as QueueRow[],
      facts: db
        .prepare('SELECT id, kind, key, value, source, status FROM facts ORDER BY id')
        .all() as FactRow[],
      evidence: db
        .prepare('SELECT id, fact_id, episode_id, source FROM fact_evidence ORDER BY id')
        .all() as EvidenceRow[],
      ownerTurns: (
        db
          .prepare(
            `SELECT count(*) AS n FROM episodes WHERE kind = 'conversation' AND role = 'owner'`,
          )
          .get() as { n: number }
      ).n,
    };
  } finally {
    db.close();
  }
}

// =============================================================================================
// The owner's day.
// =============================================================================================

/** A delta the fake frontier model proposes for a turn (before it looks at current beliefs). */
interface ScriptDelta {
  kind: string;
  subject: string;
  key: string;
  value: string;
  stated: boolean;
  when?: string;
}

/** One owner turn of the day. */
interface ScriptTurn {
  /** Owner-local time, HH:MM, on {@link DAY}. */
  at: string;
  /** `fact`: holds a durable fact; `explicit`: a "remember that …"; `talk`: small talk, questions. */
  type: 'fact' | 'explicit' | 'talk';
  text: string;
  /** What a careful frontier model proposes when shown this turn. */
  deltas?: ScriptDelta[];
  /** A reminder the model passes to the interrupts (reflection only). */
  urgent?: { item: string; message: string; due: string };
}

/** The day of the turns, and the owner's UTC offset on it (CET, before daylight saving). */
const DAY = '2026-03-10';
const OFFSET = '+01:00';
/** The tick runs after the last turn; the night at the curator's hour. */
const TICK_AT = '2026-03-10T23:20:00+01:00';
const NIGHT_AT = '2026-03-11T03:10:00+01:00';

const owner = (kind: string, key: string, value: string, when?: string): ScriptDelta => ({
  kind,
  subject: 'owner',
  key,
  value,
  stated: true,
  ...(when ? { when } : {}),
});
const about = (subject: string, kind: string, key: string, value: string): ScriptDelta => ({
  kind,
  subject,
  key,
  value,
  stated: true,
});

/** The 50 turns: 10 with durable facts (one a reminder), 7 explicit, 33 small talk. */
const TURNS: readonly ScriptTurn[] = [
  { at: '07:05', type: 'talk', text: 'Good morning! Slept badly again.' },
  { at: '07:12', type: 'talk', text: "What's the weather looking like for a run before work?" },
  {
    at: '07:20',
    type: 'fact',
    text: "I'm vegetarian, so keep that in mind for any recipe ideas.",
    deltas: [owner('constraint', 'diet', 'vegetarian')],
  },
  {
    at: '07:34',
    type: 'explicit',
    text: 'Remember that my favourite coffee is an oat milk flat white.',
    deltas: [owner('preference', 'coffee_order', 'oat milk flat white')],
  },
  { at: '07:51', type: 'talk', text: 'How long should I boil an egg for a soft yolk?' },
  { at: '08:02', type: 'talk', text: 'Thanks!' },
  {
    at: '08:15',
    type: 'fact',
    text: 'I started at Northwind Logistics this month, I lead their data platform team.',
    deltas: [
      owner('profile', 'employer', 'Northwind Logistics'),
      owner('profile', 'job_title', 'leads the data platform team'),
    ],
  },
  { at: '08:40', type: 'talk', text: 'Ugh, the S-Bahn is late again.' },
  { at: '08:55', type: 'talk', text: 'Can you explain what a Bloom filter is, briefly?' },
  { at: '09:10', type: 'talk', text: 'ok, and when would I use one instead of a hash set?' },
  {
    at: '09:32',
    type: 'explicit',
    text: 'Remember that I work from home on Fridays.',
    deltas: [owner('profile', 'remote_day', 'works from home on Fridays')],
  },
  {
    at: '09:48',
    type: 'talk',
    text: 'Draft a polite email declining a meeting on Thursday afternoon.',
  },
  { at: '10:05', type: 'talk', text: 'Make it a bit shorter.' },
  {
    at: '10:20',
    type: 'fact',
    text: "I prefer meetings in the morning, I'm useless after 4pm.",
    deltas: [owner('preference', 'meeting_time', 'mornings; avoids meetings after 4pm')],
  },
  { at: '10:41', type: 'talk', text: "What's the difference between an ETF and an index fund?" },
  { at: '11:03', type: 'talk', text: 'Interesting, thanks.' },
  {
    at: '11:15',
    type: 'explicit',
    text: 'Remember that my dentist is Dr. Keller on Schillerstraße.',
    deltas: [owner('relationship', 'dentist', 'Dr. Keller on Schillerstraße')],
  },
  {
    at: '11:40',
    type: 'talk',
    text: 'How many grams of protein are in 100g of cooked lentils?',
  },
  { at: '12:05', type: 'talk', text: 'Any ideas for a quick lunch with chickpeas?' },
  {
    at: '12:30',
    type: 'fact',
    text: 'My daughter Mia turns seven on the 14th of April.',
    deltas: [
      owner('relationship', 'daughter', 'Mia'),
      about('mia', 'relationship', 'birthday', '14 April'),
    ],
  },
  { at: '12:52', type: 'talk', text: 'lol' },
  {
    at: '13:10',
    type: 'explicit',
    text: "Remember that I don't eat mushrooms.",
    deltas: [owner('constraint', 'food_avoid', 'does not eat mushrooms')],
  },
  { at: '13:25', type: 'talk', text: "What's the capital of Slovenia?" },
  { at: '13:40', type: 'talk', text: 'Write a haiku about Tuesdays.' },
  {
    at: '14:02',
    type: 'fact',
    text: 'My wife Jana is flying to Lisbon next week for a conference.',
    deltas: [
      owner('relationship', 'wife', 'Jana'),
      { ...about('jana', 'fact', 'trip', 'flying to Lisbon for a conference'), when: 'next week' },
    ],
  },
  { at: '14:20', type: 'talk', text: "Translate 'see you tomorrow' into Czech." },
  {
    at: '14:35',
    type: 'fact',
    text: 'My brother Tomas lives in Prague.',
    deltas: [owner('relationship', 'brother', 'Tomas'), about('tomas', 'fact', 'home', 'Prague')],
  },
  { at: '14:50', type: 'talk', text: 'Is it going to rain this weekend?' },
  {
    at: '15:05',
    type: 'explicit',
    text: 'Remember that the car insurance renews on 1 May.',
    deltas: [owner('fact', 'car_insurance_renewal', 'renews on 1 May')],
  },
  { at: '15:22', type: 'talk', text: 'Give me three stretches for a stiff lower back.' },
  { at: '15:40', type: 'talk', text: 'Haha, my back says thanks.' },
  {
    at: '16:00',
    type: 'fact',
    text: "We've decided to move to Leipzig in the summer.",
    deltas: [owner('goal', 'relocation', 'moving to Leipzig', 'in the summer')],
  },
  { at: '16:18', type: 'talk', text: "What's a good name for a team retro board?" },
  { at: '16:35', type: 'talk', text: "Never mind, I'll think of one." },
  {
    at: '17:02',
    type: 'fact',
    text: "I'm training for the Berlin half marathon in April.",
    deltas: [owner('goal', 'half_marathon', 'running the Berlin half marathon in April')],
  },
  { at: '17:20', type: 'talk', text: 'What time is it in Tokyo right now?' },
  {
    at: '17:45',
    type: 'explicit',
    text: 'Remember that my son Leo has swimming on Wednesdays at 5.',
    deltas: [
      owner('relationship', 'son', 'Leo'),
      about('leo', 'fact', 'swimming', 'swimming on Wednesdays at 17:00'),
    ],
  },
  { at: '18:05', type: 'talk', text: 'What should I cook tonight? Something quick.' },
  {
    at: '18:30',
    type: 'talk',
    text: "What does a Bloom filter's false positive rate depend on?",
  },
  { at: '18:50', type: 'talk', text: 'The lentil curry was great, thanks.' },
  { at: '19:15', type: 'talk', text: 'Can you recommend a book like Project Hail Mary?' },
  { at: '19:40', type: 'talk', text: "I've read that one already. Another?" },
  { at: '20:05', type: 'talk', text: 'Is it weird to eat cereal for dinner?' },
  { at: '20:30', type: 'talk', text: 'How do I get red wine out of a carpet?' },
  {
    at: '20:55',
    type: 'explicit',
    text: 'Remember that I live in Friedrichshain.',
    deltas: [owner('profile', 'home', 'Friedrichshain, Berlin')],
  },
  {
    at: '21:20',
    type: 'fact',
    text: 'Remind me to call the plumber tomorrow at 9.',
    urgent: {
      item: 'call the plumber',
      message: 'Reminder: call the plumber at 9:00.',
      due: 'tomorrow at 9',
    },
  },
  { at: '21:40', type: 'talk', text: "What's a good film for a quiet evening?" },
  { at: '22:05', type: 'talk', text: 'Seen it. Something older?' },
  {
    at: '22:30',
    type: 'fact',
    text: "My mum's name is Eva, she lives in Dresden.",
    deltas: [owner('relationship', 'mother', 'Eva'), about('eva', 'fact', 'home', 'Dresden')],
  },
  { at: '22:50', type: 'talk', text: 'Good night!' },
];

/** Short replies the fake chat model gives the owner, in rotation. */
const REPLIES = ['Noted.', 'Sure, here you go.', 'Got it.', 'Happy to help.', 'Okay!'];

// =============================================================================================
// The fake frontier model.
// =============================================================================================

/** A model call as the bench saw it. */
interface CallRecord {
  phase: Phase;
  /** `turn` (the agent), `reflection`, `curator`, `other`. */
  step: string;
  systemTokens: number;
  messageTokens: number;
  outputTokens: number;
  usage: { inputTokens: number; outputTokens: number };
  /** Episode ids shown in the request (`[episode N]`). */
  episodes: number[];
}

type Phase = 'turns' | 'tick' | 'night';

/** A ChatModel that records each request and response of `inner` under the current phase. */
class Recorder implements ChatModel {
  readonly provider: string;
  readonly model: string;
  readonly records: CallRecord[] = [];
  phase: Phase = 'turns';

  constructor(private readonly inner: FakeChatModel) {
    this.provider = inner.provider;
    this.model = inner.model;
  }

  limits(): Promise<ModelLimits> {
    return this.inner.limits();
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const response = await this.inner.complete(request);
    const call = this.inner.lastCall!;
    const { system, messages } = requestText(call);
    const reply = response.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('');
    this.records.push({
      phase: this.phase,
      step: stepOf(system),
      systemTokens: countTokens(system),
      messageTokens: countTokens(messages),
      outputTokens: countTokens(reply),
      usage: { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens },
      episodes: [...messages.matchAll(/\[episode (\d+)\]/g)].map((m) => Number(m[1])),
    });
    return response;
  }
}

/**
 * Which step sent a request, by the opening of its system prompt (`REFLECTION_SYSTEM` and
 * `CURATOR_SYSTEM` in apps/think/src/deltas.ts). This and the two readers below follow the request
 * format of apps/think/src/consult.ts, not the store's API.
 */
function stepOf(system: string): string {
  if (system.startsWith("You are keel's reflection step")) return 'reflection';
  if (system.startsWith("You are keel's nightly curator")) return 'curator';
  if (system.includes('[episode ')) return 'other';
  return 'turn';
}

/** Lower case, letters and digits only: how the fake compares a value with a shown belief's. */
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** A current belief as the request shows it: `[f3] kind/key: value (conf …) → subject "s", key "k"`. */
interface ShownBelief {
  kind: string;
  subject: string;
  key: string;
  value: string;
}

function shownBeliefs(message: string): ShownBelief[] {
  const out: ShownBelief[] = [];
  const section = message.split('Current beliefs that may relate:\n')[1] ?? '';
  for (const line of section.split('\n')) {
    const m = /^\[f\d+\] ([a-z]+)\/\S+: (.*) \(conf [\d.]+,.*\) → subject "(.*)", key "(.*)"$/.exec(
      line,
    );
    if (m) out.push({ kind: m[1]!, value: m[2]!, subject: m[3]!, key: m[4]! });
  }
  return out;
}

/** The owner turns shown in a request, by episode id, with their text. */
function shownTurns(message: string): { id: number; text: string }[] {
  const body = message.split('\n\nCurrent beliefs that may relate:')[0] ?? '';
  return [...body.matchAll(/\[episode (\d+)\][^\n]*:\n([\s\S]*?)(?=\n\n\[episode \d+\]|$)/g)].map(
    (m) => ({ id: Number(m[1]), text: m[2]!.trim() }),
  );
}

/**
 * The fake frontier model's answer to a reflection or curator request: for each shown turn, the
 * deltas its script gives it (none for small talk), each citing that turn's episode. Following the
 * prompt's rule, a delta about something a shown belief already holds (same kind, and the same
 * subject and key or the same value up to case and punctuation) reuses that belief's subject and
 * key and value, as a corroboration. Reflection also passes the reminder on as urgent.
 */
function frontierAnswer(call: FakeChatCall): string {
  const { system, messages } = requestText(call);
  const step = stepOf(system);
  if (step !== 'reflection' && step !== 'curator') return '{"deltas": []}';
  const byText = new Map(TURNS.map((t) => [t.text, t]));
  const beliefs = shownBeliefs(messages);
  const deltas: unknown[] = [];
  const urgent: unknown[] = [];
  for (const shown of shownTurns(messages)) {
    const turn = byText.get(shown.text);
    if (!turn) continue;
    for (const d of turn.deltas ?? []) {
      const same = beliefs.find(
        (b) =>
          b.kind === d.kind &&
          ((b.subject === d.subject && b.key === d.key) || norm(b.value) === norm(d.value)),
      );
      deltas.push(
        same
          ? {
              op: 'corroborate',
              kind: d.kind,
              subject: same.subject,
              key: same.key,
              value: same.value,
              episodes: [shown.id],
              stated: d.stated,
            }
          : { op: 'add', ...d, episodes: [shown.id] },
      );
    }
    if (turn.urgent && step === 'reflection') urgent.push({ ...turn.urgent, episodes: [shown.id] });
  }
  return JSON.stringify(step === 'reflection' ? { deltas, urgent } : { deltas });
}

// =============================================================================================
// The run.
// =============================================================================================

const epoch = (iso: string) => Date.parse(iso);

/** Per-phase figures. */
interface PhaseFigures {
  modelCalls: number;
  inputTokens: number;
  inputTokensSystem: number;
  outputTokens: number;
  fakeUsage: { inputTokens: number; outputTokens: number };
  /** Episode ids shown, counting repeats within the phase. */
  turnsShown: number;
  /** Distinct episode ids shown. */
  turnsSent: number;
  gateJudgements: number;
  queueRowsAdded: number;
  factsWritten: Record<string, number>;
  factsPending: number;
  evidenceBySource: Record<string, number>;
}

/** Everything the bench measured; written as the result file. */
export interface ThinkPipelineResult {
  bench: 'think-pipeline';
  label: string;
  date: string;
  node: string;
  setup: {
    turns: number;
    factTurns: number;
    explicitTurns: number;
    talkTurns: number;
    tz: string;
    day: string;
    tickAt: string;
    nightAt: string;
    gate: 'pattern';
    tokenizer: string;
  };
  turns: PhaseFigures;
  tick: PhaseFigures & { run: RunSummary };
  night: PhaseFigures & { run: RunSummary };
  tickAndNight: {
    modelCalls: number;
    inputTokens: number;
    outputTokens: number;
    turnsSent: number;
    turnsSentMoreThanOnce: number;
    turnsSentInTickAndNight: number;
  };
  queue: {
    rows: number;
    byProducer: { agentTurn: number; thinkWatermark: number };
    /**
     * Owner turns written before the tick, all new to its watermark step (today's watermark
     * offers each of them to the queue; INSERT OR IGNORE keeps the row already there).
     */
    ownerTurnsNewAtTick: number;
    byState: Record<string, number>;
  };
  /** Explicit statements (of setup.explicitTurns) that tick or night derived again as new facts. */
  explicitDerivedAgain: number;
  explicit: {
    turn: number;
    text: string;
    episode: number;
    capturedAt: string | null;
    gate: string;
    sentInTick: boolean;
    sentInNight: boolean;
    /** Facts other than the capture that cite this turn after the night: slot, source, status. */
    derivedAgain: { slot: string; source: string; status: string; phase: Phase }[];
  }[];
  /** Each turn: its type, the gate's decision, and how often it was sent in the tick and night. */
  perTurn: { turn: number; type: string; gate: string; sentInTick: number; sentInNight: number }[];
  /** Each frontier call: phase, step, tokens and the number of turns shown. */
  calls: {
    phase: Phase;
    step: string;
    inputTokens: number;
    outputTokens: number;
    turnsShown: number;
  }[];
  facts: {
    bySource: Record<string, number>;
    list: { slot: string; value: string; source: string; status: string }[];
  };
}

function tally<T>(items: readonly T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of items) out[key(t)] = (out[key(t)] ?? 0) + 1;
  return out;
}

function phaseFigures(
  records: CallRecord[],
  phase: Phase,
  gateJudgements: number,
  before: Snapshot,
  after: Snapshot,
): PhaseFigures {
  const rs = records.filter((r) => r.phase === phase);
  const sum = (f: (r: CallRecord) => number) => rs.reduce((a, r) => a + f(r), 0);
  const oldFacts = new Set(before.facts.map((f) => f.id));
  const newFacts = after.facts.filter((f) => !oldFacts.has(f.id));
  const oldEvidence = new Set(before.evidence.map((e) => e.id));
  return {
    modelCalls: rs.length,
    inputTokens: sum((r) => r.systemTokens + r.messageTokens),
    inputTokensSystem: sum((r) => r.systemTokens),
    outputTokens: sum((r) => r.outputTokens),
    fakeUsage: {
      inputTokens: sum((r) => r.usage.inputTokens),
      outputTokens: sum((r) => r.usage.outputTokens),
    },
    turnsShown: sum((r) => r.episodes.length),
    turnsSent: new Set(rs.flatMap((r) => r.episodes)).size,
    gateJudgements,
    queueRowsAdded: after.queue.length - before.queue.length,
    factsWritten: tally(newFacts, (f) => f.source),
    factsPending: newFacts.filter((f) => f.status === 'pending').length,
    evidenceBySource: tally(
      after.evidence.filter((e) => !oldEvidence.has(e.id)),
      (e) => e.source,
    ),
  };
}

/**
 * Runs the day, the tick and the night in a fresh KEEL_HOME.
 *
 * @param label - the result's label (e.g. `before`).
 * @returns the figures.
 */
export async function benchThinkPipeline(label: string): Promise<ThinkPipelineResult> {
  return withTempDir(async (home) => {
    let clock = epoch(`${DAY}T${TURNS[0]!.at}:00${OFFSET}`);
    const keel = openKeel(home, () => clock);
    try {
      let replies = 0;
      const chat = new Recorder(new FakeChatModel(() => REPLIES[replies++ % REPLIES.length]!));
      const frontier = new Recorder(new FakeChatModel((call) => frontierAnswer(call)));
      const judged = { n: 0 };
      const gate = makeGate(judged);
      const turn = makeAgent(keel, chat);

      const start = readSnapshot(keel.file);
      const episodes: number[] = [];
      const captured: (string | null)[] = [];
      for (const t of TURNS) {
        clock = epoch(`${DAY}T${t.at}:00${OFFSET}`);
        const r = await turn(t.text);
        episodes.push(r.ownerEpisodeId);
        const w = r.writes.find((x) => x.source === 'owner_stated');
        captured.push(w ? `${w.slot} (${w.decision})` : null);
      }
      const afterTurns = readSnapshot(keel.file);

      frontier.phase = 'tick';
      clock = epoch(TICK_AT);
      const tickRun = await thinkRun(keel, 'tick', { model: frontier, gate, now: clock });
      const tickJudged = judged.n;
      const afterTick = readSnapshot(keel.file);

      frontier.phase = 'night';
      clock = epoch(NIGHT_AT);
      const nightRun = await thinkRun(keel, 'night', { model: frontier, gate, now: clock });
      const afterNight = readSnapshot(keel.file);

      const all = [...chat.records, ...frontier.records];
      const tick = phaseFigures(all, 'tick', tickJudged, afterTurns, afterTick);
      const night = phaseFigures(all, 'night', judged.n - tickJudged, afterTick, afterNight);
      const turnsFigures = phaseFigures(all, 'turns', 0, start, afterTurns);

      const tickSent = new Set(
        frontier.records.filter((r) => r.phase === 'tick').flatMap((r) => r.episodes),
      );
      const nightSent = new Set(
        frontier.records.filter((r) => r.phase === 'night').flatMap((r) => r.episodes),
      );
      const timesSent = new Map<number, number>();
      for (const r of frontier.records) {
        for (const e of r.episodes) timesSent.set(e, (timesSent.get(e) ?? 0) + 1);
      }

      const tickStart = epoch(TICK_AT);
      const queueByState = tally(afterNight.queue, (q) => q.state);

      const factById = new Map(afterNight.facts.map((f) => [f.id, f]));
      const tickFactIds = new Set(afterTick.facts.map((f) => f.id));
      const turnFactIds = new Set(afterTurns.facts.map((f) => f.id));
      const explicit = TURNS.flatMap((t, i) => {
        if (t.type !== 'explicit') return [];
        const episode = episodes[i]!;
        const q = afterNight.queue.find((x) => x.episode_id === episode);
        const derivedAgain = afterNight.evidence
          .filter((e) => e.episode_id === episode && !turnFactIds.has(e.fact_id))
          .map((e) => {
            const f = factById.get(e.fact_id)!;
            return {
              slot: `${f.kind}/${f.key}`,
              source: e.source,
              status: f.status,
              phase: (tickFactIds.has(f.id) ? 'tick' : 'night') as Phase,
            };
          });
        return [
          {
            turn: i + 1,
            text: t.text,
            episode,
            capturedAt: captured[i] ?? null,
            gate: q?.state ?? 'not queued',
            sentInTick: tickSent.has(episode),
            sentInNight: nightSent.has(episode),
            derivedAgain,
          },
        ];
      });

      return {
        bench: 'think-pipeline',
        label,
        date: new Date().toISOString().slice(0, 10),
        node: process.version,
        setup: {
          turns: TURNS.length,
          factTurns: TURNS.filter((t) => t.type === 'fact').length,
          explicitTurns: TURNS.filter((t) => t.type === 'explicit').length,
          talkTurns: TURNS.filter((t) => t.type === 'talk').length,
          tz: TZ,
          day: DAY,
          tickAt: TICK_AT,
          nightAt: NIGHT_AT,
          gate: 'pattern',
          tokenizer: 'gpt-tokenizer countTokens (o200k_base), system + message text',
        },
        turns: turnsFigures,
        tick: { ...tick, run: tickRun },
        night: { ...night, run: nightRun },
        tickAndNight: {
          modelCalls: tick.modelCalls + night.modelCalls,
          inputTokens: tick.inputTokens + night.inputTokens,
          outputTokens: tick.outputTokens + night.outputTokens,
          turnsSent: timesSent.size,
          turnsSentMoreThanOnce: [...timesSent.values()].filter((n) => n > 1).length,
          turnsSentInTickAndNight: [...tickSent].filter((e) => nightSent.has(e)).length,
        },
        queue: {
          rows: afterNight.queue.length,
          byProducer: {
            agentTurn: afterNight.queue.filter((q) => q.queued_at < tickStart).length,
            thinkWatermark: afterNight.queue.filter((q) => q.queued_at >= tickStart).length,
          },
          ownerTurnsNewAtTick: afterTick.ownerTurns - start.ownerTurns,
          byState: queueByState,
        },
        explicitDerivedAgain: explicit.filter((e) => e.derivedAgain.length > 0).length,
        explicit,
        perTurn: TURNS.map((t, i) => {
          const episode = episodes[i]!;
          const shown = (phase: Phase) =>
            frontier.records
              .filter((r) => r.phase === phase)
              .reduce((n, r) => n + r.episodes.filter((e) => e === episode).length, 0);
          return {
            turn: i + 1,
            type: t.type,
            gate: afterNight.queue.find((x) => x.episode_id === episode)?.state ?? 'not queued',
            sentInTick: shown('tick'),
            sentInNight: shown('night'),
          };
        }),
        calls: frontier.records.map((r) => ({
          phase: r.phase,
          step: r.step,
          inputTokens: r.systemTokens + r.messageTokens,
          outputTokens: r.outputTokens,
          turnsShown: r.episodes.length,
        })),
        facts: {
          bySource: tally(afterNight.facts, (f) => f.source),
          list: afterNight.facts
            .filter((f) => f.status === 'active' || f.status === 'pending')
            .map((f) => ({
              slot: `${f.kind}/${f.key}`,
              value: f.value,
              source: f.source,
              status: f.status,
            })),
        },
      };
    } finally {
      keel.close();
    }
  });
}

// =============================================================================================
// Printing and the result file.
// =============================================================================================

const sources = (r: Record<string, number>) =>
  ['owner_stated', 'observed', 'inferred']
    .map((s) => `${s.replace('owner_', '')} ${r[s] ?? 0}`)
    .join(', ');

/** Prints the figures as tables. */
export function printThinkPipeline(r: ThinkPipelineResult): void {
  const cols = [r.turns, r.tick, r.night] as const;
  // The agent's requests carry the owner's turn itself, not `[episode N]` lines: '-' there.
  const row = (name: string, f: (p: PhaseFigures) => string, both: string, agent = true) => [
    name,
    ...cols.map((p, i) => (i === 0 && !agent ? '-' : f(p))),
    both,
  ];
  const tn = r.tickAndNight;
  printTable(
    ['figure', 'turns (agent)', 'tick', 'night', 'tick + night'],
    [
      row('model calls', (p) => int(p.modelCalls), int(tn.modelCalls)),
      row('input tokens', (p) => int(p.inputTokens), int(tn.inputTokens)),
      row('  of which system', (p) => int(p.inputTokensSystem), ''),
      row('output tokens', (p) => int(p.outputTokens), int(tn.outputTokens)),
      row(
        'fake usage in/out',
        (p) => `${int(p.fakeUsage.inputTokens)}/${int(p.fakeUsage.outputTokens)}`,
        '',
      ),
      row('turns sent (distinct)', (p) => int(p.turnsSent), int(tn.turnsSent), false),
      row('turns sent more than once', () => '', int(tn.turnsSentMoreThanOnce)),
      row('gate judgements', (p) => int(p.gateJudgements), '', false),
      row('queue rows added', (p) => int(p.queueRowsAdded), ''),
      row('facts written', (p) => sources(p.factsWritten), ''),
      row('  of them pending', (p) => int(p.factsPending), ''),
      row('evidence rows', (p) => sources(p.evidenceBySource), ''),
    ],
  );
  const q = r.queue;
  console.log(
    `\n  queue: ${q.rows} rows; produced by the agent's turn path ${q.byProducer.agentTurn}, by the ` +
      `think watermark ${q.byProducer.thinkWatermark} (the tick's watermark passed over ` +
      `${q.ownerTurnsNewAtTick} new owner turns); by state ${JSON.stringify(q.byState)}`,
  );
  console.log(
    `  tick run: examined ${r.tick.run.examined}, queued ${r.tick.run.queued}, proposed ${r.tick.run.proposed}, ` +
      `written ${r.tick.run.written}, ignored ${r.tick.run.ignored}, rejected ${r.tick.run.rejected}`,
  );
  console.log(
    `  night run: curator turns ${r.night.run.curatorTurns}, proposed ${r.night.run.proposed}, written ` +
      `${r.night.run.written}, ignored ${r.night.run.ignored}, rejected ${r.night.run.rejected}; ` +
      `curated ${JSON.stringify(r.night.run.curated)}`,
  );
  console.log(`  facts after the night by source: ${JSON.stringify(r.facts.bySource)}`);
  console.log(
    `  explicit statements derived again as new facts by tick or night: ${r.explicitDerivedAgain} of ${r.setup.explicitTurns}\n`,
  );
  printTable(
    [
      '#',
      'explicit turn',
      'captured at the turn',
      'gate',
      'sent',
      'derived again (source, status)',
    ],
    r.explicit.map((e) => [
      String(e.turn),
      e.text.length > 44 ? `${e.text.slice(0, 43)}…` : e.text,
      e.capturedAt ?? '-',
      e.gate,
      [e.sentInTick ? 'tick' : '', e.sentInNight ? 'night' : ''].filter(Boolean).join('+') || '-',
      e.derivedAgain.map((d) => `${d.slot} (${d.source}, ${d.status}, ${d.phase})`).join('; ') ||
        '-',
    ]),
  );
}

/** Writes `bench/results/think-pipeline-<label>.json`; returns its path. */
export function writeThinkPipeline(r: ThinkPipelineResult): string {
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const safe = r.label.replace(/[^\w.-]+/g, '_');
  const path = join(dir, `think-pipeline-${safe}.json`);
  writeFileSync(path, `${JSON.stringify(r, null, 2)}\n`);
  return path;
}

/** The label: `--label`, else `KEEL_BENCH_LABEL`, else today's date. */
function labelOf(flag: string | undefined): string {
  return (
    flag?.trim() || process.env.KEEL_BENCH_LABEL?.trim() || new Date().toISOString().slice(0, 10)
  );
}

/** `bench/run.ts` entry: prints the figures, writes the result file, returns summary rows. */
export async function benchThinkPipelineRows(
  options: Pick<BenchOptions, 'label'>,
): Promise<SummaryRow[]> {
  const label = labelOf(options.label);
  heading(`think pipeline: 50 owner turns, one tick, one night (label ${label})`);
  const r = await benchThinkPipeline(label);
  printThinkPipeline(r);
  console.log(`\n  wrote ${writeThinkPipeline(r)}`);
  const tn = r.tickAndNight;
  return [
    {
      bench: 'think-pipeline',
      metric: 'frontier calls (tick + night)',
      value: int(tn.modelCalls),
      target: '',
    },
    {
      bench: 'think-pipeline',
      metric: 'frontier input tokens (tick + night)',
      value: int(tn.inputTokens),
      target: '',
    },
    {
      bench: 'think-pipeline',
      metric: 'turns sent to the frontier model more than once',
      value: int(tn.turnsSentMoreThanOnce),
      target: '',
    },
  ];
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { label: { type: 'string' } } });
  await benchThinkPipelineRows({ label: values.label });
}
