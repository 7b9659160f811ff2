// The tool log and the grants through the real store: a call's credentials are withheld from its
// arguments and excerpt while the rest is kept; the digest is of the whole result; grants match
// their tool or their exact key only, and a purge reaches every column that can hold the owner's
// words.

import { sha256 } from '@keel/language';
import { describe, expect, it } from 'vitest';
import { dbOf } from '../internal.js';
import { PURGED } from '../redaction.js';
import { openTempStore } from '../test-helpers.js';
import { TOOL_EXCERPT_CHARS, type ToolCallInput } from './tool-calls.js';

const TOKEN = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';

function call(over: Partial<ToolCallInput> = {}): ToolCallInput {
  return {
    turnId: 7,
    channel: 'terminal',
    tool: 'shell',
    origin: 'builtin',
    effect: 'run',
    arguments: { command: 'ls' },
    policy: 'ask',
    approval: 'asked-yes',
    approvedBy: 'owner (terminal)',
    startedAt: 1_000,
    durationMs: 12.4,
    exit: '0',
    isError: false,
    result: 'a.txt',
    ...over,
  };
}

describe('the tool log', () => {
  it('withholds a credential in the arguments and keeps the rest of them', () => {
    const { store } = openTempStore();
    const command = `curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com/weather?city=Lisbon`;
    store.toolCalls.record(call({ arguments: { command, note: 'the Lisbon weather' } }));
    const [row] = store.toolCalls.list();
    expect(row!.arguments).not.toContain(TOKEN);
    expect(row!.arguments).toContain('[secret withheld]');
    // control: the non-secret arguments are kept as they were
    expect(JSON.parse(row!.arguments)).toEqual({
      command: command.replace(TOKEN, '[secret withheld]'),
      note: 'the Lisbon weather',
    });
    expect(row).toMatchObject({ turn_id: 7, approval: 'asked-yes', duration_ms: 12, is_error: 0 });
  });

  it('keeps a digest of the whole result and a capped excerpt without its credentials', () => {
    const { store } = openTempStore();
    const result = `token: ${TOKEN}\n${'x'.repeat(5000)}`;
    store.toolCalls.record(call({ result }));
    store.toolCalls.record(call({ result: null, approval: 'denied', exit: 'denied' }));
    const [denied, ran] = store.toolCalls.list();
    expect(ran!.result_sha256).toBe(sha256(result));
    expect(ran!.excerpt!.length).toBeLessThanOrEqual(TOOL_EXCERPT_CHARS);
    expect(ran!.excerpt).not.toContain(TOKEN);
    expect(ran!.excerpt).toMatch(/^token: \[secret withheld\]\nxxx/);
    expect(denied).toMatchObject({ result_sha256: null, excerpt: null, approval: 'denied' });
    expect(store.toolCalls.count()).toBe(2);
    expect(store.toolCalls.list({ turnId: 8 })).toEqual([]);
    expect(store.toolCalls.list({ turnId: 7 })).toHaveLength(2);
  });
});

