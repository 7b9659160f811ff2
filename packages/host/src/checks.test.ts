/**
 * The checks that need no network: the Discord owner, and the services (their lock, its
 * heartbeat, the think service's last tick). The live ones run against the fake servers in
 * `tests/e2e/doctor.test.ts`.
 */
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CheckOptions, checkDiscordOwner, runChecks, type ServiceFacts } from './checks.js';
import { type KeelConfig, loadConfig } from './config.js';
import {
  acquireServiceLock,
  acquireThinkLock,
  lockPath,
  STALE_MS,
  serviceLockPath,
} from './lock.js';
import { checkService } from './service-checks.js';

let home: string;
let release: (() => void)[];
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'keel-host-checks-'));
  release = [];
});
afterEach(() => {
  for (const r of release.splice(0)) r();
  rmSync(home, { recursive: true, force: true });
});

const config = (env: Record<string, string> = {}): KeelConfig =>
  loadConfig({ KEEL_HOME: home, KEEL_CHAT_PROVIDER: 'offline', ...env });
const OWNER = '123456789012345678';

describe('the Discord owner check', () => {
  it('fails with NOT_PAIRED when a token is set without an owner, passes with one', () => {
    expect(checkDiscordOwner(config())).toMatchObject({ status: 'skip' });
    expect(checkDiscordOwner(config({ DISCORD_TOKEN: 't' }))).toMatchObject({
      status: 'fail',
      code: 'NOT_PAIRED',
      fix: expect.stringContaining('keel discord pair'),
    });
    expect(
      checkDiscordOwner(config({ DISCORD_TOKEN: 't', KEEL_DISCORD_OWNER_ID: OWNER })),
    ).toMatchObject({ status: 'ok', detail: expect.stringContaining(OWNER) });
  });
});

