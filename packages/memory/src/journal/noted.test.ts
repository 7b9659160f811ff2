// Every write to a journaled table goes through a function that notes the row first, so the next
// state entry records it and `keel verify` can explain it. A transition that forgets to note its
// row leaves a change replay calls a break (a purge that cut a value out of another slot once did).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The modules that change journaled rows in place. */
const WRITERS = ['../facts/transitions.ts', '../facts/tombstones.ts'];
/** Changes kept out of the journal on purpose: recall's access count is not in a row's digest. */
const UNJOURNALED = new Set(['recordAccess']);

function updatingFunctions(source: string): { name: string; notes: boolean }[] {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split(/\n(?=(?:export )?function )/)
    .filter((chunk) => /UPDATE (facts|fact_evidence|tombstones)\b/.test(chunk))
    .map((chunk) => ({
      name: /^(?:export )?function (\w+)/.exec(chunk)?.[1] ?? '(module top)',
      notes: /\bnote(Change|Insert)\(/.test(chunk),
    }));
}

describe('journaled writes', () => {
  it('every function that updates a journaled table notes the row first', () => {
    const found = WRITERS.flatMap((rel) =>
      updatingFunctions(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')),
    );
    // The scan sees the writers (a control: it would pass on nothing otherwise).
    expect(found.map((f) => f.name)).toEqual(
      expect.arrayContaining(['supersede', 'erase', 'scrubValue', 'recordAccess', 'lift']),
    );
    const unnoted = found.filter((f) => !f.notes && !UNJOURNALED.has(f.name)).map((f) => f.name);
    expect(unnoted).toEqual([]);
  });
});
