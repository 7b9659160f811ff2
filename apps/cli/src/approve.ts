/**
 * Asking the owner before a tool runs, in the terminal: one question on the TTY naming the call,
 * answered `y` (run it), `n` (do not), `a` (always for this tool) or `e` (always exactly this: the
 * same command, URL or path). No answer within the time limit, Ctrl-C, or the end of input is no.
 * Piped input and `--json` never ask (a question would eat the owner's next line): the terminal
 * passes no approver there, and the turn's `ask` tools are denied with the reason the model reads.
 *
 * @module
 */
import { terminalText } from '@keel/host';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '@keel/tools';

/** Asks one question; null when it was cancelled (Ctrl-C, the end of input, `signal`). */
export type Question = (query: string, signal: AbortSignal) => Promise<string | null>;

/**
 * The question a request is put as, with the answers it takes. The call is the model's text (a
 * command, a URL, a path): it is screened as everything keel writes to a terminal
 * (`terminalText`), so an escape sequence or a bidi override in it is shown, never acted on, and
 * cannot redraw the question into something else.
 */
export function approvalQuestion(request: ApprovalRequest): string {
  const exact = request.exact !== null ? ', [e]xactly this always' : '';
  return terminalText(
    `keel wants to ${request.summary} (tool ${request.tool}, ${request.effect}). Allow? [y]es, [n]o, [a]lways for ${request.tool}${exact}: `,
  );
}

/**
 * The owner's answer from what they typed: `y`/`yes`, `a`/`always`, `e`/`exact` (only when the
 * request has an exact form); anything else is no.
 */
export function parseApproval(typed: string, request: ApprovalRequest): ApprovalAnswer {
  const t = typed.trim().toLowerCase();
  if (t === 'y' || t === 'yes') return 'yes';
  if (t === 'a' || t === 'always') return 'always_tool';
  if ((t === 'e' || t === 'exact') && request.exact !== null) return 'always_exact';
  return 'no';
}

/** What the terminal says once the owner answered. */
export function approvalOutcome(answer: ApprovalAnswer, request: ApprovalRequest): string {
  switch (answer) {
    case 'yes':
      return `(allowed once: ${request.tool})`;
    case 'always_tool':
      return `(allowed, and always from now on for ${request.tool}; keel tools lists and revokes it)`;
    case 'always_exact':
      return '(allowed, and always from now on for exactly this; keel tools lists and revokes it)';
    case 'timeout':
      return '(no answer in time: not run)';
    default:
      return '(denied: not run)';
  }
}

/**
 * The terminal's {@link Approver}: asks with `question`, gives up after `timeoutMs` (`timeout`),
 * and says the outcome with `write`.
 *
 * @param timeoutMs - how long the owner has to answer, ms.
 */
export function terminalApprover(
  question: Question,
  write: (line: string) => void,
  timeoutMs: number,
): Approver {
  return async (request, signal) => {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const typed = await question(`\n${approvalQuestion(request)}`, controller.signal);
      const answer: ApprovalAnswer =
        typed === null ? (timedOut ? 'timeout' : 'no') : parseApproval(typed, request);
      write(`${timedOut ? '\n' : ''}${approvalOutcome(answer, request)}`);
      return answer;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  };
}
