import { describe, expect, it } from 'vitest';
import { TOOL_NAME } from '../contract.js';
import { mcpEffect, mcpResultText, mcpTool, mcpToolName } from './tool.js';

describe('MCP tool names', () => {
  it('keeps a name that fits, and makes every other character _', () => {
    expect(mcpToolName('dict', 'lookup_word', new Set())).toBe('dict__lookup_word');
    expect(mcpToolName('files', 'read.file/v2 (fast)', new Set())).toBe(
      'files__read_file_v2__fast_',
    );
  });

  it('cuts a long name to 64 characters and makes a taken one unique', () => {
    const long = mcpToolName('server', 'x'.repeat(100), new Set());
    expect(long).toHaveLength(64);
    expect(long).toMatch(TOOL_NAME);
    const taken = new Set([long]);
    const second = mcpToolName('server', `${'x'.repeat(100)}y`, taken);
    expect(second).toHaveLength(64);
    expect(second.endsWith('_2')).toBe(true);
    taken.add(second);
    expect(mcpToolName('server', 'x'.repeat(100), taken).endsWith('_3')).toBe(true);
    // Two names that differ only in characters made _.
    expect(mcpToolName('a', 'b.c', new Set(['a__b_c']))).toBe('a__b_c_2');
  });
});

describe('MCP tool effects (the server claims, keel sorts)', () => {
  it('is read only for a read-only tool that says it is closed-world', () => {
    expect(mcpEffect({ readOnlyHint: true, openWorldHint: false }, 'stdio')).toBe('read');
    expect(mcpEffect({ readOnlyHint: true, openWorldHint: false }, 'http')).toBe('read');
    // MCP's default for openWorldHint is true.
    expect(mcpEffect({ readOnlyHint: true }, 'stdio')).toBe('network');
    expect(mcpEffect(undefined, 'stdio')).toBe('network');
    expect(mcpEffect({ readOnlyHint: false, openWorldHint: false }, 'stdio')).toBe('run');
    expect(mcpEffect({ openWorldHint: false }, 'http')).toBe('network');
  });

  it('asks by default even for a read-only tool', () => {
    const tool = mcpTool(
      {
        name: 'lookup',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      'dict__lookup',
      { server: 'dict', transport: 'stdio', call: async () => ({ content: '', isError: false }) },
    );
    expect(tool.effect).toBe('read');
    expect(tool.defaultPolicy).toBe('ask');
    expect(tool.summary({})).toBe('lookup on MCP server "dict"');
    // Every argument is shown: the owner approves what they read.
    expect(tool.summary({ q: 'y'.repeat(500) })).toBe(
      `lookup on MCP server "dict" with {"q":"${'y'.repeat(500)}"}`,
    );
  });
});

describe('MCP results as text', () => {
  it('joins text, names the rest with type and size, and keeps isError', () => {
    const result = mcpResultText(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          {
            type: 'resource',
            resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' },
          },
          { type: 'resource_link', uri: 'file:///b.pdf', name: 'b', size: 2048 },
          { type: 'text', text: 'last' },
        ],
        isError: true,
      },
      1000,
    );
    expect(result).toEqual({
      content: [
        'first',
        '[audio audio/wav, 3 bytes, not shown]',
        '[resource file:///a.txt text/plain, 5 bytes, not shown]',
        '[resource link file:///b.pdf, 2.0 KB]',
        'last',
      ].join('\n'),
      isError: true,
      exit: 'error',
    });
  });

  it('gives structured content as JSON only when no block gives text', () => {
    expect(mcpResultText({ content: [], structuredContent: { n: 1 } }, 100).content).toBe(
      '{"n":1}',
    );
    expect(
      mcpResultText({ content: [{ type: 'text', text: '1' }], structuredContent: { n: 1 } }, 100)
        .content,
    ).toBe('1');
    expect(mcpResultText({ content: [] }, 100)).toEqual({
      content: '(the tool returned nothing)',
      isError: false,
      exit: 'ok',
    });
  });

  it('cuts a long result and says how much was cut', () => {
    const text = mcpResultText({ content: [{ type: 'text', text: 'z'.repeat(150) }] }, 100).content;
    expect(text).toBe(`${'z'.repeat(100)}\n… (cut: 50 more characters)`);
    expect(mcpResultText({ content: [{ type: 'text', text: 'z'.repeat(100) }] }, 100).content).toBe(
      'z'.repeat(100),
    );
  });
});
