/**
 * Setup's step 2: Discord, the bot token (checked with Discord, with the application's settings
 * that would stop the owner reaching the bot) and pairing (`keel discord pair --json` as a child
 * process), which shows the link that adds the bot to the owner's own server: sharing a server is
 * what lets the owner open a DM with it (docs/decisions/2026-12-07-discord-pairing-on-a-real-account.md).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import * as p from '@clack/prompts';
import {
  CHECK_TIMEOUT_MS,
  checkDiscordToken,
  INTERNAL_FIX,
  maskSecret,
  PARENT_PID_VARIABLE,
} from '@keel/host';
import { count } from '@keel/language';
import { appMain } from '../../paths.js';
import {
  ask,
  type Ctx,
  candidate,
  fileValues,
  save,
  secret,
  stopped,
  text,
  verify,
} from './context.js';

/** One line `keel discord pair --json` prints. */
interface PairEvent {
  event?: 'code' | 'wrong_code' | 'paired';
  display?: string;
  expires_at?: string;
  bot?: { id: string; tag: string };
  install_url?: string;
  author_id?: string;
  tries_left?: number;
  owner_id?: string;
  username?: string;
  shadowed_by_env?: boolean;
  error?: { code: string; message: string; fix: string };
}

/** What one pairing ended with. */
type PairOutcome =
  | { paired: { ownerId: string; username: string; shadowed: boolean } }
  | { error: { code: string; message: string; fix: string } };

/**
 * Runs `keel discord pair --json` (the Discord app's pairing, as a child process) and shows its
 * events as they come: the code, each wrong code. Ctrl-C reaches it too (it stops, `CANCELLED`).
 */
function runPairing(ctx: Ctx): Promise<PairOutcome> {
  const discordMain = appMain('discord');
  if (!existsSync(discordMain)) {
    return Promise.resolve({
      error: {
        code: 'FILE_UNREADABLE',
        message: `${discordMain} is missing`,
        fix: 'Build first (npm start, or pnpm exec turbo run build).',
      },
    });
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [discordMain, 'pair', '--json'], {
      env: { ...ctx.env, [PARENT_PID_VARIABLE]: String(process.pid) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let outcome: PairOutcome | null = null;
    let stderr = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      let e: PairEvent;
      try {
        e = JSON.parse(line) as PairEvent;
      } catch {
        return;
      }
      if (e.error) outcome = { error: e.error };
      else if (e.event === 'code') {
        const until = e.expires_at ? new Date(e.expires_at).toLocaleTimeString() : '';
        const bot = e.bot?.tag ?? 'your bot';
        p.note(
          [
            `keel talks with you in a DM with ${bot}. Discord lets you open it once you and the bot share a server:`,
            '1. No server of your own yet? In Discord: the + at the bottom of the server list → Create My Own → For me and my friends.',
            '2. Open this link, pick that server, press Authorize (no permission is asked: keel only talks in the DM):',
            `   ${e.install_url ?? '(`keel discord invite` prints it)'}`,
            `3. In that server's member list, click ${bot} → Message, and send this code${until ? ` by ${until}` : ''}:`,
            '',
            `    ${e.display}`,
            '',
            "Whoever sends it becomes keel's owner; three wrong codes stop the pairing.",
          ].join('\n'),
          'Your pairing code',
        );
        p.log.step('Waiting for your DM… (Ctrl-C stops setup)');
      } else if (e.event === 'wrong_code') {
        const left = e.tries_left ?? 0;
        p.log.warn(
          `A wrong code from Discord user ${e.author_id}: nothing changed; ${left ? `${count(left, 'more try', 'more tries')} allowed` : 'the pairing stops'}.`,
        );
      } else if (e.event === 'paired' && e.owner_id) {
        outcome = {
          paired: {
            ownerId: e.owner_id,
            username: e.username ?? '?',
            shadowed: e.shadowed_by_env === true,
          },
        };
      }
    });
    child.stderr.on('data', (d) => {
      stderr = `${stderr}${d}`.slice(-4000);
    });
    const onAbort = () => child.kill('SIGTERM');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      outcome ??= {
        error: {
          code: 'INTERNAL',
          message: `could not start pairing: ${err.message}`,
          fix: INTERNAL_FIX,
        },
      };
    });
    child.on('close', (code) => {
      ctx.signal.removeEventListener('abort', onAbort);
      const last = stderr.trim().split('\n').at(-1) ?? '';
      resolve(
        outcome ?? {
          error: {
            code: 'INTERNAL',
            message: `keel discord pair ended with exit code ${code}${last ? `: ${last}` : ''}`,
            fix: INTERNAL_FIX,
          },
        },
      );
    });
  });
}

