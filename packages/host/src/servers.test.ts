// The records owner surfaces leave while they run: listed while the process lives, gone when it
// ends (or tidied when it died), never holding the web page's token; doctor's `servers` check says
// what runs, and skips when nothing does.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { announceServer, checkServers, runningServers, serversDir } from './servers.js';

const removers: Array<() => void> = [];
afterEach(() => {
  for (const r of removers.splice(0)) r();
});

function home(): string {
  return mkdtempSync(join(tmpdir(), 'keel-servers-'));
}

describe('announceServer / runningServers', () => {
  it('announcing again keeps one exit listener per record (a second record adds its own)', () => {
    const h = home();
    const before = process.listenerCount('exit');
    removers.push(announceServer(h, 'mcp', {}));
    removers.push(announceServer(h, 'mcp', { client: 'cursor' }));
    removers.push(announceServer(h, 'mcp', { client: 'cursor 2' }));
    expect(process.listenerCount('exit')).toBe(before + 1);
    // Control: another record is another listener.
    removers.push(announceServer(h, 'web', { url: 'http://127.0.0.1:4103/' }));
    expect(process.listenerCount('exit')).toBe(before + 2);
    expect(
      runningServers(h)
        .map((s) => s.kind)
        .sort(),
    ).toEqual(['mcp', 'web']);
    for (const r of removers.splice(0)) r();
    expect(process.listenerCount('exit')).toBe(before);
    expect(runningServers(h)).toEqual([]);
  });

  it('lists a running server without its token, updates it in place, and forgets it once removed', () => {
    const h = home();
    const remove = announceServer(h, 'web', { url: 'http://127.0.0.1:4100/?token=s3cret#x' });
    removers.push(remove);
    const [web] = runningServers(h);
    expect(web).toMatchObject({ kind: 'web', pid: process.pid, url: 'http://127.0.0.1:4100/' });
    const raw = readdirSync(serversDir(h)).map((f) => readFileSync(join(serversDir(h), f), 'utf8'));
    expect(raw.join('')).not.toContain('s3cret');

    removers.push(announceServer(h, 'mcp', {}));
    const started = runningServers(h).find((s) => s.kind === 'mcp')!.startedAt;
    removers.push(announceServer(h, 'mcp', { client: 'claude-code\u0007' }));
    const mcp = runningServers(h).filter((s) => s.kind === 'mcp');
    expect(mcp).toEqual([
      { kind: 'mcp', pid: process.pid, startedAt: started, client: 'claude-code ' },
    ]);

    remove();
    expect(runningServers(h).map((s) => s.kind)).toEqual(['mcp']);
  });

  it('drops and tidies the record of a process that died; keeps the live one', () => {
    const h = home();
    removers.push(announceServer(h, 'web', { url: 'http://127.0.0.1:4101/' }));
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    mkdirSync(serversDir(h), { recursive: true });
    const stale = join(serversDir(h), `mcp-${dead}.json`);
    writeFileSync(stale, JSON.stringify({ kind: 'mcp', pid: dead, startedAt: 1 }));
    writeFileSync(join(serversDir(h), 'notes.txt'), 'not a record');
    expect(runningServers(h).map((s) => [s.kind, s.pid])).toEqual([['web', process.pid]]);
    expect(readdirSync(serversDir(h)).sort()).toEqual(['notes.txt', `web-${process.pid}.json`]);
  });

  it("doctor's servers check: what runs, or a skip when nothing does", () => {
    const h = home();
    expect(checkServers(h)).toEqual({
      status: 'skip',
      detail: 'no web page or MCP server is running',
    });
    removers.push(announceServer(h, 'web', { url: 'http://127.0.0.1:4102/?token=t' }));
    removers.push(announceServer(h, 'mcp', { client: 'cursor' }));
    expect(checkServers(h)).toEqual({
      status: 'ok',
      detail: `running: web page at http://127.0.0.1:4102/ (PID ${process.pid}); 1 MCP server: cursor (PID ${process.pid})`,
    });
  });
});
