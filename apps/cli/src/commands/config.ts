/**
 * `keel config list|get|set|unset`: the settings in `$KEEL_HOME/config.toml`, through the one
 * schema of `@keel/host` (the same checks and `CONFIG_INVALID` as every process that reads them).
 * `list` says where each value comes from (env, file, default); secrets are masked unless
 * `--show-secrets`. These verbs need no configuration that loads: they are how a bad one is mended.
 * A key may also be given as its environment variable (`KEEL_TZ` for `time_zone`).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { KeelError } from '@keel/errors';
import {
  CONFIG_KEYS,
  type ConfigDescription,
  type ConfigFile,
  type ConfigValue,
  configPath,
  describeConfig,
  homeFrom,
  maskSecret,
  type SettingState,
  setConfigValues,
  settingFor,
  settingInfo,
} from '@keel/host';
import type { Command } from 'commander';
import { action, EXIT, emit, wantsJson } from '../output.js';

/** How a value is shown: masked when it is a secret (unless asked), `null` when unset. */
function shown(value: ConfigValue | null, secret: boolean, showSecrets: boolean) {
  if (value === null) return null;
  return secret && !showSecrets ? maskSecret(String(value)) : value;
}

/** One setting as `--json` prints it (snake_case). */
function settingJson(s: SettingState, showSecrets: boolean) {
  return {
    key: s.key,
    variable: s.variable,
    value: shown(s.value, s.secret, showSecrets),
    source: s.source,
    overrides_file: s.overridesFile,
    secret: s.secret,
    masked: s.secret && !showSecrets && s.value !== null,
    problem: s.problem,
  };
}

/** The file as `--json` prints it. */
function fileJson(file: ConfigFile) {
  return {
    path: file.path,
    exists: file.exists,
    mode: file.mode === null ? null : `0${file.mode.toString(8).padStart(3, '0')}`,
    problems: file.problems.map((p) => ({ key: p.key || null, line: p.line, message: p.message })),
  };
}

/** A file problem as a line of text. */
function problemLine(p: ConfigFile['problems'][number]): string {
  return p.key ? `${p.key}${p.line ? ` (line ${p.line})` : ''} ${p.message}` : p.message;
}

/** The setting a key (or variable) names, or `CONFIG_INVALID` listing the keys. */
function known(key: string): NonNullable<ReturnType<typeof settingFor>> {
  const name = settingFor(key);
  if (name) return name;
  throw new KeelError(
    'CONFIG_INVALID',
    `${key} is not a setting keel knows. The keys: ${CONFIG_KEYS.join(', ')}`,
    {
      details: { key, keys: CONFIG_KEYS },
      fix: 'Use one of the keys listed above (`keel config list` shows each with its value).',
    },
  );
}

/** The human `list`: a header, one line per setting, then every problem. */
function listText(d: ConfigDescription, showSecrets: boolean): string {
  const { file } = d;
  const head = file.exists
    ? `config file: ${file.path} (mode ${fileJson(file).mode})`
    : `config file: ${file.path} (none yet: \`keel config set <key> <value>\` makes it)`;
  const rows = d.settings.map((s) => {
    const value = shown(s.value, s.secret, showSecrets);
    const source = s.overridesFile ? 'env (overrides the file)' : s.source;
    return [s.key ?? s.variable, value === null ? '(unset)' : String(value), source] as const;
  });
  const keyWidth = Math.max(...rows.map((r) => r[0].length));
  const valueWidth = Math.min(48, Math.max(...rows.map((r) => r[1].length)));
  const problems = [
    ...file.problems.map((p) => `problem: ${problemLine(p)}`),
    ...d.settings
      .filter((s) => s.problem)
      .map((s) => `problem: ${s.key ?? s.variable} (${s.source}) ${s.problem}`),
  ];
  return [
    head,
    ...rows.map(([k, v, src]) => `${k.padEnd(keyWidth)}  ${v.padEnd(valueWidth)}  ${src}`),
    ...problems,
  ].join('\n');
}

/** The setting named `key` in a description. */
function stateOf(d: ConfigDescription, key: string): SettingState {
  const name = known(key);
  const state = d.settings.find((s) => s.variable === name);
  if (!state) throw new KeelError('CONFIG_INVALID', `${key} is set by keel itself`);
  return state;
}

/** `value`, or the standard input when it is `-` (keeps a key out of the shell's history). */
function valueArg(value: string): string {
  return value === '-' ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : value;
}

