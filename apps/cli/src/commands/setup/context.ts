/**
 * What the steps of `keel setup` share: the context, asking (Ctrl-C stops), saving each answer
 * at once, and the live check with its try again / save anyway / skip.
 *
 * @module
 */
import * as p from '@clack/prompts';
import { KeelError } from '@keel/errors';
import {
  type CheckFinding,
  type ConfigChanges,
  type ConfigKey,
  type ConfigValues,
  INTERNAL_FIX,
  inspectConfigFile,
  type KeelConfig,
  loadConfig,
  maskSecret,
  SETTING_BY_KEY,
  setConfigValues,
  settingInfo,
} from '@keel/host';

/** What the steps share. */
export interface Ctx {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C while no question is asked (a check, the pairing, a download). */
  signal: AbortSignal;
  /** The keys saved in this run, in order. */
  saved: ConfigKey[];
  /** Models Ollama listed in the model step, when it was asked. */
  ollamaModels: string[] | null;
  /** What the embedder step found or did, for the summary. */
  embedder: string;
  /** What the services step did, for the summary. */
  services: string;
}

/** Setup stopped by the owner (Ctrl-C, Escape). */
export function stopped(): KeelError {
  return new KeelError('CANCELLED', 'setup was stopped', { details: { setup: true } });
}

export function isStop(err: unknown): boolean {
  return KeelError.isInstance(err) && err.code === 'CANCELLED';
}

/** The answer to a prompt, or {@link stopped} when the owner cancelled it. */
export async function ask<T>(
  ctx: Ctx,
  prompt: () => Promise<T | symbol>,
): Promise<Exclude<T, symbol>> {
  if (ctx.signal.aborted) throw stopped();
  const answer = await prompt();
  if (p.isCancel(answer) || ctx.signal.aborted) throw stopped();
  return answer as Exclude<T, symbol>;
}

/** The file's values as they are now. */
export function fileValues(ctx: Ctx): ConfigValues {
  return inspectConfigFile(ctx.home).values;
}

export const text = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;

/**
 * A `validate` for a prompt that sets `key`: the setting's own check (the one schema), as the
 * form it expects; empty input passes (it keeps the current value or skips).
 */
export function validFor(key: ConfigKey) {
  const name = SETTING_BY_KEY.get(key)!;
  return (value: string | undefined): string | undefined => {
    const v = value?.trim();
    if (!v) return undefined;
    try {
      loadConfig({ [name]: v });
      return undefined;
    } catch {
      return `${key} ${settingInfo(name).form}`;
    }
  };
}

/**
 * The configuration as it would be with `changes` saved: the environment and the file as they
 * are, with `changes` over both (for checking a value before it is written).
 */
export function candidate(ctx: Ctx, changes: ConfigValues): KeelConfig {
  const file = inspectConfigFile(ctx.home);
  const env: Record<string, string | undefined> = { ...ctx.env };
  for (const [key, value] of Object.entries(changes)) {
    const name = SETTING_BY_KEY.get(key);
    if (name && value !== undefined) env[name] = String(value);
  }
  return loadConfig(env, { file: file.settings, origin: file.origin });
}

/**
 * Saves `changes` in the config file (checked, mode 0600) and says when the environment sets one
 * of them too (the variable wins over the file).
 */
export function save(ctx: Ctx, changes: ConfigChanges): void {
  const before = fileValues(ctx) as Record<string, unknown>;
  const wanted = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (wanted.length === 0) return;
  const written = setConfigValues(ctx.home, Object.fromEntries(wanted) as ConfigChanges);
  const after = written.values as Record<string, unknown>;
  for (const [key, value] of wanted) {
    const changed = before[key] !== after[key];
    if (changed && !ctx.saved.includes(key as ConfigKey)) ctx.saved.push(key as ConfigKey);
    const name = SETTING_BY_KEY.get(key);
    const inEnv = name ? ctx.env[name]?.trim() : undefined;
    if (name && inEnv && value !== null && inEnv !== String(value)) {
      p.log.warn(
        `${name} is set in your environment and wins over ${key} in config.toml: unset it${settingInfo(name).secret ? '' : ` or set it to ${value}`}.`,
      );
    }
  }
}

/** A check's outcome as setup treats it. */
export type Verdict = 'save' | 'again' | 'skip';

/**
 * Runs a live check and says what it found; on a failure prints the code and the fix and asks
 * what to do: try again, save anyway, or skip.
 */
export async function verify(
  ctx: Ctx,
  what: string,
  run: () => Promise<CheckFinding>,
  againLabel: string,
): Promise<Verdict> {
  p.log.step(`Checking ${what}…`);
  let found: CheckFinding;
  try {
    found = await run();
  } catch (err) {
    found = KeelError.isInstance(err)
      ? { status: 'fail', code: err.code, detail: err.message, fix: err.fix }
      : { status: 'fail', code: 'INTERNAL', detail: String(err), fix: INTERNAL_FIX };
  }
  if (ctx.signal.aborted) throw stopped();
  switch (found.status) {
    case 'ok':
      p.log.success(found.detail);
      return 'save';
    case 'skip':
      p.log.info(found.detail);
      return 'save';
    case 'warn':
      p.log.warn(`${found.code}: ${found.detail}\nfix: ${found.fix}`);
      return 'save';
    case 'fail':
      p.log.error(`${found.code}: ${found.detail}\nfix: ${found.fix}`);
      return ask(ctx, () =>
        p.select<Verdict>({
          message: 'What now?',
          options: [
            { value: 'again', label: againLabel },
            { value: 'save', label: 'Save it anyway' },
            { value: 'skip', label: 'Skip this step (nothing more is saved)' },
          ],
        }),
      );
  }
}

/** A secret asked masked: Enter keeps the current one (`had`), or skips when there is none. */
export async function secret(ctx: Ctx, key: ConfigKey, what: string, had: string | undefined) {
  const typed = await ask(ctx, () =>
    p.password({
      message: had ? `${what} (Enter keeps ${maskSecret(had)})` : `${what} (Enter skips)`,
      validate: validFor(key),
    }),
  );
  return typed.trim() || had || '';
}

/**
 * A value asked with its current one as the default (Enter keeps it); `whose` says where that
 * default comes from when it is not the file's (`this machine's`).
 */
export function value(
  ctx: Ctx,
  key: ConfigKey,
  message: string,
  current: string,
  whose?: string,
): Promise<string> {
  return ask(ctx, () =>
    p.text({
      message: `${message} (Enter: ${current}${whose ? `, ${whose}` : ''})`,
      placeholder: current,
      defaultValue: current,
      validate: validFor(key),
    }),
  ).then((v) => v.trim() || current);
}
