// Step 16 (tool calls): the tool log and the owner's grants, on a database migrated to exactly
// version 16: every call's row with its approval from a fixed list, one grant per tool, scope and
// exact key, and the rows written before the step kept.

import { describe, expect, it } from 'vitest';
import { T0 } from '../test-helpers.js';
import { migrate } from './index.js';
import { columns, databaseAt, expectStepAdds, insertFact, schemaNames } from './testkit.js';

const insertCall = `INSERT INTO tool_calls (turn_id, channel, tool, origin, effect, arguments, policy,
    approval, approved_by, started_at, duration_ms, exit, is_error, result_sha256, excerpt)
  VALUES (1, 'terminal', 'shell', 'builtin', 'run', '{"command":"ls"}', 'ask', ?, 'owner (terminal)',
    ?, 5, '0', 0, 'abc', 'a.txt')`;

describe('step 16: tool calls', () => {
  it('adds the tool log and the grants, and nothing else', () => {
    const before = databaseAt(15);
    const db = databaseAt(16);
    expect(schemaNames(db)).toEqual(
      new Set([
        ...schemaNames(before),
        'tool_calls',
        'tool_calls_turn',
        'tool_calls_tool',
        'tool_grants',
        'tool_grants_one',
      ]),
    );
    expect(columns(db, 'tool_calls')).toEqual([
      'id',
      'turn_id',
      'channel',
      'tool',
      'origin',
      'effect',
      'arguments',
      'policy',
      'approval',
      'approved_by',
      'started_at',
      'duration_ms',
      'exit',
      'is_error',
      'result_sha256',
      'excerpt',
    ]);
    expectStepAdds(16, ['tool_calls', 'tool_grants']);
  });

  it('takes each approval of the list and refuses any other word', () => {
    const db = databaseAt(16);
    const add = db.prepare(insertCall);
    for (const approval of [
      'allowed',
      'asked-yes',
      'asked-no',
      'always',
      'denied',
      'timeout',
      'no-approver',
    ]) {
      add.run(approval, T0);
    }
    expect(db.prepare('SELECT count(*) AS n FROM tool_calls').get()).toEqual({ n: 7 });
    expect(() => add.run('maybe', T0)).toThrow(/CHECK constraint/);
    expect(() => db.prepare(`UPDATE tool_calls SET effect = 'delete' WHERE id = 1`).run()).toThrow(
      /CHECK constraint/,
    );
  });

  it('keeps one grant per tool, scope and exact key; a whole-tool grant has no key', () => {
    const db = databaseAt(16);
    const grant = db.prepare(
      `INSERT INTO tool_grants (tool, scope, exact, exact_sha256, granted_at, channel)
         VALUES ('shell', ?, ?, ?, ?, 'terminal')`,
    );
    grant.run('exact', 'ls', 'h-ls', T0);
    grant.run('exact', 'pwd', 'h-pwd', T0); // control: another exact key is its own grant
    grant.run('tool', '', '', T0);
    expect(() => grant.run('exact', 'ls', 'h-ls', T0 + 1)).toThrow(/UNIQUE/);
    expect(() => grant.run('tool', '', '', T0 + 1)).toThrow(/UNIQUE/);
    expect(() => grant.run('tool', 'ls', 'h-ls', T0)).toThrow(/CHECK constraint/);
    expect(db.prepare('SELECT count(*) AS n FROM tool_grants').get()).toEqual({ n: 3 });
  });

  it('keeps the rows written before the step', () => {
    const db = databaseAt(15);
    const f = insertFact(db, { key: 'coffee', value: 'oat flat white' });
    expect(migrate(db, T0 + 16, 16)).toEqual([16]);
    expect(db.prepare('SELECT id, value FROM facts').all()).toEqual([
      { id: f, value: 'oat flat white' },
    ]);
  });
});
