/**
 * The memory tools as the turn offers and runs them: their specs and one call, the input parsed
 * with the tool's zod schema (`@keel/tools`: `memoryTools`).
 *
 * @module
 */
import type { MemoryStore } from '@keel/memory';
import { memoryTools, type StagedWrite, type ToolSpec } from '@keel/tools';
import { z } from 'zod';

/** The result of one tool call. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Fact ids the tool showed the model. */
  factIds: number[];
  staged?: StagedWrite;
}

/** The tool specs sent to the model. */
export function memoryToolSpecs(): ToolSpec[] {
  return memoryTools().map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema ?? (z.toJSONSchema(t.input) as Record<string, unknown>),
  }));
}

/**
 * Runs one memory tool call. Never throws for bad input: the error goes back to the model as an
 * error result.
 */
export async function runMemoryTool(
  store: MemoryStore,
  name: string,
  input: unknown,
  options: { tz?: string; ownerText?: string } = {},
): Promise<ToolOutcome> {
  const tool = memoryTools().find((t) => t.name === name);
  if (!tool) return { content: `unknown tool ${name}`, isError: true, factIds: [] };
  const p = tool.input.safeParse(input);
  if (!p.success) {
    return {
      content: `invalid input for ${name}: ${z.prettifyError(p.error)}`,
      isError: true,
      factIds: [],
    };
  }
  const r = await tool.execute(p.data, {
    signal: new AbortController().signal,
    store,
    tz: options.tz ?? 'UTC',
    now: () => store.now(),
    channel: 'agent',
    ...(options.ownerText !== undefined ? { ownerText: options.ownerText } : {}),
  });
  return {
    content: r.content,
    isError: r.isError,
    factIds: r.factIds ?? [],
    ...(r.staged ? { staged: r.staged } : {}),
  };
}