describe('the service checks', () => {
  it('a service not running is a warning, a failure once it is installed; running is ok', () => {
    expect(checkService(config(), 'think')).toMatchObject({
      status: 'warn',
      code: 'SERVICE_DOWN',
      fix: expect.stringContaining('keel think'),
    });
    expect(checkService(config(), 'think', { installed: (s) => s === 'think' })).toMatchObject({
      status: 'fail',
      code: 'SERVICE_DOWN',
    });
    const lock = acquireThinkLock(lockPath(home), { releaseOnExit: false });
    release.push(() => lock.release());
    expect(checkService(config(), 'think', { installed: () => true })).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(`PID ${process.pid}`),
    });
  });

  it('a holder that stopped refreshing its lock is stuck: a failure', () => {
    const lock = acquireThinkLock(lockPath(home), { releaseOnExit: false });
    release.push(() => lock.release());
    const later = () => Date.now() + 3 * STALE_MS;
    expect(checkService(config(), 'think', { now: later })).toMatchObject({
      status: 'fail',
      code: 'SERVICE_DOWN',
      detail: expect.stringContaining('stuck'),
    });
  });

  it('the think service must have ticked within two intervals', () => {
    const lock = acquireThinkLock(lockPath(home), { releaseOnExit: false });
    release.push(() => lock.release());
    const startedAt = lock.info.startedAt;
    // Started moments ago: no tick yet is fine.
    expect(checkService(config(), 'think', { lastTickAt: null })).toMatchObject({ status: 'ok' });
    // 40 minutes on (interval 15), the lock kept fresh (its directory touched at that time).
    const at = startedAt + 40 * 60_000;
    utimesSync(`${lockPath(home)}.lock`, at / 1000, at / 1000);
    const found = checkService(config({ KEEL_THINK_INTERVAL_MIN: '15' }), 'think', {
      now: () => at,
      lastTickAt: startedAt + 60_000,
    });
    expect(found).toMatchObject({ status: 'fail', code: 'SERVICE_DOWN' });
    expect(found.detail).toMatch(/has not ticked for 39 min/);
    // Control: a tick 10 minutes ago is on time.
    const onTime = checkService(config({ KEEL_THINK_INTERVAL_MIN: '15' }), 'think', {
      lastTickAt: Date.now() - 10 * 60_000,
    });
    expect(onTime.status).toBe('ok');
  });

  it('a paired door that does not run says so, with the fix that fits its installation', () => {
    const door = config({ DISCORD_TOKEN: 't', KEEL_DISCORD_OWNER_ID: OWNER });
    const facts = (over: Partial<ServiceFacts>): CheckOptions => ({
      services: () => ({
        installed: true,
        manager: 'systemd',
        managerReachable: true,
        state: 'failed',
        logLines: ['keel discord: error DISCORD_AUTH: the token was refused'],
        ...over,
      }),
    });
    // Nothing installed: install it, or run it in a terminal.
    const none = checkService(door, 'discord', facts({ installed: false, logLines: [] }));
    expect(none).toMatchObject({ status: 'warn', code: 'SERVICE_DOWN' });
    expect(none.detail).toMatch(/^Discord is paired but the Discord door is not running/);
    expect(none.fix).toMatch(/keel service install discord/);
    expect(none.fix).toMatch(/`keel discord` in a terminal/);
    // Installed where systemd cannot be reached (a container): a terminal, tmux or nohup.
    const container = checkService(door, 'discord', facts({ managerReachable: false }));
    expect(container).toMatchObject({ status: 'warn', code: 'SERVICE_DOWN' });
    expect(container.detail).toMatch(/systemd cannot be reached here/);
    expect(container.fix).toMatch(/tmux or screen, or `nohup keel discord >> '.*discord\.log'/);
    expect(container.fix).toMatch(/loginctl enable-linger/);
    // Installed and systemd reachable: it should run; its log's last line says why it does not.
    const failed = checkService(door, 'discord', facts({}));
    expect(failed).toMatchObject({ status: 'fail', code: 'SERVICE_DOWN' });
    expect(failed.detail).toMatch(/\(systemd: failed\); its log ends: .*DISCORD_AUTH/);
    expect(failed.fix).toMatch(/keel service status discord/);
    // The think service in a container: the same fix, for think.
    const think = checkService(config(), 'think', facts({ managerReachable: false }));
    expect(think.detail).toMatch(/^keel think is not running/);
    expect(think.fix).toMatch(/`keel think` in a terminal/);
    // Control: the door running (its lock held) is ok whatever is installed.
    const lock = acquireServiceLock(serviceLockPath(home, 'discord'), 'discord', {
      releaseOnExit: false,
    });
    release.push(() => lock.release());
    expect(checkService(door, 'discord', facts({ managerReachable: false }))).toMatchObject({
      status: 'ok',
    });
  });

  it('the Discord door is checked only when configured, through its own lock', () => {
    expect(checkService(config(), 'discord')).toMatchObject({ status: 'skip' });
    const door = config({ DISCORD_TOKEN: 't', KEEL_DISCORD_OWNER_ID: OWNER });
    expect(checkService(door, 'discord')).toMatchObject({ status: 'warn', code: 'SERVICE_DOWN' });
    const lock = acquireServiceLock(serviceLockPath(home, 'discord'), 'discord', {
      releaseOnExit: false,
    });
    release.push(() => lock.release());
    expect(checkService(door, 'discord')).toMatchObject({ status: 'ok' });
  });
});

describe('runChecks', () => {
  it('offline: every network check is skipped, in the documented order, each timed', async () => {
    const results = await runChecks(config({ DISCORD_TOKEN: 't' }), { live: false });
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['model', 'skip'],
      ['gate_model', 'skip'],
      ['discord_token', 'skip'],
      ['discord_owner', 'fail'],
      ['think_service', 'warn'],
      ['discord_service', 'skip'],
      ['mcp_servers', 'skip'],
      ['servers', 'skip'],
    ]);
    for (const r of results) {
      expect(r.ok).toBe(r.status !== 'fail');
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
    }
  });
});
