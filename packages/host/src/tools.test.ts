// The door's tools carry their own time limits into the Toolbox: a shell limit the owner set
// above the Toolbox's default is the one that applies.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TOOL_TIMEOUT_MS, TOOL_TIMEOUT_GRACE_MS } from '@keel/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { openTools } from './tools.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keel-host-tools-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

async function shellLimit(env: Record<string, string>): Promise<number> {
  const config = loadConfig({ KEEL_HOME: home, KEEL_TOOLS: 'shell', ...env });
  const tools = await openTools(config, { env: { PATH: '/usr/bin:/bin' }, mcp: false });
  try {
    const box = await tools.toolbox();
    const shell = box.tool('shell');
    if (!shell) throw new Error('shell is not offered');
    return box.limitOf(shell);
  } finally {
    await tools.close();
  }
}

describe('the shell time limit', () => {
  it('above the default of the Toolbox is the one a call runs under (control: the default 60 s)', async () => {
    const long = await shellLimit({ KEEL_SHELL_TIMEOUT_S: '600' });
    expect(long).toBeGreaterThan(600_000);
    expect(long).toBeGreaterThan(DEFAULT_TOOL_TIMEOUT_MS);
    expect(long).toBeLessThanOrEqual(600_000 + 10_000 + TOOL_TIMEOUT_GRACE_MS);
    const usual = await shellLimit({});
    expect(usual).toBeGreaterThan(60_000);
    expect(usual).toBeLessThan(DEFAULT_TOOL_TIMEOUT_MS);
  });
});