describe('the grants', () => {
  it('match the whole tool, or the exact key only; revoked, they match nothing', () => {
    const { store } = openTempStore();
    expect(
      store.toolGrants.add({
        tool: 'shell',
        scope: 'exact',
        exact: 'ls',
        channel: 'terminal',
        now: 1,
      }),
    ).toBe(true);
    expect(
      store.toolGrants.add({
        tool: 'shell',
        scope: 'exact',
        exact: 'ls',
        channel: 'discord',
        now: 2,
      }),
    ).toBe(false);
    expect(store.toolGrants.matches('shell', 'ls')).toMatchObject({ scope: 'exact', exact: 'ls' });
    expect(store.toolGrants.matches('shell', 'rm -rf ~')).toBeNull();
    expect(store.toolGrants.matches('shell', null)).toBeNull();
    expect(store.toolGrants.matches('fetch_url', 'ls')).toBeNull();
    store.toolGrants.add({ tool: 'fetch_url', scope: 'tool', channel: 'terminal', now: 3 });
    expect(store.toolGrants.matches('fetch_url', 'https://example.com')).toMatchObject({
      scope: 'tool',
      exact: '',
    });
    expect(store.toolGrants.list().map((g) => g.tool)).toEqual(['shell', 'fetch_url']);
    expect(store.toolGrants.revoke({ tool: 'shell' })).toBe(1);
    expect(store.toolGrants.matches('shell', 'ls')).toBeNull();
    expect(store.toolGrants.matches('fetch_url', null)).not.toBeNull();
  });

  it('an exact key with a credential is shown withheld and matches only itself', () => {
    const { store } = openTempStore();
    const exact = `curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com`;
    store.toolGrants.add({ tool: 'shell', scope: 'exact', exact, channel: 'terminal', now: 1 });
    expect(store.toolGrants.list()[0]!.exact).not.toContain(TOKEN);
    expect(store.toolGrants.matches('shell', exact)).not.toBeNull();
    const other = exact.replace(TOKEN, 'ghp_000000000000000000000000000000000000');
    expect(store.toolGrants.matches('shell', other)).toBeNull();
  });

  it('a purge erases the mention from the log and the grants, and keeps a control', () => {
    const { store } = openTempStore();
    store.toolCalls.record(
      call({ arguments: { command: 'grep Ibarrola contacts.txt' }, result: 'Ibarrola, Bilbao' }),
    );
    store.toolCalls.record(call({ arguments: { command: 'grep Montserrat contacts.txt' } }));
    store.toolGrants.add({
      tool: 'shell',
      scope: 'exact',
      exact: 'grep Ibarrola contacts.txt',
      channel: 'terminal',
      now: 1,
    });
    const receipt = store.purgeMentions('Ibarrola', { actor: 'owner' });
    expect(receipt.reached.tool_calls?.count).toBe(1);
    expect(receipt.reached.tool_grants?.count).toBe(1);
    const [control, purged] = store.toolCalls.list();
    expect(JSON.parse(purged!.arguments)).toEqual({ command: `grep ${PURGED} contacts.txt` });
    expect(purged!.excerpt).toBe(`${PURGED}, Bilbao`);
    expect(JSON.parse(control!.arguments)).toEqual({ command: 'grep Montserrat contacts.txt' });
    expect(store.toolGrants.list()[0]!.exact).toBe(`grep ${PURGED} contacts.txt`);
  });
  it('a purge leaves no digest of the value: the call it reached and the grant it reached (control: the others keep theirs)', () => {
    const { store } = openTempStore();
    const held = 'grep Ibarrola contacts.txt';
    store.toolCalls.record(call({ arguments: { command: held }, result: 'Ibarrola, Bilbao' }));
    store.toolCalls.record(call({ arguments: { command: 'ls' }, result: 'Ibarrola.txt' }));
    store.toolCalls.record(call({ arguments: { command: 'ls docs' }, result: 'plan.md' }));
    store.toolGrants.add({
      tool: 'shell',
      scope: 'exact',
      exact: held,
      channel: 'terminal',
      now: 1,
    });
    store.toolGrants.add({
      tool: 'shell',
      scope: 'exact',
      exact: 'ls docs',
      channel: 'terminal',
      now: 2,
    });
    expect(store.toolGrants.matches('shell', held)).not.toBeNull();
    const hashes = () => {
      const digests = dbOf(store)
        .prepare(
          'SELECT result_sha256 AS h FROM tool_calls UNION ALL SELECT exact_sha256 FROM tool_grants',
        )
        .all() as { h: string | null }[];
      return digests.map((d) => d.h);
    };
    const ofValue = [sha256('Ibarrola, Bilbao'), sha256('Ibarrola.txt'), sha256(held)];
    expect(hashes()).toEqual(expect.arrayContaining(ofValue));

    store.purgeMentions('Ibarrola', { actor: 'owner' });
    for (const h of ofValue) expect(hashes()).not.toContain(h);
    const [control, inResult, inArguments] = store.toolCalls.list();
    expect([inArguments!.result_sha256, inResult!.result_sha256]).toEqual([null, null]);
    // The grant whose key held the value matches nothing now, not even the call it allowed.
    expect(store.toolGrants.matches('shell', held)).toBeNull();
    // the controls: an unrelated call and an unrelated grant keep their digests
    expect(control!.result_sha256).toBe(sha256('plan.md'));
    expect(hashes()).toContain(sha256('ls docs'));
    expect(store.toolGrants.matches('shell', 'ls docs')).toMatchObject({ exact: 'ls docs' });
  });
});