/** A note on stderr when the environment hides the file's value of `s`. */
function envNote(s: SettingState): void {
  if (s.source === 'env') {
    process.stderr.write(
      `note: ${s.variable} is set in the environment and wins over the file (unset it to use the file's value)\n`,
    );
  }
}

/** Registers `keel config list|get|set|unset`, reading `env` (default `process.env`). */
export function registerConfigCommand(
  program: Command,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const config = program
    .command('config')
    .description('show and change the settings in $KEEL_HOME/config.toml (list, get, set, unset)');

  config
    .command('list')
    .description('every setting, its value and where it comes from (env, file, default)')
    .option('--show-secrets', 'show API keys and tokens in full')
    .action(
      action((opts: { showSecrets?: boolean }, cmd: Command) => {
        const d = describeConfig(env);
        const reveal = Boolean(opts.showSecrets);
        emit(
          wantsJson(cmd),
          {
            home: d.home,
            file: fileJson(d.file),
            settings: d.settings.map((s) => settingJson(s, reveal)),
          },
          () => listText(d, reveal),
        );
        const bad = d.file.problems.length > 0 || d.settings.some((s) => s.problem);
        return bad ? EXIT.failed : EXIT.ok;
      }),
    );

  config
    .command('get <key>')
    .description('the value in force of one setting (a key such as think.night_hour)')
    .option('--show-secrets', 'show an API key or token in full')
    .action(
      action((key: string, opts: { showSecrets?: boolean }, cmd: Command) => {
        const d = describeConfig(env);
        const s = stateOf(d, key);
        const reveal = Boolean(opts.showSecrets);
        emit(wantsJson(cmd), { file: d.file.path, ...settingJson(s, reveal) }, () => {
          const value = shown(s.value, s.secret, reveal);
          return value === null ? '' : String(value);
        });
        if (!wantsJson(cmd)) {
          const name = s.key ?? s.variable;
          if (s.value === null) {
            const text = settingInfo(s.variable).defaultText ?? 'unset';
            process.stderr.write(`${name} is not set (default: ${text.replaceAll('`', '')})\n`);
          }
          if (s.problem) process.stderr.write(`problem: ${name} (${s.source}) ${s.problem}\n`);
        }
        return EXIT.ok;
      }),
    );

  config
    .command('set <key> <value>')
    .description('check a value and write it to the config file (value - reads it from stdin)')
    .action(
      action((key: string, raw: string, _opts: unknown, cmd: Command) => {
        const name = settingFor(key);
        const fileKey = (name && settingInfo(name).key) ?? key;
        const home = homeFrom(env);
        const file = setConfigValues(home, { [fileKey]: valueArg(raw) });
        const s = stateOf(describeConfig(env), fileKey);
        const written = file.values[fileKey as keyof typeof file.values] ?? null;
        const value = shown(written, s.secret, false);
        emit(
          wantsJson(cmd),
          {
            key: fileKey,
            variable: s.variable,
            value,
            file: file.path,
            overridden_by_env: s.source === 'env',
          },
          () => `${fileKey} = ${String(value)} (in ${file.path})`,
        );
        envNote(s);
        for (const p of file.problems) {
          process.stderr.write(`problem left in the file: ${problemLine(p)}\n`);
        }
        return EXIT.ok;
      }),
    );

  config
    .command('unset <key>')
    .description('remove a setting from the config file (its default, or its variable, applies)')
    .action(
      action((key: string, _opts: unknown, cmd: Command) => {
        const name = settingFor(key);
        const fileKey = (name && settingInfo(name).key) ?? key;
        const home = homeFrom(env);
        const before = describeConfig(env).file;
        const had = fileKey in before.values || before.problems.some((p) => p.key === fileKey);
        const file = setConfigValues(home, { [fileKey]: null });
        const now = name ? stateOf(describeConfig(env), fileKey) : null;
        emit(
          wantsJson(cmd),
          {
            key: fileKey,
            removed: had,
            file: configPath(home),
            now: now && {
              value: shown(now.value, now.secret, false),
              source: now.source,
            },
          },
          () =>
            had
              ? `removed ${fileKey} from ${file.path}${now ? `; now ${now.value === null ? 'unset' : String(shown(now.value, now.secret, false))} (${now.source})` : ''}`
              : `${fileKey} was not set in ${file.path}`,
        );
        if (now) envNote(now);
        return EXIT.ok;
      }),
    );
}
