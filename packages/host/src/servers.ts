/**
 * The owner surfaces that serve keel's memory while they run — the local web page (`keel web`)
 * and the MCP server (`keel mcp`, one process per client) — say so in `<home>/run/`, one small JSON
 * file per process (`<kind>-<pid>.json`), removed when the process ends. `keel doctor`'s `servers`
 * check lists the ones whose process is alive; a file left by a process that died is ignored (and
 * tidied). Nothing secret is recorded: the web page's URL is kept without its token.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, skip } from './check-finding.js';
import type { CheckFinding, CheckOptions } from './checks.js';
import { pidAlive } from './process.js';

/** What kind of owner surface a server is. */
export type ServerKind = 'web' | 'mcp';

/** What a running server says of itself. */
export interface ServerInfo {
  /** The web page's address, without its token. */
  url?: string;
  /** The MCP client's name (from its `initialize` request), once known. */
  client?: string;
}

/** One running server, as {@link runningServers} reads it. */
export interface RunningServer extends ServerInfo {
  kind: ServerKind;
  pid: number;
  /** When it started, ms since the epoch. */
  startedAt: number;
}

/** The folder the records live in. */
export function serversDir(home: string): string {
  return join(home, 'run');
}

const recordName = /^(web|mcp)-(\d+)\.json$/;

/**
 * Records that this process serves `kind` (again, to update `info`: the MCP client's name arrives
 * after start). The record goes when the process exits, or when the returned function is called.
 * A record that cannot be written is not an error: the server runs all the same. Announcing again
 * replaces the earlier announcement's exit listener: one record, one listener, however often
 * `info` changes; every returned function removes the one record.
 *
 * @returns a function that removes the record.
 */
export function announceServer(home: string, kind: ServerKind, info: ServerInfo = {}): () => void {
  const file = join(serversDir(home), `${kind}-${process.pid}.json`);
  const startedAt = previousStart(file) ?? Date.now();
  const record: RunningServer = { kind, pid: process.pid, startedAt, ...safeInfo(info) };
  try {
    mkdirSync(serversDir(home), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch {
    return () => {};
  }
  const earlier = listening.get(file);
  if (earlier) process.off('exit', earlier);
  const remove = () => {
    process.off('exit', remove);
    if (listening.get(file) === remove) listening.delete(file);
    rmSync(file, { force: true });
  };
  listening.set(file, remove);
  process.on('exit', remove);
  return remove;
}

/** The exit listener of each record this process announced, by the record's file. */
const listening = new Map<string, () => void>();

/** Keeps `url` without a query or fragment (a token never lands on disk) and `client` as one line. */
function safeInfo(info: ServerInfo): ServerInfo {
  const out: ServerInfo = {};
  if (info.url) {
    try {
      const u = new URL(info.url);
      out.url = `${u.origin}${u.pathname}`;
    } catch {
      // Not a URL: not recorded.
    }
  }
  if (info.client) out.client = info.client.replace(/[\p{Cc}\p{Cf}]/gu, ' ').slice(0, 120);
  return out;
}

/** The start time an earlier announcement of this process recorded. */
function previousStart(file: string): number | null {
  try {
    const at = (JSON.parse(readFileSync(file, 'utf8')) as { startedAt?: unknown }).startedAt;
    return typeof at === 'number' ? at : null;
  } catch {
    return null;
  }
}

/**
 * The servers running now, oldest first. A record whose process is gone is removed; an unreadable
 * one is skipped.
 */
export function runningServers(
  home: string,
  isAlive: (pid: number) => boolean = pidAlive,
): RunningServer[] {
  let names: string[];
  try {
    names = readdirSync(serversDir(home));
  } catch {
    return [];
  }
  const out: RunningServer[] = [];
  for (const name of names) {
    const m = recordName.exec(name);
    if (!m) continue;
    const file = join(serversDir(home), name);
    const pid = Number(m[2]);
    if (!isAlive(pid)) {
      rmSync(file, { force: true });
      continue;
    }
    try {
      const r = JSON.parse(readFileSync(file, 'utf8')) as RunningServer;
      out.push({ ...safeInfo(r), kind: m[1] as ServerKind, pid, startedAt: Number(r.startedAt) });
    } catch {
      // Being written, or damaged: not listed.
    }
  }
  return out.sort((a, b) => a.startedAt - b.startedAt || a.pid - b.pid);
}

/** `servers`: which web pages and MCP servers serve keel's memory now (never a problem). */
export function checkServers(home: string, options: CheckOptions = {}): CheckFinding {
  const running = runningServers(home, options.isAlive ?? pidAlive);
  if (running.length === 0) return skip('no web page or MCP server is running');
  const web = running.filter((s) => s.kind === 'web');
  const mcp = running.filter((s) => s.kind === 'mcp');
  const parts: string[] = [];
  for (const s of web) parts.push(`web page at ${s.url ?? '(address unknown)'} (PID ${s.pid})`);
  if (mcp.length > 0) {
    const clients = mcp.map((s) => `${s.client ?? 'a client'} (PID ${s.pid})`);
    parts.push(`${mcp.length} MCP server${mcp.length === 1 ? '' : 's'}: ${clients.join(', ')}`);
  }
  return ok(`running: ${parts.join('; ')}`);
}
