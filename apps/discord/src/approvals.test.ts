// What the approval message says once a request is over: the owner's press, the time limit, or
// keel giving up on the turn (never worded as the owner's no).
import type { ApprovalRequest } from '@keel/tools';
import type { ButtonInteraction, SendableChannels } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { DiscordApprovals, parseApprovalButton } from './approvals.js';

const request: ApprovalRequest = {
  tool: 'shell',
  effect: 'run',
  summary: 'run `echo hi > out.txt` in ~/keel/workspace',
  exact: 'echo hi > out.txt',
};

/** A channel that keeps what was sent and each edit of it. */
function channel() {
  const sent: { content: string; components: { components: { custom_id: string }[] }[] }[] = [];
  const edits: { content: string; components: unknown[] }[] = [];
  const fake = {
    send: async (message: (typeof sent)[number]) => {
      sent.push(message);
      return {
        edit: async (edit: (typeof edits)[number]) => {
          edits.push(edit);
        },
      };
    },
  };
  return { sent, edits, channel: fake as unknown as SendableChannels };
}

/** The owner pressing the button `customId`; its replies go to `updates`. */
function press(customId: string, updates: unknown[]): ButtonInteraction {
  return {
    customId,
    message: { content: '(as shown)' },
    update: async (u: unknown) => {
      updates.push(u);
    },
  } as unknown as ButtonInteraction;
}

describe('DiscordApprovals', () => {
  it('a turn given up on says keel stopped, not denied; a Deny (control) says denied', async () => {
    const approvals = new DiscordApprovals();
    const a = channel();
    const controller = new AbortController();
    const pending = approvals.approver(a.channel, 60_000)(request, controller.signal);
    await expect.poll(() => a.sent.length).toBe(1);
    controller.abort();
    expect(await pending).toBe('no');
    await expect.poll(() => a.edits.length).toBe(1);
    expect(a.edits[0]!.content).toMatch(/Allow it\?\n→ keel stopped before you answered: not run$/);
    expect(a.edits[0]!.content).not.toContain('denied');
    expect(a.edits[0]!.components).toEqual([]);

    const b = channel();
    const asked = approvals.approver(b.channel, 60_000)(request, new AbortController().signal);
    await expect.poll(() => b.sent.length).toBe(1);
    const no = b.sent[0]!.components[0]!.components.find(
      (c) => parseApprovalButton(c.custom_id)?.answer === 'no',
    )!;
    const updates: { content: string }[] = [];
    expect(await approvals.press(press(no.custom_id, updates))).toBe(true);
    expect(await asked).toBe('no');
    expect(updates[0]!.content).toMatch(/→ denied: not run$/);
    expect(approvals.pending).toBe(0);
  });

  it('no press in time: timeout, and the message says so', async () => {
    const approvals = new DiscordApprovals();
    const a = channel();
    const answer = await approvals.approver(a.channel, 20)(request, new AbortController().signal);
    expect(answer).toBe('timeout');
    await expect.poll(() => a.edits.length).toBe(1);
    expect(a.edits[0]!.content).toMatch(/→ no answer in time: not run$/);
  });
});
