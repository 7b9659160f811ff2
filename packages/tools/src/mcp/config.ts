/**
 * The owner's MCP servers: a JSON file in the shape Claude Desktop, Claude Code and Cursor use, so
 * an owner can copy theirs, plus two keel fields per server (`policy`, `disabled`):
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
 *                "env": { "DEBUG": "1" }, "cwd": "/tmp", "policy": "allow" },
 *     "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer …" },
 *                 "disabled": true } } }
 * ```
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { KeelError } from '@keel/errors';
import { z } from 'zod';
import { POLICIES, type Policy } from '../contract.js';

/**
 * What a server name may hold: letters, digits, `_` and `-`, 1 to 32 characters, so that
 * `<server>__<tool>` fits a tool name ({@link TOOL_NAME}, 64 characters) with room for the tool's.
 */
export const MCP_SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

/** What every configured server has, whatever its transport. */
interface McpServerBase {
  /** Its key in `mcpServers` ({@link MCP_SERVER_NAME}). */
  name: string;
  /** The owner's policy for every tool of the server (`mcp:<server>`); absent: each tool asks. */
  policy?: Policy;
  /** `"disabled": true`: listed (doctor names it) but never started. */
  disabled: boolean;
}

/** A server keel starts as a child process and speaks to over its stdin and stdout. */
export interface McpStdioServerConfig extends McpServerBase {
  transport: 'stdio';
  /** The program (looked up in the child's `PATH`), e.g. `npx`. */
  command: string;
  args: string[];
  /** Added to the base environment the host gives ({@link McpHubOptions.env}). */
  env: Record<string, string>;
  /** The working folder, absolute (a relative one in the file is taken from the file's folder). */
  cwd?: string;
}

/** A server keel reaches over MCP's streamable HTTP transport. */
export interface McpHttpServerConfig extends McpServerBase {
  transport: 'http';
  /** The endpoint, `http:` or `https:`. */
  url: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers: Record<string, string>;
}

/** One configured server. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** The servers of one file. */
export interface McpConfig {
  /** The file they were read from. */
  path: string;
  /** Every valid entry in the file's order, disabled ones included. */
  servers: McpServerConfig[];
  /**
   * One `CONFIG_INVALID` error per entry that was left out (its message names the file, the server
   * and the field; its `fix` says what to change). Empty when every entry is valid.
   */
  problems: KeelError[];
}

const stringMap = z.record(z.string(), z.string());

/** One entry as the file holds it (unknown fields, e.g. Claude Code's `type`, are allowed). */
const entrySchema = z
  .object({
    type: z
      .enum(['stdio', 'http', 'streamable-http', 'streamableHttp'], {
        error:
          'must be "stdio" or "http" (keel speaks streamable HTTP, not the older SSE transport)',
      })
      .optional(),
    command: z.string().trim().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    headers: stringMap.optional(),
    policy: z.enum(POLICIES).optional(),
    disabled: z.boolean().optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.command === undefined && entry.url === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'is missing: a server needs "command" (a program keel starts) or "url"',
      });
    } else if (entry.command !== undefined && entry.url !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'cannot stand beside "command": a server is either started or reached by URL',
      });
    }
  });

type Entry = z.infer<typeof entrySchema>;

/**
 * Reads the owner's MCP server list from `path` (the host passes `$KEEL_HOME/mcp.json` or the
 * owner's configured path). A missing file means no servers.
 *
 * @param options.strict - throw the first bad entry's error instead of leaving the entry out.
 * @throws KeelError `CONFIG_INVALID` when the file is not JSON, not an object, or has no
 *   `mcpServers` object (naming the file, with a one-line fix); with `strict`, for a bad entry.
 * @throws KeelError `FILE_UNREADABLE` when the file exists but cannot be read.
 */
export function readMcpConfig(path: string, options: { strict?: boolean } = {}): McpConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { path, servers: [], problems: [] };
    throw new KeelError(
      'FILE_UNREADABLE',
      `cannot read the MCP server list ${path}: ${String(err)}`,
      {
        cause: err,
        details: { path },
      },
    );
  }
  return parseMcpConfig(text, path, options);
}

