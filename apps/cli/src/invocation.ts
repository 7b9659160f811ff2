/**
 * How the owner types keel, for every hint that names a keel command. keel's hints and fixes are
 * written for keel installed as a command (`` `keel doctor` ``); a clone has no `keel` on PATH, so
 * when this keel runs from a clone its hints name the command that runs it there instead:
 *
 * - installed (the bundle is not inside a keel repository), or a clone whose bundle is the `keel`
 *   found on PATH (linked): `keel`;
 * - started by a package manager from the clone (`npm start`, `pnpm keel`, `npm run keel`: the
 *   script that ran names the bundle): `pnpm keel` when pnpm runs it or is on PATH (and setup did
 *   not have to fall back to npx), else `npm run -s keel --` (`-s`: npm's banner would go to
 *   stdout and break `--json`);
 * - `node apps/cli/bundle/keel.mjs` typed by hand: that command (the path as from the current
 *   folder when the bundle is below it, else absolute).
 *
 * {@link asTyped} rewrites a text's commands: a keel command in backticks (`` `keel …` ``, the
 * form every fix uses for a command) and a usage line (`Usage: keel …`). Prose that names keel or
 * its services (`keel think is running`) is left as it is. The CLI applies it where it prints its
 * own hints: errors (text and `--json`), help and usage, `keel doctor`, the terminal's banner and
 * its errors. Nothing the owner said or a model answered goes through it.
 *
 * Only `node:fs` and `node:path`: `keel --help` loads this.
 *
 * @module
 */
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** What {@link keelCommand} looks at (default: this process). */
export interface Started {
  /** The script node ran (`process.argv[1]`). */
  script?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  platform?: NodeJS.Platform;
}

/**
 * The repository root when `script` is a clone's bundle (`<root>/apps/cli/bundle/keel.mjs` with
 * `<root>/pnpm-workspace.yaml`), else null.
 */
export function cloneRoot(script: string): string | null {
  const bundle = dirname(script);
  const cli = dirname(bundle);
  const root = dirname(dirname(cli));
  const shaped =
    bundle.endsWith(`${sep}bundle`) && cli.endsWith(`${sep}apps${sep}cli`) && root !== cli;
  return shaped && existsSync(join(root, 'pnpm-workspace.yaml')) ? root : null;
}

/** Each file named `name` in a PATH folder (absolute folders only). */
function onPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  const names = platform === 'win32' ? [`${name}.cmd`, `${name}.exe`, name] : [name];
  const found: string[] = [];
  for (const dir of (env[key] ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const n of names) {
      const file = join(dir, n);
      if (existsSync(file)) found.push(file);
    }
  }
  return found;
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** See the module description. */
export function keelCommand(started: Started = {}): string {
  const {
    script = process.argv[1],
    env = process.env,
    cwd = process.cwd(),
    platform = process.platform,
  } = started;
  const self = script ? real(script) : null;
  const root = self ? cloneRoot(self) : null;
  if (!self || !root) return 'keel';
  if (onPath('keel', env, platform).some((file) => real(file) === self)) return 'keel';
  const lifecycle = env.npm_lifecycle_script ?? '';
  if (/apps[\\/]cli[\\/]bundle[\\/]keel\.mjs/.test(lifecycle)) {
    if ((env.npm_config_user_agent ?? '').startsWith('pnpm/')) return 'pnpm keel';
    const viaNpx = existsSync(join(root, 'node_modules', '.keel-pnpm-via-npx'));
    return !viaNpx && onPath('pnpm', env, platform).length > 0 ? 'pnpm keel' : 'npm run -s keel --';
  }
  const rel = relative(cwd, self);
  const path = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : self;
  return `node ${/\s/.test(path) ? JSON.stringify(path) : path}`;
}

let cached: string | undefined;

/** {@link keelCommand} of this process, worked out once. */
export function thisKeel(): string {
  cached ??= keelCommand();
  return cached;
}

/**
 * `text` with each keel command it names (`` `keel …` ``, `` `nohup keel …` ``, `Usage: keel …`) as
 * `command` (default:
 * how this keel was started); unchanged when that is `keel`. See the module description.
 */
export function asTyped(text: string, command: string = thisKeel()): string {
  if (command === 'keel' || !text.includes('keel')) return text;
  const bare = command.replace(/ --$/, '');
  return text
    .replace(/`(nohup )?keel(?=`)/g, (_, nohup = '') => `\`${nohup}${bare}`)
    .replace(/`(nohup )?keel(?=\s)/g, (_, nohup = '') => `\`${nohup}${command}`)
    .replace(/\bUsage: keel(?=\s|$)/gm, `Usage: ${command}`);
}

/** `value` with {@link asTyped} applied to every string under a key named `fix`, at any depth. */
export function fixesAsTyped<T>(value: T, command: string = thisKeel()): T {
  if (command === 'keel') return value;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object' || v instanceof Date) return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [
        k,
        k === 'fix' && typeof x === 'string' ? asTyped(x, command) : walk(x),
      ]),
    );
  };
  return walk(value) as T;
}
