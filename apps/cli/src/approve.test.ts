// The terminal's approval question: what each answer means, and that silence, Ctrl-C and a
// cancelled turn all mean no.
import type { ApprovalRequest } from '@keel/tools';
import { describe, expect, it } from 'vitest';
import { approvalQuestion, parseApproval, terminalApprover } from './approve.js';

const shell: ApprovalRequest = {
  tool: 'shell',
  effect: 'run',
  summary: 'run `echo hi > out.txt` in /tmp/ws',
  exact: 'echo hi > out.txt',
};
const listing: ApprovalRequest = { tool: 'mcp_x', effect: 'run', summary: 'x', exact: null };

describe('the terminal approval question', () => {
  it('offers "exactly this" only for a call with an exact form', () => {
    expect(approvalQuestion(shell)).toContain('[e]xactly this always');
    expect(approvalQuestion(shell)).toContain('echo hi > out.txt');
    expect(approvalQuestion(listing)).not.toContain('[e]xactly');
  });

  it('shows control characters in the call instead of acting on them', () => {
    const hidden: ApprovalRequest = {
      ...shell,
      summary: 'run `rm -rf ~\r\u001b[2Kread notes.txt\u202e` in /tmp/ws',
    };
    const q = approvalQuestion(hidden);
    expect(q).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(q).toContain('rm -rf ~');
    expect(q).toContain('␛[2K');
    // the control: a plain command is shown as it is
    expect(approvalQuestion(shell)).toContain('run `echo hi > out.txt` in /tmp/ws');
  });

  it('reads y, a and e; anything else is no', () => {
    expect(parseApproval(' Y ', shell)).toBe('yes');
    expect(parseApproval('yes', shell)).toBe('yes');
    expect(parseApproval('a', shell)).toBe('always_tool');
    expect(parseApproval('e', shell)).toBe('always_exact');
    // "exactly" cannot be granted for a call without an exact form
    expect(parseApproval('e', listing)).toBe('no');
    expect(parseApproval('', shell)).toBe('no');
    expect(parseApproval('sure', shell)).toBe('no');
  });

  it('takes the typed answer, says the outcome', async () => {
    const lines: string[] = [];
    const approve = terminalApprover(
      async () => 'e',
      (l) => lines.push(l),
      5_000,
    );
    expect(await approve(shell, new AbortController().signal)).toBe('always_exact');
    expect(lines.join('\n')).toContain('exactly this');
  });

  it('no answer in time is timeout, a cancelled turn is no', async () => {
    const never = (_q: string, signal: AbortSignal) =>
      new Promise<string | null>((resolve) =>
        signal.addEventListener('abort', () => resolve(null), { once: true }),
      );
    const lines: string[] = [];
    expect(
      await terminalApprover(never, (l) => lines.push(l), 50)(shell, new AbortController().signal),
    ).toBe('timeout');
    expect(lines.at(-1)).toContain('no answer in time');
    const turn = new AbortController();
    const asked = terminalApprover(never, (l) => lines.push(l), 60_000)(shell, turn.signal);
    turn.abort();
    expect(await asked).toBe('no');
    expect(lines.at(-1)).toContain('denied');
  });
});
