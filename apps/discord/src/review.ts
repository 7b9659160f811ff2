/**
 * The review queue rendered for Discord: pages of at most five items, each with a Confirm and a
 * Reject button whose custom id names the fact — or, for a belief the model asked to forget, a
 * Forget and a Keep button (the model proposes; the owner decides), or, for a pending question
 * (does something the owner said end a belief?), a Yes and a No button naming the question. A
 * click goes through the same store functions the terminal's /confirm, /reject, /forget, /keep
 * and /answer use. What a page quotes (a belief, the model's reason, a question) is screened as
 * every message keel sends: control characters and bidi overrides are shown, never obeyed.
 *
 * @module
 */
import { type Fact, type PendingQuestion, questionText, type ReviewQueue } from '@keel/memory';
import { discordText } from '@keel/outbound';
import { formatFactLine } from '@keel/prompt';
import type { APIActionRowComponent, APIButtonComponent } from 'discord.js';

/** Items per review message (Discord allows five rows of components per message). */
export const REVIEW_PAGE_ITEMS = 5;
/** Review messages sent at most; the rest is counted in the last one. */
export const REVIEW_MAX_PAGES = 4;

/** One review message. */
export interface ReviewPage {
  content: string;
  components: APIActionRowComponent<APIButtonComponent>[];
}

/**
 * A review button's action: the slash command it runs on the fact, or, for `yes` and `no`, the
 * answer to question `questionId` (then `factId` is the belief it is about, when known, else 0).
 */
export interface ReviewAction {
  action: 'confirm' | 'reject' | 'forget' | 'keep' | 'yes' | 'no';
  factId: number;
  questionId?: number;
}

/** A request to forget a belief, as the owner is asked about it. */
export interface ForgetRequestItem {
  fact: Fact;
  /** The model's reason, in its words (null when it gave none). */
  why: string | null;
}

/** The custom id of a review button. */
export function reviewButtonId(action: ReviewAction['action'], factId: number): string {
  return `keel:${action}:${factId}`;
}

/** The custom id of a question's Yes or No button: `keel:yes:q7`. */
export function questionButtonId(answer: 'yes' | 'no', questionId: number): string {
  return `keel:${answer}:q${questionId}`;
}

/** Parses a review button's custom id; null for anything else. */
export function parseReviewButton(customId: string): ReviewAction | null {
  const q = /^keel:(yes|no):q(\d{1,15})$/.exec(customId);
  if (q) return { action: q[1] as 'yes' | 'no', factId: 0, questionId: Number(q[2]) };
  const m = /^keel:(confirm|reject|forget|keep):(\d{1,15})$/.exec(customId);
  if (!m) return null;
  return { action: m[1] as ReviewAction['action'], factId: Number(m[2]) };
}

/**
 * The slash command a button runs (`/confirm 12`, `/answer q7 yes`) and the suffix of the custom
 * ids whose row it answers.
 */
export function buttonCommand(a: ReviewAction): { command: string; suffix: string } {
  if (a.questionId !== undefined) {
    return { command: `/answer q${a.questionId} ${a.action}`, suffix: `:q${a.questionId}` };
  }
  return { command: `/${a.action} ${a.factId}`, suffix: `:${a.factId}` };
}

/** The Yes and No buttons of a pending question. */
function questionRow(questionId: number): APIActionRowComponent<APIButtonComponent> {
  return {
    type: 1,
    components: [
      {
        type: 2,
        style: 4,
        label: `Yes, q${questionId} no longer holds`,
        custom_id: questionButtonId('yes', questionId),
      },
      {
        type: 2,
        style: 2,
        label: `No, keep it`,
        custom_id: questionButtonId('no', questionId),
      },
    ],
  };
}

/** A pending question as the owner is asked it. */
function questionItem(q: PendingQuestion) {
  return {
    id: q.id,
    lines: [`question ${clip(questionText(q), 300)}`],
    row: questionRow,
  };
}

/**
 * Stored text as a page shows it: screened first (control characters and bidi overrides shown
 * visibly, `discordText` of `@keel/outbound`), then cut to `n` characters, so a page stays within
 * Discord's limit however many controls a belief holds.
 */
const clip = (s: string, n: number) => {
  const shown = discordText(s);
  return shown.length <= n ? shown : `${shown.slice(0, n - 1)}…`;
};

function row(factId: number): APIActionRowComponent<APIButtonComponent> {
  return {
    type: 1,
    components: [
      {
        type: 2,
        style: 3,
        label: `Confirm f${factId}`,
        custom_id: reviewButtonId('confirm', factId),
      },
      {
        type: 2,
        style: 4,
        label: `Reject f${factId}`,
        custom_id: reviewButtonId('reject', factId),
      },
    ],
  };
}

