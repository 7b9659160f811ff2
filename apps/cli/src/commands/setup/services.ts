/**
 * Setup's step 5: the services (think, and discord once paired).
 *
 * @module
 */
import * as p from '@clack/prompts';
import { installServices, type ServiceName } from '@keel/host';
import { serviceSetup } from '../service.js';
import { ask, type Ctx, candidate } from './context.js';

/** Step 5: the services. */
export async function servicesStep(ctx: Ctx): Promise<void> {
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    ctx.services = 'not installed (systemd or launchd only)';
    p.log.info(
      `keel installs its services with systemd (Linux) or launchd (macOS), not on ${process.platform}: run \`keel think\` (and \`keel discord\`) yourself.`,
    );
    return;
  }
  const config = candidate(ctx, {});
  const names: ServiceName[] =
    config.discord.token && config.discord.ownerId ? ['think', 'discord'] : ['think'];
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
    ctx.services = 'not installed (`keel service install`)';
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
    ctx.services = 'not installed (shown only)';
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
    ctx.services = `written, not started (${names.join(', ')})`;
  } else if (result.error) {
    p.log.error(`${result.error.code}: ${result.error.message}\nfix: ${result.error.fix}`);
    ctx.services = `installed, not running (${names.join(', ')}): keel service status`;
  } else {
    p.log.success(`Started: ${result.services.map((s) => `${s.name} (${s.state})`).join(', ')}.`);
    ctx.services = `running (${names.join(', ')})`;
  }
}
