/**
 * `keel tools`: what keel's model can do and what it did.
 *
 * - `keel tools`: every tool offered (the memory tools, the built-ins the owner enabled, each MCP
 *   server's tools), its effect and its policy (and whether the owner set it), each MCP server up
 *   or down with why, and the owner's standing "always" grants with their ids;
 * - `keel tools log [--limit N] [--tool NAME]`: the tool log, newest first (when, the door, the
 *   tool, its arguments with credentials withheld, how it was decided and by whom, how long, how
 *   it ended);
 * - `keel tools revoke <grant id>` / `keel tools revoke --tool NAME`: ends a standing grant;
 * - `keel tools allow|ask|deny <name>`: sets the owner's policy of a tool, an MCP server
 *   (`mcp:<server>`) or one of its tools (`mcp:<server>/<tool>`) in `config.toml`
 *   (`tools.policies`).
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type KeelTools, mcpServerLine, setConfigValues } from '@keel/host';
import type { ToolCallRow, ToolGrantRow } from '@keel/memory';
import { defaultPolicy, POLICIES, type Policy } from '@keel/tools';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { doorTools } from '../door-tools.js';
import { action, emit, wantsJson } from '../output.js';
import { withStore } from './shared.js';

/** One tool as `keel tools` lists it. */
interface ToolLine {
  name: string;
  origin: string;
  effect: string;
  policy: Policy;
  /** Whether the owner set the policy (else it is the tool's default). */
  policy_set: boolean;
}

/** The tools a door would offer now, with their policies. */
async function listing(tools: KeelTools): Promise<ToolLine[]> {
  const toolbox = await tools.toolbox();
  return toolbox.tools.map((tool) => {
    const policy = toolbox.policyOf(tool);
    return {
      name: tool.name,
      origin: tool.origin,
      effect: tool.effect,
      policy,
      policy_set: policy !== defaultPolicy(tool),
    };
  });
}

/** A grant as `--json` prints it. */
function grantJson(g: ToolGrantRow) {
  return {
    id: g.id,
    tool: g.tool,
    scope: g.scope,
    exact: g.scope === 'exact' ? g.exact : null,
    granted_at: new Date(g.granted_at).toISOString(),
    channel: g.channel,
  };
}

/** A log row as `--json` prints it. */
function callJson(c: ToolCallRow) {
  return {
    id: c.id,
    turn_id: c.turn_id,
    channel: c.channel,
    tool: c.tool,
    origin: c.origin,
    effect: c.effect,
    arguments: c.arguments,
    policy: c.policy,
    approval: c.approval,
    approved_by: c.approved_by,
    started_at: new Date(c.started_at).toISOString(),
    duration_ms: c.duration_ms,
    exit: c.exit,
    is_error: c.is_error === 1,
    result_sha256: c.result_sha256,
    excerpt: c.excerpt,
  };
}

/** The text of `keel tools`. */
function toolsText(lines: ToolLine[], tools: KeelTools, grants: ToolGrantRow[]): string {
  const width = Math.max(...lines.map((l) => l.name.length), 4);
  const out = [`${'tool'.padEnd(width)}  effect   policy`];
  for (const l of lines) {
    out.push(
      `${l.name.padEnd(width)}  ${l.effect.padEnd(7)}  ${l.policy}${l.policy_set ? ' (yours)' : ''}`,
    );
  }
  const servers = tools.hub?.status() ?? [];
  if (servers.length) {
    out.push('', 'MCP servers:');
    for (const s of servers) out.push(`  ${mcpServerLine(s)}`);
  }
  out.push(
    '',
    grants.length
      ? 'Always allowed (keel tools revoke <id> ends one):'
      : 'No standing "always" answers.',
  );
  for (const g of grants) {
    out.push(
      `  g${g.id} ${g.tool}${g.scope === 'exact' ? ` exactly: ${g.exact}` : ' (every call)'} — since ${new Date(g.granted_at).toISOString().slice(0, 16).replace('T', ' ')} UTC, answered on ${g.channel}`,
    );
  }
  out.push(
    '',
    'Set a policy with keel tools allow|ask|deny <name>; keel tools log lists every call.',
  );
  return out.join('\n');
}

/** One log row in a line or two. */
function callText(c: ToolCallRow): string {
  const when = new Date(c.started_at).toISOString().slice(0, 19).replace('T', ' ');
  const args = c.arguments.length > 160 ? `${c.arguments.slice(0, 159)}…` : c.arguments;
  const how = `${c.approval}${c.approved_by ? ` by ${c.approved_by}` : ''}`;
  const end = c.exit ? `exit ${c.exit}` : c.is_error ? 'error' : 'ok';
  return `#${c.id} ${when} UTC ${c.channel} ${c.tool} ${args}\n    ${how}; ${c.duration_ms} ms; ${end}`;
}

