// The lines under a reply, the same at every door: their order, and nothing when nothing happened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TRUNCATED_NOTE, type TurnWrite } from './turn.js';
import { underReply } from './under-reply.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-under-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const quiet = { writes: [], withheld: [], captureError: null, truncated: false };

describe('underReply', () => {
  it('says the cut, what was kept, the withheld kind, a capped confidence and a failed capture, in that order', () => {
    const episodeId = store.addEpisode({
      kind: 'conversation',
      channel: 'test',
      role: 'owner',
      text: 'I think I like tea',
    }).id;
    const kept = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'tea',
      source: 'inferred',
      confidence: 0.95,
      episodeId,
    });
    const capped: TurnWrite = {
      ...kept,
      confidenceCapped: { asked: 0.95, stored: 0.7, why: 'a first inferred sighting' },
    } as TurnWrite;
    const lines = underReply(store, {
      writes: [capped],
      withheld: ['password'],
      captureError: {
        code: 'TOO_LARGE',
        message: 'too long',
        fix: 'Say it in a shorter sentence.',
      },
      truncated: true,
    });
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(TRUNCATED_NOTE);
    expect(lines[1]).toMatch(/^Kept: tea — tea \[f\d+; inferred/);
    expect(lines[2]).toMatch(/^keel does not keep passwords/);
    expect(lines[3]).toBe('(confidence capped: asked 0.95, stored 0.7: a first inferred sighting)');
    expect(lines[4]).toMatch(/could not keep it as a belief: TOO_LARGE/);
    // A door that said the cut as the reply streamed does not say it again; the shell's commands.
    const shell = underReply(
      store,
      { ...quiet, writes: [kept], truncated: true },
      {
        style: 'shell',
        truncated: false,
      },
    );
    expect(shell).toEqual([
      expect.stringContaining('(keel forget '),
      expect.stringMatching(/^\(confidence capped: asked 0\.95, stored 0\.7/),
    ]);
  });

  it('is empty for a turn that kept, withheld and cut nothing (the control above says each)', () => {
    expect(underReply(store, quiet)).toEqual([]);
  });
});

describe('what the turn did without asking', () => {
  it('names each action taken by a policy or a standing answer, not the asked, read-only or memory ones', () => {
    const call = (tool: string, over: Record<string, unknown>) =>
      store.toolCalls.record({
        turnId: 7,
        channel: 'terminal',
        tool,
        origin: 'builtin',
        effect: 'run',
        arguments: { command: `${tool} call` },
        policy: 'ask',
        approval: 'asked-yes',
        approvedBy: 'owner (terminal)',
        startedAt: store.now(),
        durationMs: 5,
        exit: '0',
        isError: false,
        result: 'ok',
        ...over,
      });
    call('shell', { approval: 'always', approvedBy: 'grant' });
    call('fetch_url', {
      effect: 'network',
      policy: 'allow',
      approval: 'allowed',
      approvedBy: 'policy',
    });
    // the controls: asked, read-only, memory, and another turn's
    call('write_file', { effect: 'write' });
    call('read_file', {
      effect: 'read',
      policy: 'allow',
      approval: 'allowed',
      approvedBy: 'policy',
    });
    call('remember', {
      origin: 'memory',
      effect: 'write',
      approval: 'allowed',
      approvedBy: 'policy',
    });
    call('shell', { turnId: 8, approval: 'always', approvedBy: 'grant' });
    expect(underReply(store, { ...quiet, turnId: 7 })).toEqual([
      '(ran without asking, by your standing answer; keel tools revoke ends it: shell {"command":"shell call"})',
      '(ran without asking, your policy allows it: fetch_url {"command":"fetch_url call"})',
    ]);
    expect(underReply(store, { ...quiet, turnId: 9 })).toEqual([]);
  });
});
