import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { mcpServerPolicies, parseMcpConfig, readMcpConfig } from './config.js';

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'keel-mcp-config-'));
  const path = join(dir, 'mcp.json');
  writeFileSync(path, text);
  return path;
}

/** The error `fn` throws (it must throw). */
function thrown(fn: () => unknown): KeelError {
  try {
    fn();
  } catch (err) {
    if (KeelError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a KeelError');
}

describe('the owner MCP server list', () => {
  it("reads Claude Desktop's shape as it is, with keel's policy and disabled fields", () => {
    const path = file(
      JSON.stringify({
        globalShortcut: 'Ctrl+Space',
        mcpServers: {
          filesystem: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
          },
          github: {
            command: 'docker',
            args: ['run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'],
            env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' },
            cwd: 'servers',
            policy: 'allow',
          },
          'remote-notes': {
            type: 'http',
            url: 'https://notes.example.com/mcp',
            headers: { Authorization: 'Bearer abc' },
            disabled: true,
          },
        },
      }),
    );
    const config = readMcpConfig(path);
    expect(config.problems).toEqual([]);
    expect(config.servers).toEqual([
      {
        name: 'filesystem',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
        env: {},
        disabled: false,
      },
      {
        name: 'github',
        transport: 'stdio',
        command: 'docker',
        args: ['run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' },
        cwd: join(path, '..', 'servers'),
        policy: 'allow',
        disabled: false,
      },
      {
        name: 'remote-notes',
        transport: 'http',
        url: 'https://notes.example.com/mcp',
        headers: { Authorization: 'Bearer abc' },
        disabled: true,
      },
    ]);
    expect(mcpServerPolicies(config)).toEqual({ 'mcp:github': 'allow' });
  });

  it('takes a missing file as no servers, and an empty list as none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keel-mcp-config-'));
    expect(readMcpConfig(join(dir, 'mcp.json'))).toEqual({
      path: join(dir, 'mcp.json'),
      servers: [],
      problems: [],
    });
    expect(readMcpConfig(file('{ "mcpServers": {} }')).servers).toEqual([]);
  });

  it('refuses a damaged file with CONFIG_INVALID naming the file and the line', () => {
    const path = file('{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}\n');
    const err = thrown(() => readMcpConfig(path));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(path);
    expect(err.message).toContain('not valid JSON (line 3)');
    expect(err.fix).toContain(path);
  });

  it('refuses a file without an mcpServers object, naming the shape to write', () => {
    const path = file('{ "servers": { "a": { "command": "x" } } }');
    const err = thrown(() => readMcpConfig(path));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain(path);
    expect(err.fix).toContain('"mcpServers"');
    expect(thrown(() => parseMcpConfig('[1]', path)).code).toBe('CONFIG_INVALID');
  });

  it('refuses a folder where the file should be as unreadable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keel-mcp-config-'));
    mkdirSync(join(dir, 'mcp.json'));
    expect(thrown(() => readMcpConfig(join(dir, 'mcp.json'))).code).toBe('FILE_UNREADABLE');
  });

  it('leaves out a server whose name does not fit a tool name, and keeps the good one', () => {
    const path = file(
      JSON.stringify({
        mcpServers: {
          'my server.v2': { command: 'node', args: ['a.js'] },
          notes_2: { command: 'node', args: ['b.js'] },
        },
      }),
    );
    const config = readMcpConfig(path);
    expect(config.servers.map((s) => s.name)).toEqual(['notes_2']);
    expect(config.problems).toHaveLength(1);
    const [problem] = config.problems;
    expect(problem?.code).toBe('CONFIG_INVALID');
    expect(problem?.message).toContain(path);
    expect(problem?.message).toContain('"my server.v2"');
    expect(problem?.details).toMatchObject({ server: 'my server.v2', field: 'name' });
    expect(problem?.fix).toContain('"my_server_v2"');
    // strict: the same entry is thrown.
    expect(thrown(() => readMcpConfig(path, { strict: true })).message).toContain('my server.v2');
  });

  it('names the server and the field of a bad entry', () => {
    const cases: [unknown, string][] = [
      [{ args: ['x'] }, 'command'],
      [{ command: 'node', args: 'a.js' }, 'args'],
      [{ command: 'node', env: { PORT: 8080 } }, 'env.PORT'],
      [{ url: 'ftp://example.com/mcp' }, 'url'],
      [{ command: 'node', url: 'https://example.com/mcp' }, 'url'],
      [{ command: 'node', policy: 'always' }, 'policy'],
      [{ url: 'https://example.com/sse', type: 'sse' }, 'type'],
    ];
    for (const [entry, field] of cases) {
      const path = file(JSON.stringify({ mcpServers: { broken: entry, fine: { command: 'x' } } }));
      const config = readMcpConfig(path);
      expect(
        config.servers.map((s) => s.name),
        field,
      ).toEqual(['fine']);
      expect(config.problems[0]?.message, field).toContain(`"broken": "${field}"`);
      expect(config.problems[0]?.message, field).toContain(path);
      expect(config.problems[0]?.details, field).toMatchObject({ server: 'broken', field });
    }
  });
});
