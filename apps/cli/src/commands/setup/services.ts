/**
 * Setup's step 5: the services (think, and discord once paired).
 *
 * @module
 */
import * as p from '@clack/prompts';
import { installServices, type ServiceName, serviceLogPath } from '@keel/host';
import { serviceSetup } from '../service.js';
import { ask, type Ctx, candidate } from './context.js';

/**
 * What does not run when `names` were not started, and how to run them by hand: the Discord door
 * (a paired bot that answers nothing) named first. Empty when nothing is missing.
 */
export function notRunningAdvice(names: readonly ServiceName[], keelHome: string): string {
  const missing = names.map((n) => (n === 'discord' ? 'the Discord door' : 'the think service'));
  if (missing.length === 0) return '';
  const silent = names.includes('discord')
    ? 'Discord is paired but the Discord door is not running: the bot will not answer your DMs until it runs. '
    : '';
  const commands = names.map((n) => `keel ${n}`).join('` and `');
  const nohup = names
    .map((n) => `nohup keel ${n} >> '${serviceLogPath(keelHome, n)}' 2>&1 &`)
    .join('; ');
  return `${silent}Run \`${commands}\` in a terminal and leave it open (or under tmux or screen, or \`${nohup}\`); \`keel doctor\` says whether ${missing.join(' and ')} ${missing.length > 1 ? 'run' : 'runs'}.`;
}

/** The summary's line for services that were not started: which, and that the door is silent. */
function notStarted(what: string, names: readonly ServiceName[]): string {
  const door = names.includes('discord')
    ? '; the Discord door is not running (`keel discord`)'
    : '';
  return `${what}: ${names.join(', ')} not running${door}`;
}

/** Step 5: the services. */
export async function servicesStep(ctx: Ctx): Promise<void> {
  const config = candidate(ctx, {});
  const names: ServiceName[] =
    config.discord.token && config.discord.ownerId ? ['think', 'discord'] : ['think'];
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    ctx.services = notStarted('not installed (systemd or launchd only)', names);
    p.log.warn(
      `keel installs its services with systemd (Linux) or launchd (macOS), not on ${process.platform}. ${notRunningAdvice(names, config.home)}`,
    );
    return;
  }
  const kind = process.platform === 'linux' ? 'systemd user services' : 'launchd agents';
  const choice = await ask(ctx, () =>
    p.select<'install' | 'dry' | 'skip'>({
      message: `Keep keel running in the background? (the think service${names.includes('discord') ? ' and the Discord door' : ''})`,
      options: [
        { value: 'install', label: `Install and start ${names.join(' and ')}`, hint: kind },
        { value: 'dry', label: 'Show what would be installed; change nothing' },
        { value: 'skip', label: 'Skip (`keel service install` later)' },
      ],
    }),
  );
  if (choice === 'skip') {
    ctx.services = notStarted('not installed (`keel service install`)', names);
    if (names.includes('discord')) p.log.warn(notRunningAdvice(['discord'], config.home));
    return;
  }
  const result = await installServices(names, serviceSetup(config, ctx.env), {
    dryRun: choice === 'dry',
  });
  if (result.dryRun) {
    p.note(
      [
        ...result.files.map((f) => `would write ${f.path}`),
        ...result.commands.map((c) => `would run: ${c.argv.join(' ')}`),
      ].join('\n'),
      'keel service install (nothing changed)',
    );
    ctx.services = notStarted('not installed (shown only)', names);
    return;
  }
  const unreachable = result.error?.code === 'SERVICE_MANAGER_UNAVAILABLE';
  // Without a manager its message names the files written and the commands that start them.
  if (!unreachable) {
    for (const f of result.files) p.log.message(`wrote ${f.path} (log: ${f.logPath})`);
  }
  for (const note of result.notes) p.log.info(note);
  if (result.error && unreachable) {
    p.log.warn(`Nothing was started: ${result.error.message}\nfix: ${result.error.fix}`);
    // Nothing runs in the background here (a container): say what stays silent, and what to do.
    p.log.warn(notRunningAdvice(names, config.home));
    ctx.services = notStarted('written, not started: no service manager here', names);
  } else if (result.error) {
    p.log.error(`${result.error.code}: ${result.error.message}\nfix: ${result.error.fix}`);
    const down = result.services.filter((r) => r.state !== 'running').map((r) => r.name);
    ctx.services = notStarted(
      'installed, not running (`keel service status`)',
      down.length > 0 ? down : names,
    );
  } else {
    p.log.success(`Started: ${result.services.map((s) => `${s.name} (${s.state})`).join(', ')}.`);
    ctx.services = `running (${names.join(', ')})`;
  }
}