/**
 * Parses the text of an MCP server list read from `path` (see {@link readMcpConfig}).
 *
 * @throws KeelError `CONFIG_INVALID` as {@link readMcpConfig} does.
 */
export function parseMcpConfig(
  text: string,
  path: string,
  options: { strict?: boolean } = {},
): McpConfig {
  const top = parseTop(text, path);
  const servers: McpServerConfig[] = [];
  const problems: KeelError[] = [];
  for (const [name, raw] of Object.entries(top)) {
    const result = parseEntry(name, raw, path);
    if (result instanceof KeelError) {
      if (options.strict) throw result;
      problems.push(result);
    } else {
      servers.push(result);
    }
  }
  return { path, servers, problems };
}

/**
 * The owner's policies the file sets, as the policy names MCP tools answer to (`mcp:<server>`):
 * the host adds them to the owner's other policies (a policy the owner set elsewhere wins).
 */
export function mcpServerPolicies(config: Pick<McpConfig, 'servers'>): Record<string, Policy> {
  const out: Record<string, Policy> = {};
  for (const server of config.servers) {
    if (server.policy !== undefined) out[`mcp:${server.name}`] = server.policy;
  }
  return out;
}

/** The `mcpServers` object of the file. */
function parseTop(text: string, path: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const where = jsonErrorLine(text, (err as Error).message);
    throw new KeelError(
      'CONFIG_INVALID',
      `the MCP server list ${path} is not valid JSON${where === null ? '' : ` (line ${where})`}: ${(err as Error).message}`,
      {
        cause: err,
        details: { path, line: where },
        fix: `Fix the JSON in ${path}${where === null ? '' : ` at line ${where}`} (or move the file away to run without MCP servers).`,
      },
    );
  }
  const servers =
    typeof data === 'object' && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>).mcpServers
      : undefined;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new KeelError(
      'CONFIG_INVALID',
      `the MCP server list ${path} has no "mcpServers" object`,
      {
        details: { path, field: 'mcpServers' },
        fix: `Write ${path} as { "mcpServers": { "<name>": { "command": "…", "args": […] } } } (the shape Claude Desktop uses).`,
      },
    );
  }
  return servers as Record<string, unknown>;
}

/** One entry as a server, or the error that leaves it out. */
function parseEntry(name: string, raw: unknown, path: string): McpServerConfig | KeelError {
  if (!MCP_SERVER_NAME.test(name)) {
    const suggestion = name.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 32) || 'server';
    return new KeelError(
      'CONFIG_INVALID',
      `${path}: MCP server "${name}": the name may hold only letters, digits, "_" and "-" (at most 32)`,
      {
        details: { path, server: name, field: 'name' },
        fix: `Rename "${name}" in ${path}, e.g. to "${suggestion}".`,
      },
    );
  }
  const parsed = entrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : '(entry)';
    const message = issue?.message ?? 'is not valid';
    return new KeelError('CONFIG_INVALID', `${path}: MCP server "${name}": "${field}" ${message}`, {
      details: { path, server: name, field },
      fix: `Edit "${field}" of "${name}" in ${path} (or set "disabled": true to keep it off).`,
    });
  }
  return toServer(name, parsed.data, path);
}

/** The server an entry describes. */
function toServer(name: string, entry: Entry, path: string): McpServerConfig {
  const base = {
    name,
    disabled: entry.disabled ?? false,
    ...(entry.policy === undefined ? {} : { policy: entry.policy }),
  };
  if (entry.url !== undefined) {
    return { ...base, transport: 'http', url: entry.url, headers: entry.headers ?? {} };
  }
  return {
    ...base,
    transport: 'stdio',
    command: entry.command as string,
    args: entry.args ?? [],
    env: entry.env ?? {},
    ...(entry.cwd === undefined ? {} : { cwd: resolve(dirname(path), entry.cwd) }),
  };
}

/** The 1-based line of a JSON.parse error that names a position, or null. */
function jsonErrorLine(text: string, message: string): number | null {
  const match = /position (\d+)/.exec(message);
  if (match === null) return null;
  return text.slice(0, Number(match[1])).split('\n').length;
}