/** The Forget and Keep buttons of a request to forget. */
function forgetRow(factId: number): APIActionRowComponent<APIButtonComponent> {
  return {
    type: 1,
    components: [
      {
        type: 2,
        style: 4,
        label: `Forget f${factId}`,
        custom_id: reviewButtonId('forget', factId),
      },
      {
        type: 2,
        style: 2,
        label: `Keep f${factId}`,
        custom_id: reviewButtonId('keep', factId),
      },
    ],
  };
}

/** One request as a line: `[f12] preference/tea: black tea (…) — because "…"`. */
function forgetLine(item: ForgetRequestItem, max: number): string {
  const why = item.why?.replace(/\s+/g, ' ').trim();
  return clip(`${formatFactLine(item.fact)}${why ? ` — because "${why}"` : ''}`, max);
}

/**
 * The model's requests to forget, asked after the turn that made them: messages of at most five
 * requests, each with a Forget and a Keep button. Nothing is forgotten until the owner clicks.
 */
export function renderForgetRequests(requests: readonly ForgetRequestItem[]): ReviewPage[] {
  const pages: ReviewPage[] = [];
  for (let i = 0; i < requests.length; i += REVIEW_PAGE_ITEMS) {
    const page = requests.slice(i, i + REVIEW_PAGE_ITEMS);
    pages.push({
      content: discordText(
        [
          page.length === 1
            ? 'keel asks to forget this; nothing is forgotten until you decide:'
            : 'keel asks to forget these; nothing is forgotten until you decide:',
          ...page.map((r) => forgetLine(r, 300)),
        ].join('\n'),
      ),
      components: page.map((r) => forgetRow(r.fact.id)),
    });
  }
  return pages;
}

/** Renders the review queue as Discord messages with buttons. */
export function renderReview(queue: ReviewQueue): ReviewPage[] {
  const pendingIds = new Set(queue.pending.map((p) => p.fact.id));
  const forget = queue.forget.filter((r) => !pendingIds.has(r.factId));
  const asked = new Set(forget.map((r) => r.factId));
  const questions = queue.questions.length;
  const items: { id: number; lines: string[]; row: typeof row }[] = [
    ...queue.pending.map((p) => ({
      id: p.fact.id,
      lines: [
        `pending ${clip(formatFactLine(p.fact), 180)}`,
        ...(p.current ? [`   contradicts ${clip(formatFactLine(p.current), 170)}`] : []),
      ],
      row,
    })),
    ...queue.questions.map(questionItem),
    ...forget.map((r) => ({
      id: r.fact.id,
      lines: [`asked to forget ${forgetLine(r, 300)}`],
      row: forgetRow,
    })),
    ...queue.weak
      .filter((f) => !asked.has(f.id))
      .map((f) => ({
        id: f.id,
        lines: [`weak (< ${queue.threshold}) ${clip(formatFactLine(f), 170)}`],
        row,
      })),
    ...queue.stale
      .filter((f) => !queue.weak.some((w) => w.id === f.id) && !asked.has(f.id))
      .map((f) => ({
        id: f.id,
        lines: [`stale (no evidence for 180 days) ${clip(formatFactLine(f), 150)}`],
        row,
      })),
  ];
  if (items.length === 0) return [{ content: 'Nothing to review.', components: [] }];
  const pages: ReviewPage[] = [];
  const shown = items.slice(0, REVIEW_PAGE_ITEMS * REVIEW_MAX_PAGES);
  for (let i = 0; i < shown.length; i += REVIEW_PAGE_ITEMS) {
    const page = shown.slice(i, i + REVIEW_PAGE_ITEMS);
    const header =
      i === 0
        ? `To review: ${queue.pending.length} pending conflict(s), ${queue.weak.length} weak belief(s), ${queue.stale.length} stale${forget.length ? `, ${forget.length} keel asked to forget` : ''}${questions ? `, ${questions} pending question(s)` : ''}. Confirm makes a belief yours (1.0); reject drops it for good.${forget.length ? ' Forget retracts it; keep leaves it as it is.' : ''}${questions ? ' Yes closes the belief a question names (kept in history); no keeps it.' : ''}`
        : 'More to review:';
    const rest = items.length - shown.length;
    const footer =
      i + REVIEW_PAGE_ITEMS >= shown.length && rest > 0
        ? [`…and ${rest} more: say "review" again after these.`]
        : [];
    pages.push({
      content: discordText([header, ...page.flatMap((it) => it.lines), ...footer].join('\n')),
      components: page.map((it) => it.row(it.id)),
    });
  }
  return pages;
}
