import { KeelError } from '@keel/errors';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import {
  budgetToolResults,
  CLOSING_RESERVE_TOKENS,
  fitToolResult,
  LEFT_OUT_NOTE,
  requestBudget,
  requestTokens,
} from './budget.js';
import { messageTokens } from './session.js';

/** A recall-shaped result: a header line and `n` fact lines of about `words` words each. */
function recallResult(n: number, words: number): string {
  const lines = ['recall: lexical'];
  for (let i = 1; i <= n; i++) {
    lines.push(
      `[f${i}] note/n${i}: ${'lantern harbour copper '.repeat(words / 3).trim()} (conf 1.00, seen 1x, owner_stated, just now)`,
    );
  }
  return lines.join('\n');
}

describe('requestBudget', () => {
  it('keeps the margin and one reply out of the window; open leaves room to close the turn', () => {
    const b = requestBudget(200_000, 8192);
    expect(b).toEqual({
      contextTokens: 200_000,
      maxTokens: 8192,
      input: 200_000 * 0.7 - 8192,
      open: 200_000 * 0.7 - 8192 - 8192 - CLOSING_RESERVE_TOKENS,
    });
    // A provider that counts 1.4 times keel's tokens still fits the input and a full reply.
    expect(b.input * 1.4 + b.maxTokens).toBeLessThan(200_000);
    // What the provider taught (it counts half again as much) shrinks the input.
    expect(requestBudget(200_000, 8192, 0.3, 1.5).input).toBe(Math.floor(140_000 / 1.5) - 8192);
  });

  it('a window too small for max_tokens is refused, naming both settings', () => {
    let error: unknown;
    try {
      requestBudget(4096, 4096);
    } catch (e) {
      error = e;
    }
    expect(KeelError.isInstance(error) && error.code).toBe('INVALID_INPUT');
    expect((error as Error).message).toMatch(/KEEL_CONTEXT_TOKENS.*KEEL_MAX_TOKENS/);
  });
});

describe('requestTokens', () => {
  it('counts system parts, tool specs and messages as the session counts them', () => {
    const messages = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'hello there' }] },
    ];
    const tools = [{ name: 'recall', description: 'Search.', inputSchema: { type: 'object' } }];
    expect(requestTokens({ system: [{ text: 'You are keel.' }], tools, messages })).toBe(
      countTokens('You are keel.') +
        4 +
        countTokens(JSON.stringify(tools)) +
        messageTokens(messages[0]!.content),
    );
  });
});

describe('fitToolResult', () => {
  it('a result within its cap goes whole', () => {
    const content = recallResult(3, 30);
    expect(fitToolResult(content, 4000)).toEqual({
      content,
      cutLines: 0,
      tokens: countTokens(content),
    });
  });

  it('cuts at whole lines and names what was left out', () => {
    const content = recallResult(40, 300);
    const fitted = fitToolResult(content, 4000);
    expect(countTokens(fitted.content)).toBeLessThanOrEqual(4000);
    const lines = fitted.content.split('\n');
    const original = new Set(content.split('\n'));
    // Every kept line is a whole line of the result, in order; the note is last.
    for (const line of lines.slice(0, -1)) expect(original.has(line)).toBe(true);
    const kept = lines.length - 1;
    expect(kept).toBeGreaterThan(1);
    expect(fitted.cutLines).toBe(41 - kept);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^\\[keel: ${41 - kept} of 41 lines left out \\(f${kept}, f${kept + 1}, .*, …\\): the result passed its budget of 4,000 tokens\\.`,
      ),
    );
  });

  it('a single line larger than the cap is left out whole, never cut mid-line', () => {
    const content = `{"status":"ok","text":"${'word '.repeat(3000)}"}`;
    const fitted = fitToolResult(content, 500);
    expect(fitted.content).toMatch(/^\[keel: 1 of 1 lines left out: the result passed/);
    expect(fitted.content).not.toContain('word word');
  });
});

describe('budgetToolResults', () => {
  it('caps each result and the round, in call order; calls past the round get a note, every call a result', () => {
    const results = [1, 2, 3, 4, 5].map((i) => ({
      toolUseId: `t${i}`,
      content: recallResult(30, 300),
      isError: false,
    }));
    const round = budgetToolResults(results, 4000, 9000);
    expect(round.blocks.map((b) => b.tool_use_id)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(round.tokens).toBeLessThanOrEqual(9000 + 100);
    expect(round.blocks.map((b) => countTokens(b.content) <= 4000)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(round.whole).toEqual([false, false, false, false, false]);
    // Past the round's budget a call gets a note, never half a line.
    const late = round.blocks.at(-1)!.content;
    expect(late.match(/^\[f\d+\]/gm)).toBeNull();
    expect(late).toContain('left out');
    expect(round.rawTokens).toBeGreaterThan(5 * 30 * 300);
  });

  it('a call that finds no room at all gets the short note', () => {
    const round = budgetToolResults(
      [
        { toolUseId: 'a', content: recallResult(30, 300), isError: false },
        { toolUseId: 'b', content: 'nothing found', isError: false },
      ],
      4000,
      100,
    );
    // A result that still fits goes whole.
    expect(round.blocks.map((b) => b.content)).toEqual([LEFT_OUT_NOTE, 'nothing found']);
    expect(round.whole).toEqual([false, true]);
  });

  it('small results go whole and keep their error flag', () => {
    const round = budgetToolResults(
      [
        { toolUseId: 'a', content: 'nothing found', isError: false },
        { toolUseId: 'b', content: 'invalid input', isError: true },
      ],
      4000,
      12_000,
    );
    expect(round.blocks).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'nothing found' },
      { type: 'tool_result', tool_use_id: 'b', content: 'invalid input', is_error: true },
    ]);
    expect(round.whole).toEqual([true, true]);
  });
});