/** Pairs the owner's Discord account, offering again after a wrong code or the expiry. */
async function pairStep(ctx: Ctx): Promise<void> {
  for (;;) {
    p.log.step('Connecting to Discord as your bot…');
    const outcome = await runPairing(ctx);
    if (ctx.signal.aborted) throw stopped();
    if ('paired' in outcome) {
      const { ownerId, username, shadowed } = outcome.paired;
      if (!ctx.saved.includes('discord.owner_id')) ctx.saved.push('discord.owner_id');
      p.log.success(
        `Paired: ${username} (${ownerId}) is keel's owner on Discord; saved as discord.owner_id.`,
      );
      if (shadowed) {
        p.log.warn(
          `KEEL_DISCORD_OWNER_ID is set in your environment and wins over the file: unset it, or set it to ${ownerId}.`,
        );
      }
      return;
    }
    const { code, message, fix } = outcome.error;
    p.log.error(`${code}: ${message}\nfix: ${fix}`);
    const next = await ask(ctx, () =>
      p.select<'again' | 'skip'>({
        message: 'Pair again?',
        options: [
          { value: 'again', label: 'Pair again, with a new code' },
          { value: 'skip', label: 'Skip pairing (`keel discord pair` does it later)' },
        ],
      }),
    );
    if (next === 'skip') return;
  }
}
/** Step 2: Discord, the bot token and pairing. */
export async function discordStep(ctx: Ctx): Promise<void> {
  const values = fileValues(ctx);
  const had = text(values['discord.token']);
  const owner = text(values['discord.owner_id']);
  type Choice = 'token' | 'pair' | 'skip';
  const options: { value: Choice; label: string; hint?: string }[] = had
    ? [
        {
          value: 'pair',
          label: owner ? `Pair again (the owner now: ${owner})` : 'Pair your Discord account',
          hint: `the bot token ${maskSecret(had)} is set`,
        },
        { value: 'token', label: 'Enter another bot token, then pair' },
        { value: 'skip', label: 'Skip: keep it as it is' },
      ]
    : [
        { value: 'token', label: 'Set it up: the bot token, then pairing' },
        { value: 'skip', label: 'Skip: no Discord' },
      ];
  const choice = await ask(ctx, () =>
    p.select<Choice>({
      message: 'Talk to keel from Discord DMs?',
      options,
      initialValue: had ? (owner ? 'skip' : 'pair') : 'token',
    }),
  );
  if (choice === 'skip') return;
  if (choice === 'token') {
    p.log.info(
      'At discord.com/developers/applications: New Application; then on its Bot page turn on Message Content Intent (leave Requires OAuth2 Code Grant off), Save Changes, then Reset Token and copy it.',
    );
    for (;;) {
      const token = await secret(ctx, 'discord.token', 'The bot token', undefined);
      if (!token) {
        p.log.info('No token given: Discord is left as it was.');
        return;
      }
      const changes = { 'discord.token': token };
      const verdict = await verify(
        ctx,
        'the token with Discord',
        () =>
          checkDiscordToken(candidate(ctx, changes), {
            signal: ctx.signal,
            timeoutMs: CHECK_TIMEOUT_MS,
          }),
        'Enter the token again (the same one works once the portal is fixed)',
      );
      if (verdict === 'again') continue;
      if (verdict === 'skip') return;
      save(ctx, changes);
      break;
    }
    const now = await ask(ctx, () =>
      p.confirm({
        message: 'Pair your Discord account now? (you add the bot to your server and DM it a code)',
      }),
    );
    if (!now) {
      p.log.info(
        'Not paired: `keel discord pair` does it later (`keel discord invite` prints the link that adds the bot to your server); until then keel answers nobody.',
      );
      return;
    }
  }
  await pairStep(ctx);
}
