/**
 * One MCP tool as a keel {@link Tool}: its name, effect, policy names and summary, and what its
 * result becomes for the model.
 *
 * @module
 */

import { flagStoredText } from '@keel/prompt';
import type {
  CallToolResult,
  ContentBlock,
  Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Effect, Tool, ToolResult } from '../contract.js';

export type { McpToolDefinition };

/** The input every MCP tool takes as keel parses it: any JSON object (the server validates it). */
export type McpToolInput = Record<string, unknown>;

/** The longest description the model reads of an MCP tool, in characters. */
export const MAX_DESCRIPTION_CHARS = 2000;

/** How a tool reaches its server: the hub's connection to it. */
export interface McpToolCaller {
  /** The server's name in the owner's list. */
  server: string;
  transport: 'stdio' | 'http';
  /**
   * The longest one call may take, ms, a connect counted (the hub's `connectTimeoutMs` plus
   * `callTimeoutMs`): the tool's `timeoutMs`.
   */
  timeoutMs?: number;
  /** Calls `tool` (the server's own name) with `args`; never throws. */
  call: (tool: string, args: McpToolInput, signal: AbortSignal) => Promise<ToolResult>;
}

/**
 * The effect of an MCP tool, from its annotations. Annotations are the server's own claim about
 * its tool, not something keel can check: so every MCP tool asks the owner by default whatever
 * they say ({@link mcpTool}), and the effect only sorts the tool for the owner.
 *
 * - `read`: `readOnlyHint: true` and `openWorldHint: false` (MCP's default for `openWorldHint` is
 *   `true`, so a tool that does not say it is closed-world is taken as reaching outside);
 * - `network`: the tool reaches an open world, or its server is reached over HTTP;
 * - `run`: anything else (the server runs code on this machine to answer).
 */
export function mcpEffect(
  annotations: McpToolDefinition['annotations'],
  transport: McpToolCaller['transport'],
): Effect {
  const openWorld = annotations?.openWorldHint !== false;
  if (annotations?.readOnlyHint === true && !openWorld) return 'read';
  if (openWorld || transport === 'http') return 'network';
  return 'run';
}

/**
 * `<server>__<tool>` with every character outside `[a-zA-Z0-9_-]` made `_`, cut to 64 characters,
 * and given a `_2`, `_3`… ending when `taken` already holds it (two tools whose names differ only
 * in such characters, or a cut).
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const base = `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const name = base.slice(0, 64 - suffix.length) + suffix;
    if (!taken.has(name)) return name;
  }
}

/**
 * The keel tool for `definition`, a tool of `caller.server`, offered as `name`
 * ({@link mcpToolName}). Its `defaultPolicy` is `ask` whatever its annotations say (an owner who
 * trusts a server allows it with a policy on `mcp:<server>`); its policy names are
 * `mcp:<server>/<tool>` then `mcp:<server>`, and its grants are kept under `mcp:<server>/<tool>`
 * (never under `name`, which another server's tool could share); its `timeoutMs` is the caller's.
 */
export function mcpTool(
  definition: McpToolDefinition,
  name: string,
  caller: McpToolCaller,
): Tool<McpToolInput> {
  const { server } = caller;
  const about = definition.description?.trim() || definition.title || definition.name;
  // The server's words: a line that reads like instructions is flagged, and none can open a fence.
  const description = flagStoredText(`From the MCP server "${server}": ${about}`);
  return {
    name,
    description:
      description.length > MAX_DESCRIPTION_CHARS
        ? `${description.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`
        : description,
    input: z.record(z.string(), z.unknown()),
    inputSchema: definition.inputSchema as Record<string, unknown>,
    effect: mcpEffect(definition.annotations, caller.transport),
    origin: 'mcp',
    defaultPolicy: 'ask',
    // Policies and grants name the server's own names for it, never the mangled `name`: that
    // one depends on which other tools were found first, and two tools could share it.
    policyNames: [`mcp:${server}/${definition.name}`, `mcp:${server}`],
    grantName: `mcp:${server}/${definition.name}`,
    ...(caller.timeoutMs === undefined ? {} : { timeoutMs: caller.timeoutMs }),
    summary: (input) => `${definition.name} on MCP server "${server}"${argsWords(input)}`,
    execute: (input, context) => caller.call(definition.name, input, context.signal),
  };
}

/**
 * ` with {…}`, every argument as JSON (never cut: the owner approves what they read, and a call
 * too long to show whole is not put to them); empty for none.
 */
function argsWords(input: McpToolInput): string {
  if (Object.keys(input).length === 0) return '';
  return ` with ${JSON.stringify(input)}`;
}

/**
 * What a call's result becomes for the model: its text blocks joined by newlines; an image,
 * audio or resource named with its type and size, never inlined; `structuredContent` as JSON when
 * no block gives text; `isError` as the server set it. Cut to `maxChars` characters.
 */
export function mcpResultText(
  result: Pick<CallToolResult, 'content' | 'structuredContent' | 'isError'>,
  maxChars: number,
): ToolResult {
  const blocks = (result.content ?? []).map(describeBlock);
  const hasText = (result.content ?? []).some((b) => b.type === 'text' && b.text.length > 0);
  let content = blocks.join('\n');
  if (!hasText && result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    content = content === '' ? json : `${content}\n${json}`;
  }
  if (content === '') content = '(the tool returned nothing)';
  if (content.length > maxChars) {
    content = `${content.slice(0, maxChars)}\n… (cut: ${content.length - maxChars} more characters)`;
  }
  const isError = result.isError === true;
  return { content, isError, exit: isError ? 'error' : 'ok' };
}

/** One content block as a line of text. */
function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${sizeText(base64Bytes(block.data))}, not shown]`;
    case 'resource': {
      const { resource } = block;
      const bytes =
        'text' in resource ? Buffer.byteLength(resource.text, 'utf8') : base64Bytes(resource.blob);
      return `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${sizeText(bytes)}, not shown]`;
    }
    case 'resource_link':
      return `[resource link ${block.uri}${block.mimeType ? ` ${block.mimeType}` : ''}${block.size === undefined ? '' : `, ${sizeText(block.size)}`}]`;
    default:
      return `[${(block as { type: string }).type} content, not shown]`;
  }
}

/** The bytes a base64 text decodes to. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** `812 bytes`, `12.3 KB`, `4.1 MB`. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
