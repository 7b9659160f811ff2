/**
 * Asking the owner before a tool runs, on Discord: a message in the owner's DM naming the call,
 * with a Run button, a Deny button, "Always for <tool>" and, when the call has an exact form (a
 * shell command, a URL, a path), "Always this exact …". The turn waits for the owner's press, or
 * for the time limit (then the call is not run, and the message says so). Button presses reach
 * {@link DiscordApprovals.press} through the door's owner lock like every handler, so a stranger's
 * press changes nothing.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { discordText } from '@keel/outbound';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '@keel/tools';
import type {
  APIActionRowComponent,
  APIButtonComponent,
  ButtonInteraction,
  SendableChannels,
} from 'discord.js';

/** The answers a button can give. */
const BUTTON_ANSWERS = ['yes', 'no', 'always_tool', 'always_exact'] as const;
type ButtonAnswer = (typeof BUTTON_ANSWERS)[number];

/** The custom id of an approval button: `keel:tool:<request>:<answer>`. */
export function approvalButtonId(request: string, answer: ButtonAnswer): string {
  return `keel:tool:${request}:${answer}`;
}

/** Parses an approval button's custom id; null for anything else. */
export function parseApprovalButton(
  customId: string,
): { request: string; answer: ButtonAnswer } | null {
  const m = /^keel:tool:([0-9a-f]{16}):([a-z_]+)$/.exec(customId);
  const answer = m?.[2] as ButtonAnswer | undefined;
  if (!m || !answer || !BUTTON_ANSWERS.includes(answer)) return null;
  return { request: m[1]!, answer };
}

/** How the message says an answer once it is given. */
const ANSWERED: Record<ApprovalAnswer, string> = {
  yes: 'allowed once',
  no: 'denied: not run',
  always_tool: 'allowed, and always from now on for this tool (`keel tools` lists it)',
  always_exact: 'allowed, and always from now on for exactly this (`keel tools` lists it)',
  timeout: 'no answer in time: not run',
};

/** How the message says a request the turn gave up on (keel stopping): not the owner's no. */
const GAVE_UP = 'keel stopped before you answered: not run';

/** Text cut to `n` characters, screened as everything keel posts. */
function clip(s: string, n: number): string {
  const shown = discordText(s);
  return shown.length <= n ? shown : `${shown.slice(0, n - 1)}…`;
}

/** The question a request is put as. */
export function approvalText(request: ApprovalRequest): string {
  return `keel wants to ${clip(request.summary, 1500)} (tool \`${request.tool}\`, ${request.effect}). Allow it?`;
}

/** The buttons of one request. */
function approvalRow(
  id: string,
  request: ApprovalRequest,
): APIActionRowComponent<APIButtonComponent> {
  const button = (style: number, label: string, answer: ButtonAnswer): APIButtonComponent => ({
    type: 2,
    style,
    label: clip(label, 80),
    custom_id: approvalButtonId(id, answer),
  });
  return {
    type: 1,
    components: [
      button(3, 'Run it', 'yes'),
      button(4, 'Deny', 'no'),
      button(2, `Always for ${request.tool}`, 'always_tool'),
      ...(request.exact !== null ? [button(2, 'Always this exact one', 'always_exact')] : []),
    ],
  };
}

interface Waiting {
  settle: (answer: ApprovalAnswer) => void;
  text: string;
}

/** The approvals waiting for the owner's press in this door. */
export class DiscordApprovals {
  private readonly waiting = new Map<string, Waiting>();

  /**
   * How a turn on `channel` asks the owner: a message with the buttons; the answer is the owner's
   * press, `timeout` after `timeoutMs` (the message then says the call was not run), or `no` when
   * the turn is cancelled (the message then says keel stopped, not that the owner denied it).
   */
  approver(channel: SendableChannels, timeoutMs: number): Approver {
    return async (request, signal) => {
      const id = randomBytes(8).toString('hex');
      const text = approvalText(request);
      const message = await channel.send({
        content: text,
        components: [approvalRow(id, request)],
      });
      return new Promise<ApprovalAnswer>((resolve) => {
        const settle = (answer: ApprovalAnswer) => {
          if (!this.waiting.delete(id)) return;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        };
        const closeWith = (answer: ApprovalAnswer, said = ANSWERED[answer]) => {
          if (!this.waiting.has(id)) return;
          settle(answer);
          void message.edit({ content: `${text}\n→ ${said}`, components: [] }).catch(() => {});
        };
        const onAbort = () => closeWith('no', GAVE_UP);
        const timer = setTimeout(() => closeWith('timeout'), timeoutMs);
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting.set(id, { settle, text });
        if (signal.aborted) onAbort();
      });
    };
  }

  /**
   * The owner pressed a button (the door's owner lock has passed it). An approval button answers
   * its request and the message says how; one whose request is over says so.
   *
   * @returns false when it is not an approval button (another handler's).
   */
  async press(i: ButtonInteraction): Promise<boolean> {
    const parsed = parseApprovalButton(i.customId);
    if (!parsed) return false;
    const waiting = this.waiting.get(parsed.request);
    if (!waiting) {
      await i.update({
        content: clip(
          `${i.message.content}\n→ this request is over (answered, timed out, or keel restarted)`,
          2000,
        ),
        components: [],
      });
      return true;
    }
    waiting.settle(parsed.answer);
    await i.update({
      content: clip(`${waiting.text}\n→ ${ANSWERED[parsed.answer]}`, 2000),
      components: [],
    });
    return true;
  }

  /** How many requests wait for the owner. */
  get pending(): number {
    return this.waiting.size;
  }
}