/** Parses a grant id: `7` or `g7`. */
function grantId(raw: string): number {
  const m = /^g?(\d{1,15})$/i.exec(raw.trim());
  if (!m)
    throw new KeelError('INVALID_INPUT', `"${raw}" is not a grant id`, {
      fix: 'Use an id from `keel tools`, e.g. keel tools revoke g3.',
    });
  return Number(m[1]);
}

/** The owner's policies with `name` set to `policy`, as `tools.policies` keeps them. */
function withPolicy(config: Config, name: string, policy: Policy): string {
  if (!/^[A-Za-z0-9_:/-]{1,140}$/.test(name)) {
    throw new KeelError(
      'INVALID_INPUT',
      `"${name}" is not a tool, mcp:<server> or mcp:<server>/<tool> name`,
      {
        fix: 'Use a name from `keel tools`, e.g. keel tools allow fetch_url or keel tools allow mcp:files.',
      },
    );
  }
  const policies = { ...config.tools.policies, [name]: policy };
  return Object.entries(policies)
    .map(([n, p]) => `${n}=${p}`)
    .join(',');
}

/** Registers `keel tools` and its sub-verbs. */
export function registerToolsCommand(program: Command, config: Config): void {
  const tools = program
    .command('tools')
    .description(
      "the model's tools: what each may do, your standing answers, and every call it made",
    )
    .action(
      action(async (_opts: unknown, cmd: Command) => {
        const opened = await doorTools(config, { waitForServers: true });
        try {
          const lines = await listing(opened);
          const grants = withStore(config, (store) => store.toolGrants.list(), 'none');
          emit(
            wantsJson(cmd),
            {
              tools: lines,
              mcp_servers: (opened.hub?.status() ?? []).map((s) => ({
                name: s.name,
                transport: s.transport,
                state: s.state,
                tools: s.tools,
                last_error: s.lastError,
              })),
              grants: grants.map(grantJson),
            },
            () => toolsText(lines, opened, grants),
          );
        } finally {
          await opened.close();
        }
      }),
    );
  tools
    .command('log')
    .description('every tool call, newest first: arguments, how it was decided, how it ended')
    .option('--limit <n>', 'how many', (v) => Number.parseInt(v, 10), 50)
    .option('--tool <name>', 'only this tool')
    .action(
      action((opts: { limit: number; tool?: string }, cmd: Command) =>
        withStore(
          config,
          (store) => {
            const rows = store.toolCalls.list({
              limit: opts.limit,
              ...(opts.tool ? { tool: opts.tool } : {}),
            });
            emit(
              wantsJson(cmd),
              { calls: rows.map(callJson), total: store.toolCalls.count() },
              () => (rows.length ? rows.map(callText).join('\n') : 'No tool calls yet.'),
            );
          },
          'none',
        ),
      ),
    );
  tools
    .command('revoke')
    .description('end a standing "always" answer: by its id, or every one of a tool')
    .argument('[id]', 'the grant id from keel tools, e.g. g3')
    .option('--tool <name>', 'every grant of this tool')
    .action(
      action((id: string | undefined, opts: { tool?: string }, cmd: Command) =>
        withStore(config, (store) => {
          if (!id && !opts.tool) {
            throw new KeelError('INVALID_INPUT', 'keel tools revoke needs a grant id or --tool', {
              fix: 'keel tools lists the grants: keel tools revoke g3, or keel tools revoke --tool shell.',
            });
          }
          const revoked = store.toolGrants.revoke(id ? { id: grantId(id) } : { tool: opts.tool! });
          // By id, the grant must exist; by tool, none left is what was asked.
          if (revoked === 0 && id) {
            throw new KeelError('NOT_FOUND', `no standing grant g${grantId(id)}`, {
              fix: 'keel tools lists the grants there are.',
            });
          }
          emit(wantsJson(cmd), { revoked }, () =>
            revoked === 0
              ? `No standing answers for ${opts.tool}; keel asks before it runs.`
              : `Revoked ${revoked} standing answer(s); keel asks again.`,
          );
        }),
      ),
    );
  for (const policy of POLICIES) {
    tools
      .command(policy)
      .description(
        policy === 'allow'
          ? 'let a tool run without asking (a tool, mcp:<server> or mcp:<server>/<tool>)'
          : policy === 'ask'
            ? 'ask before a tool runs'
            : 'never offer a tool to the model',
      )
      .argument('<name>', 'a tool, mcp:<server> or mcp:<server>/<tool>')
      .action(
        action((name: string, _opts: unknown, cmd: Command) => {
          const value = withPolicy(config, name, policy);
          setConfigValues(config.home, { 'tools.policies': value });
          emit(
            wantsJson(cmd),
            { name, policy, policies: value },
            () => `${name}: ${policy} (tools.policies = ${value}).`,
          );
        }),
      );
  }
}
