/**
 * The service checks of `keel doctor` (`think_service`, `discord_service`): whether the think
 * service and the Discord door run, decided by their locks whatever started them, and, when one
 * does not, the fix that fits what is known of its installation.
 *
 * @module
 */
import { statSync } from 'node:fs';
import { ok, problem, skip } from './check-finding.js';
import type { CheckFinding, CheckOptions } from './checks.js';
import type { KeelConfig } from './config.js';
import { readLockHolder, type Service, STALE_MS, serviceLockPath } from './lock.js';
import { pidAlive } from './process.js';
import { serviceLogPath } from './service/render.js';

/** Whether a service's lock directory was refreshed within `2 × STALE_MS`; null when it has none. */
function heartbeatAge(home: string, service: Service, now: number): number | null {
  try {
    return Math.max(0, now - statSync(`${serviceLockPath(home, service)}.lock`).mtimeMs);
  } catch {
    return null;
  }
}

/**
 * `think_service`, `discord_service`: the service runs (its lock's holder is alive and keeps the
 * lock fresh; the think service has ticked within two intervals). The Discord door is only
 * checked when it is configured (a token and an owner).
 */
export function checkService(
  config: KeelConfig,
  service: Service,
  options: CheckOptions = {},
): CheckFinding {
  if (service === 'discord' && !(config.discord.token && config.discord.ownerId)) {
    return skip('not configured (DISCORD_TOKEN and an owner)');
  }
  const now = (options.now ?? Date.now)();
  const holder = readLockHolder(config.home, options.isAlive ?? pidAlive, service);
  const start = service === 'think' ? 'keel think' : 'keel discord';
  if (!holder?.alive) return notRunning(config, service, holder, options);
  const running = `running (PID ${holder.pid}, since ${new Date(holder.startedAt).toISOString()})`;
  const age = heartbeatAge(config.home, service, now);
  if (age !== null && age > 2 * STALE_MS) {
    return problem(
      'fail',
      'SERVICE_DOWN',
      `keel ${service} (PID ${holder.pid}) holds its lock but has not refreshed it for ${Math.round(age / 1000)} s: it is stuck`,
      `Restart it: stop PID ${holder.pid}, then \`${start}\` (or restart its service).`,
    );
  }
  if (service === 'think' && options.lastTickAt !== undefined) {
    const intervalMs = config.think.intervalMin * 60_000;
    const since = Math.max(options.lastTickAt ?? 0, holder.startedAt);
    if (now - since > 2 * intervalMs + 60_000) {
      const last = options.lastTickAt ? new Date(options.lastTickAt).toISOString() : 'never';
      return problem(
        'fail',
        'SERVICE_DOWN',
        `keel think is ${running} but has not ticked for ${Math.round((now - since) / 60_000)} min (last tick: ${last}; it ticks every ${config.think.intervalMin} min)`,
        `Restart it: stop PID ${holder.pid}, then \`${start}\` (or restart its service); its log says why.`,
      );
    }
  }
  return ok(running);
}

/** What the owner goes without while a service does not run. */
const WITHOUT: Record<Service, string> = {
  think: 'keel think is not running: no belief gate, reflection, reminders or nightly curator',
  discord: 'Discord is paired but the Discord door is not running: DMs to the bot go unanswered',
};

/**
 * A service that does not run (no live holder of its lock), with the fix that fits what is known
 * of its installation: installed where its manager cannot be reached (a container), it is run in
 * a terminal (or the manager given a session); installed and its manager reachable, it should be
 * running (a failure: its log says why); not installed, it is installed or run in a terminal.
 */
function notRunning(
  config: KeelConfig,
  service: Service,
  holder: { pid: number } | null,
  options: CheckOptions,
): CheckFinding {
  const facts = options.services?.(service) ?? null;
  const installed = facts ? facts.installed : (options.installed?.(service) ?? null);
  const start = service === 'think' ? 'keel think' : 'keel discord';
  const gone = holder ? ` (its last holder, PID ${holder.pid}, is gone)` : '';
  const lastLine = facts?.logLines.at(-1);
  const log = lastLine ? `; its log ends: ${lastLine}` : '';
  const byHand = `run \`${start}\` in a terminal and leave it open (or under tmux or screen, or \`nohup ${start} >> '${serviceLogPath(config.home, service)}' 2>&1 &\`)`;
  if (installed && facts && !facts.managerReachable) {
    return problem(
      'warn',
      'SERVICE_DOWN',
      `${WITHOUT[service]}${gone}: its ${facts.manager} service is installed, but ${facts.manager} cannot be reached here (no user session, as in a container), so nothing starts it${log}`,
      `Nothing runs it in the background here: ${byHand}. With systemd, \`loginctl enable-linger $USER\` and a login give it a user session; then \`keel service install\`.`,
    );
  }
  if (installed) {
    const state = facts ? ` (${facts.manager}: ${facts.state.replace('_', ' ')})` : '';
    return problem(
      'fail',
      'SERVICE_DOWN',
      `${WITHOUT[service]}${gone}, though its service is installed${state}${log}`,
      `\`keel service status ${service}\` shows its log: fix what it names, then \`keel service install ${service}\` starts it again (or ${byHand}).`,
    );
  }
  if (installed === null) {
    // Nothing asked the service manager (the terminal's first lines): say only what is known.
    return problem(
      'warn',
      'SERVICE_DOWN',
      `${WITHOUT[service]}${gone}`,
      `\`keel service install ${service}\` keeps it running with systemd or launchd (\`keel service status ${service}\` shows why an installed one stopped); where none runs (a container), ${byHand}.`,
    );
  }
  return problem(
    'warn',
    'SERVICE_DOWN',
    `${WITHOUT[service]}${gone}; no service of it is installed`,
    `\`keel service install ${service}\` keeps it running with systemd or launchd; where none runs (a container), ${byHand}.`,
  );
}
