/**
 * The review queue rendered for Discord: pages of at most five items, each with a Confirm and a
 * Reject button whose custom id names the fact. A click goes through the same store functions the
 * terminal's /confirm and /reject use.
 *
 * @module
 */
import type { Fact, ReviewQueue } from '@keel/memory';
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

/** A review button's action. */
export interface ReviewAction {
  action: 'confirm' | 'reject';
  factId: number;
}

/** The custom id of a review button. */
export function reviewButtonId(action: ReviewAction['action'], factId: number): string {
  return `keel:${action}:${factId}`;
}

/** Parses a review button's custom id; null for anything else. */
export function parseReviewButton(customId: string): ReviewAction | null {
  const m = /^keel:(confirm|reject):(\d{1,15})$/.exec(customId);
  if (!m) return null;
  return { action: m[1] as ReviewAction['action'], factId: Number(m[2]) };
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

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

/** Renders the review queue as Discord messages with buttons. */
export function renderReview(queue: ReviewQueue): ReviewPage[] {
  const items: { fact: Fact; lines: string[] }[] = [
    ...queue.pending.map((p) => ({
      fact: p.fact,
      lines: [
        `pending ${clip(formatFactLine(p.fact), 180)}`,
        ...(p.current ? [`   contradicts ${clip(formatFactLine(p.current), 170)}`] : []),
      ],
    })),
    ...queue.weak.map((f) => ({
      fact: f,
      lines: [`weak (< ${queue.threshold}) ${clip(formatFactLine(f), 170)}`],
    })),
    ...queue.stale
      .filter((f) => !queue.weak.some((w) => w.id === f.id))
      .map((f) => ({
        fact: f,
        lines: [`stale (no evidence for 180 days) ${clip(formatFactLine(f), 150)}`],
      })),
  ];
  if (items.length === 0) return [{ content: 'Nothing to review.', components: [] }];
  const pages: ReviewPage[] = [];
  const shown = items.slice(0, REVIEW_PAGE_ITEMS * REVIEW_MAX_PAGES);
  for (let i = 0; i < shown.length; i += REVIEW_PAGE_ITEMS) {
    const page = shown.slice(i, i + REVIEW_PAGE_ITEMS);
    const header =
      i === 0
        ? `To review: ${queue.pending.length} pending conflict(s), ${queue.weak.length} weak belief(s), ${queue.stale.length} stale. Confirm makes a belief yours (1.0); reject drops it for good.`
        : 'More to review:';
    const rest = items.length - shown.length;
    const footer =
      i + REVIEW_PAGE_ITEMS >= shown.length && rest > 0
        ? [`…and ${rest} more: say "review" again after these.`]
        : [];
    pages.push({
      content: [header, ...page.flatMap((it) => it.lines), ...footer].join('\n'),
      components: page.map((it) => row(it.fact.id)),
    });
  }
  return pages;
}
