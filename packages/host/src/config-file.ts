/**
 * keel's config file, `$KEEL_HOME/config.toml`: the settings of {@link SETTINGS} under their keys
 * (TOML, read and written with smol-toml), beneath the environment (a variable always wins).
 *
 * - {@link readConfig}: what every keel process calls: the environment and the file, checked
 *   through the one schema, as a {@link KeelConfig}.
 * - {@link readConfigFile} (strict) and {@link inspectConfigFile} (every problem listed, for
 *   `keel config`): the file's values, by key and by variable, with the line of each key.
 * - {@link setConfigValues}: checks new values through the same schema and writes them, merged
 *   into the file, atomically and with mode 0600; null removes a key.
 * - {@link describeConfig}: each setting's value and where it comes from (env, file, default).
 *
 * A damaged file (not TOML, an unknown key, a value of the wrong type or form) is `CONFIG_INVALID`
 * naming the file, the line and the key, with the fix; keel never falls back to defaults past it.
 * A file other users may change, or read while it holds a secret, is refused the same way.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { KeelError } from '@keel/errors';
import { parse, stringify, TomlError, type TomlTable, type TomlValue } from 'smol-toml';
import {
  CONFIG_KEYS,
  type ConfigKey,
  DEFAULTS,
  type FileOrigin,
  type KeelConfig,
  loadConfig,
  type RawSettings,
  replyFitsWindow,
  SETTING_BY_KEY,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  settingInfo,
} from './config.js';
import { ensureHome, readTextIfPresent } from './files.js';

/** The config file's name inside `KEEL_HOME`. */
export const CONFIG_FILE = 'config.toml';

/** The config file of the keel whose data folder is `home`: `<home>/config.toml`. */
export function configPath(home: string): string {
  return join(home, CONFIG_FILE);
}

/** A value as the file holds it: text, or a whole number for the settings that count. */
export type ConfigValue = string | number;

/** Settings by key, as the file holds them. */
export type ConfigValues = { [K in ConfigKey]?: ConfigValue };

/** Changes for {@link setConfigValues}: a value sets a key, null removes it. */
export type ConfigChanges = { [K in ConfigKey]?: ConfigValue | null };

/** Something wrong in the file besides its TOML syntax, at a key. */
export interface FileProblem {
  /** The dotted key, as written. */
  key: string;
  /** Its line (from 1), when found. */
  line: number | null;
  /** What is wrong and what is expected ("is not a setting keel knows; did you mean …"). */
  message: string;
}

/** What {@link inspectConfigFile} finds. */
export interface ConfigFile {
  /** The file, absolute. */
  path: string;
  /** Whether it exists (an absent file holds nothing; it is not an error). */
  exists: boolean;
  /** Its permission bits (e.g. 0o600); null when absent. */
  mode: number | null;
  /** Its settings by key, as written (the ones with a problem of type left out). */
  values: ConfigValues;
  /** The same by variable name, as text (what {@link loadConfig} takes as `file`). */
  settings: Record<string, string>;
  /** The line of each variable's key, and the path: for errors. */
  origin: FileOrigin;
  /** Unknown keys, values of the wrong type, and a mode open to other users. */
  problems: FileProblem[];
}

/** The permission bits others must not have: write always, read when the file holds a secret. */
const OTHERS_WRITE = 0o022;
const OTHERS_READ = 0o044;

/** The mode as `0644`. */
function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** The first line of smol-toml's message, without its prefix. */
function tomlReason(err: TomlError): string {
  const first = err.message.split('\n')[0] ?? err.message;
  return first.replace(/^Invalid TOML document:\s*/, '');
}

/** The file's text parsed, or `CONFIG_INVALID` naming the line and what is wrong there. */
function parseToml(text: string, path: string): TomlTable {
  try {
    return parse(text, { integersAsBigInt: 'asNeeded' }) as TomlTable;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const source = text.split(/\r?\n/)[err.line - 1]?.trim() ?? '';
    throw new KeelError(
      'CONFIG_INVALID',
      `${path} is not valid TOML at line ${err.line}, column ${err.column}: ${tomlReason(err)}${source ? ` (\`${source.slice(0, 80)}\`)` : ''}`,
      {
        cause: err,
        details: { file: path, line: err.line, column: err.column },
        fix: `Correct line ${err.line} of ${path} (each setting is key = "value" or key = 15 under its [section]), or move the file away and set again with \`keel config set\`.`,
      },
    );
  }
}

const BARE = '[A-Za-z0-9_-]+';
const QUOTED = `"(?:[^"\\\\]|\\\\.)*"|'[^']*'`;
const PART = `(?:${BARE}|${QUOTED})`;
const DOTTED = `${PART}(?:\\s*\\.\\s*${PART})*`;
const HEADER = new RegExp(`^\\s*\\[{1,2}\\s*(${DOTTED})\\s*\\]`);
const KEY_LINE = new RegExp(`^\\s*(${DOTTED})\\s*=`);
const PARTS = new RegExp(PART, 'g');

/** A dotted key as the parser reads it: the parts unquoted, joined by dots. */
function dotted(raw: string): string {
  return [...raw.matchAll(PARTS)].map((m) => m[0].replace(/^(["'])(.*)\1$/, '$2')).join('.');
}

/**
 * The line (from 1) of each key in a TOML text that parsed, found by reading its table headers and
 * `key =` lines (smol-toml does not report positions). A key inside an inline table gets its
 * parent's line (see {@link lineOf}).
 */
function keyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let table = '';
  let inString: '"""' | "'''" | null = null;
  text.split(/\r?\n/).forEach((line, i) => {
    if (inString) {
      if (line.split(inString).length % 2 === 0) inString = null;
      return;
    }
    const header = HEADER.exec(line);
    if (header?.[1]) {
      table = dotted(header[1]);
      if (!lines.has(table)) lines.set(table, i + 1);
      return;
    }
    const key = KEY_LINE.exec(line);
    if (key?.[1]) {
      const full = table ? `${table}.${dotted(key[1])}` : dotted(key[1]);
      if (!lines.has(full)) lines.set(full, i + 1);
      for (const quote of ['"""', "'''"] as const) {
        if (line.split(quote).length % 2 === 0) inString = quote;
      }
    }
  });
  return lines;
}

/** The line of `key`, or of the nearest enclosing table that has one; null when none. */
function lineOf(lines: Map<string, number>, key: string): number | null {
  for (let k = key; k; k = k.includes('.') ? k.slice(0, k.lastIndexOf('.')) : '') {
    const line = lines.get(k);
    if (line !== undefined) return line;
  }
  return null;
}

/** A TOML table (not an array, nor a date): smol-toml's tables have no prototype, ours do. */
function isTable(value: unknown): value is TomlTable {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

/** Levenshtein distance (Wagner–Fischer), for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * What an unknown key should be: the key of a variable written as a key, else the nearest known
 * key (by the whole key or its last part); null when nothing is close.
 */
function suggestKey(key: string): ConfigKey | null {
  const asVariable = key.toUpperCase() as SettingName;
  if (SETTING_NAMES.includes(asVariable)) {
    const k = settingInfo(asVariable).key;
    if (k !== null) return k as ConfigKey;
  }
  const leaf = (k: string) => k.slice(k.lastIndexOf('.') + 1);
  let best: { key: ConfigKey; d: number } | null = null;
  for (const k of CONFIG_KEYS) {
    const d = Math.min(distance(key, k), distance(leaf(key), leaf(k)) + 1);
    if (!best || d < best.d) best = { key: k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 4)) ? best.key : null;
}

/** "is not a setting keel knows; did you mean …?" for an unknown key. */
function unknownKey(key: string): string {
  const variable = SETTING_NAMES.includes(key.toUpperCase() as SettingName);
  const hint = suggestKey(key);
  if (variable && hint) return `is an environment variable; in this file it is ${hint}`;
  return `is not a setting keel knows${hint ? `; did you mean ${hint}?` : ''} (\`keel config list\` shows every key)`;
}

/** The value of setting `name` as text for the schema, or what is wrong with its type. */
function asText(name: SettingName, value: TomlValue): { text: string } | { problem: string } {
  const info = settingInfo(name);
  const leaf = info.key?.slice(info.key.lastIndexOf('.') + 1) ?? name;
  if (typeof value === 'string') return { text: value };
  if (info.toml === 'integer' && (typeof value === 'bigint' || Number.isInteger(value))) {
    return { text: String(value) };
  }
  if (info.toml === 'string' && (typeof value === 'number' || typeof value === 'bigint')) {
    return { problem: `${info.form}, written in quotes: ${leaf} = "${String(value)}"` };
  }
  return {
    problem: `${info.form} (${info.toml === 'integer' ? 'a whole number' : 'text in quotes'}, not ${Array.isArray(value) ? 'a list' : isTable(value) ? 'a table' : typeof value === 'object' ? 'a date' : typeof value})`,
  };
}

/** Every `key = value` of a parsed file that is not a table, with its dotted key. */
function leaves(table: TomlTable, prefix = ''): [string, TomlValue][] {
  return Object.entries(table).flatMap(([k, v]): [string, TomlValue][] => {
    const key = prefix ? `${prefix}.${k}` : k;
    return isTable(v) ? leaves(v, key) : [[key, v]];
  });
}

/** A parsed file's values and problems. */
function readTable(table: TomlTable, lines: Map<string, number>, path: string) {
  const values: Record<string, ConfigValue> = {};
  const settings: Record<string, string> = {};
  const origin: FileOrigin = { path, lines: {} };
  const problems: FileProblem[] = [];
  for (const [key, value] of leaves(table)) {
    const line = lineOf(lines, key);
    const name = SETTING_BY_KEY.get(key);
    if (!name) {
      problems.push({ key, line, message: unknownKey(key) });
      continue;
    }
    if (line !== null) origin.lines[name] = line;
    const text = asText(name, value);
    if ('problem' in text) {
      problems.push({ key, line, message: text.problem });
      continue;
    }
    settings[name] = text.text;
    values[key] = typeof value === 'bigint' ? Number(value) : (value as ConfigValue);
  }
  problems.sort(
    (a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER),
  );
  return { values: values as ConfigValues, settings, origin, problems };
}

/** The keys that hold a secret in `values`. */
function secretKeys(values: ConfigValues): ConfigKey[] {
  return (Object.keys(values) as ConfigKey[]).filter((k) => {
    const name = SETTING_BY_KEY.get(k);
    return name !== undefined && settingInfo(name).secret === true && values[k] !== '';
  });
}

/**
 * Reads `<home>/config.toml` and lists every problem in it instead of stopping at the first (for
 * `keel config`, which must show a broken file to mend it). An absent file holds nothing.
 *
 * @throws KeelError `CONFIG_INVALID` when the file is not TOML (naming the line and column);
 *   `FILE_UNREADABLE` when it cannot be read.
 */
export function inspectConfigFile(home: string): ConfigFile {
  const path = configPath(home);
  const text = readTextIfPresent(path);
  if (text === null) {
    return {
      path,
      exists: false,
      mode: null,
      values: {},
      settings: {},
      origin: { path, lines: {} },
      problems: [],
    };
  }
  const mode = statSync(path).mode & 0o777;
  const read = readTable(parseToml(text, path), keyLines(text), path);
  const problems = [...read.problems];
  if (process.platform !== 'win32') {
    const secrets = secretKeys(read.values);
    if (mode & OTHERS_WRITE) {
      problems.push({
        key: '',
        line: null,
        message: `other users can change it (mode ${octal(mode)}): run chmod 600 ${path}`,
      });
    } else if (mode & OTHERS_READ && secrets.length) {
      problems.push({
        key: '',
        line: null,
        message: `it holds secrets (${secrets.join(', ')}) and other users can read it (mode ${octal(mode)}): run chmod 600 ${path}`,
      });
    }
  }
  return { path, exists: true, mode, ...read, problems };
}

/** A file problem as an error names it: the key, the file and the line. */
function describeProblem(p: FileProblem, path: string): string {
  if (!p.key) return `${path}: ${p.message}`;
  return `${p.key} (in ${path}${p.line ? `, line ${p.line}` : ''}) ${p.message}`;
}

/**
 * Reads `<home>/config.toml` (see {@link inspectConfigFile}), refusing a file with any problem.
 * The values themselves are checked by {@link loadConfig} (`readConfig` does both).
 *
 * @throws KeelError `CONFIG_INVALID` naming the file, each line and key and the fix: not TOML, an
 *   unknown key, a value of the wrong type, a mode that lets other users change it or read its
 *   secrets. `FILE_UNREADABLE` when it cannot be read.
 */
export function readConfigFile(home: string): ConfigFile {
  const file = inspectConfigFile(home);
  if (file.problems.length === 0) return file;
  const first = file.problems[0] as FileProblem;
  const modeOnly = file.problems.every((p) => !p.key);
  throw new KeelError(
    'CONFIG_INVALID',
    file.problems.map((p) => describeProblem(p, file.path)).join('; '),
    {
      details: {
        file: file.path,
        keys: file.problems.filter((p) => p.key).map((p) => p.key),
      },
      fix: modeOnly
        ? `Run chmod 600 ${file.path} (only you should read or change it).`
        : `Correct${first.line ? ` line ${first.line} of` : ''} ${file.path}, or remove the key with \`keel config unset ${first.key}\`.`,
    },
  );
}

/** `KEEL_HOME` from `env`, checked and resolved (default `~/.keel`). */
export function homeFrom(env: RawSettings): string {
  return loadConfig({ KEEL_HOME: env.KEEL_HOME }).home;
}

/**
 * keel's configuration as every process reads it: `$KEEL_HOME/config.toml` beneath the
 * environment (a variable set in both wins), each value checked through the one schema.
 *
 * @param env - the process environment (or any name → value map).
 * @throws KeelError `CONFIG_INVALID` naming every bad setting: a variable, or a key with the file
 *   and line (see {@link readConfigFile} and {@link loadConfig}).
 */
export function readConfig(env: RawSettings): KeelConfig {
  const file = readConfigFile(homeFrom(env));
  return loadConfig(env, { file: file.settings, origin: file.origin });
}

/** A secret for display: its first and last four characters (`sk-a…f3c9`), or `****` if short. */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `${value.slice(0, 4)}…${value.slice(-4)}` : '****';
}

/** The variable a key (or a variable name, for convenience) names; null when none. */
export function settingFor(keyOrVariable: string): SettingName | null {
  const byKey = SETTING_BY_KEY.get(keyOrVariable);
  if (byKey) return byKey;
  const name = keyOrVariable as SettingName;
  return SETTING_NAMES.includes(name) && !settingInfo(name).internal ? name : null;
}

/** `CONFIG_INVALID` for a key keel does not know, listing the keys it does. */
function unknownKeyError(key: string): KeelError {
  const hint = suggestKey(key);
  return new KeelError(
    'CONFIG_INVALID',
    `${key} is not a setting keel knows${hint ? `; did you mean ${hint}?` : ''} The keys: ${CONFIG_KEYS.join(', ')}`,
    {
      details: { key, keys: CONFIG_KEYS },
      fix: `Use one of the keys listed above${hint ? ` (probably ${hint})` : ''}; nothing was written.`,
    },
  );
}

/**
 * A new value checked through the one schema: the value to write (the normalised text, or a whole
 * number for a setting that counts).
 *
 * @throws KeelError `CONFIG_INVALID` naming the key, the value (a secret: its length) and the form.
 */
function checked(key: string, name: SettingName, value: ConfigValue): ConfigValue {
  const info = settingInfo(name);
  const text = String(value).trim();
  const shown = info.secret ? `(${text.length} characters, not shown)` : `"${text}"`;
  const refuse = (why: string) =>
    new KeelError('CONFIG_INVALID', `${key} ${shown} ${why}`, {
      details: { key, variables: [name] },
      fix: `Give ${key} a value of that form (the README's Configuration describes each setting); nothing was written.`,
    });
  if (!text) {
    throw refuse(`is empty; \`keel config unset ${key}\` removes a setting`);
  }
  const parsed = SETTINGS[name].schema.safeParse(text);
  if (!parsed.success) throw refuse(info.form);
  const stored = (SETTINGS[name] as { stored?: (value: unknown) => string }).stored;
  if (stored) return stored(parsed.data);
  if (typeof parsed.data === 'number') return parsed.data;
  return typeof parsed.data === 'string' ? parsed.data : text;
}

/** The file's values in the order of {@link SETTINGS}, the keys it does not know after them. */
function canonical(table: TomlTable): TomlTable {
  const out: TomlTable = {};
  const put = (key: string, value: TomlValue) => {
    const parts = key.split('.');
    let at = out;
    for (const part of parts.slice(0, -1)) {
      if (!isTable(at[part])) at[part] = {};
      at = at[part] as TomlTable;
    }
    at[parts[parts.length - 1] as string] = value;
  };
  const all = new Map(leaves(table));
  for (const key of CONFIG_KEYS) {
    const value = all.get(key);
    if (value !== undefined) put(key, value);
    all.delete(key);
  }
  for (const [key, value] of all) put(key, value);
  return out;
}

/** Removes `key` (dotted) from `table`, and the tables it leaves empty. */
function remove(table: TomlTable, key: string): boolean {
  const [head, ...rest] = key.split('.');
  if (head === undefined || !(head in table)) return false;
  if (rest.length === 0) return delete table[head];
  const inner = table[head];
  if (!isTable(inner) || !remove(inner, rest.join('.'))) return false;
  if (Object.keys(inner).length === 0) delete table[head];
  return true;
}

/** The comment at the top of every file keel writes. */
const HEADER_COMMENT = `# keel's configuration. Each setting's environment variable wins over this file.
# \`keel config list\` shows every setting and where its value comes from; \`keel config set\`
# and \`keel config unset\` rewrite this file (comments are not kept). Mode 0600: it may hold keys.
`;

/**
 * Writes `text` to `path` atomically: a temporary file beside it (mode 0600 from the start),
 * flushed to disk, then renamed over `path`, so a reader sees the old file or the new one, never
 * half of one. The folder is made (mode 0700) when missing.
 */
function writeAtomically(path: string, text: string): void {
  const dir = dirname(path);
  ensureHome(dir);
  const tmp = join(dir, `.${CONFIG_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600); // whatever the umask
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw err;
  }
  try {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some systems cannot sync a folder; the rename is still atomic.
  }
}

/**
 * Sets (and, with null, removes) settings in `<home>/config.toml`, keeping the rest of the file's
 * values: each new value is checked through the one schema first (and `model.max_tokens` against
 * `model.context_tokens`), and on any error nothing is written. The file is written atomically,
 * mode 0600 (which also mends a file left open to others), with its keys in the order of
 * {@link SETTINGS}; comments are not kept. Removing a key keel does not know (a typo) is allowed.
 * When nothing changes (a value already set, a key already absent) the file is not touched.
 *
 * @returns the file as written (see {@link inspectConfigFile}).
 * @throws KeelError `CONFIG_INVALID` for an unknown key, a key that is set in the environment only
 *   (`KEEL_HOME`), a bad value (naming the key and the form), or a file that is not TOML (it is
 *   left as it is). `FILE_UNREADABLE` when the file cannot be read.
 */
export function setConfigValues(home: string, changes: ConfigChanges): ConfigFile {
  const path = configPath(home);
  const text = readTextIfPresent(path);
  const table = text === null ? {} : parseToml(text, path);
  const present = new Map(leaves(table));
  const updates: [string, ConfigValue | null][] = [];
  for (const [key, value] of Object.entries(changes) as [string, ConfigValue | null][]) {
    if (value === undefined) continue;
    const name = SETTING_BY_KEY.get(key);
    if (!name) {
      const variable = settingFor(key);
      if (variable) {
        throw new KeelError(
          'CONFIG_INVALID',
          settingInfo(variable).key
            ? `${key} is an environment variable; in the config file it is ${settingInfo(variable).key}`
            : `${key} is set in the environment only (the config file lives in KEEL_HOME)`,
          {
            details: { key },
            fix: settingInfo(variable).key
              ? `Use the key ${settingInfo(variable).key}; nothing was written.`
              : `Set ${key} in the environment (e.g. in your shell profile or the service's unit); nothing was written.`,
          },
        );
      }
      if (value === null && present.has(key)) {
        updates.push([key, null]);
        continue;
      }
      throw unknownKeyError(key);
    }
    updates.push([key, value === null ? null : checked(key, name, value)]);
  }
  const next = new Map(present);
  for (const [key, value] of updates) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const max = next.get('model.max_tokens');
  const ctx = next.get('model.context_tokens');
  const touched = updates.some(([k, v]) => v !== null && /^model\.(max|context)_tokens$/.test(k));
  if (touched && typeof max === 'number' && typeof ctx === 'number') {
    if (!replyFitsWindow(max, ctx)) {
      throw new KeelError(
        'CONFIG_INVALID',
        `model.max_tokens "${max}" must be at most a quarter of model.context_tokens "${ctx}" (the rest holds the conversation)`,
        {
          details: { keys: ['model.max_tokens', 'model.context_tokens'] },
          fix: 'Lower model.max_tokens or raise model.context_tokens; nothing was written.',
        },
      );
    }
  }
  const changed = updates.some(([k, v]) => (v === null ? present.has(k) : present.get(k) !== v));
  if (!changed) return inspectConfigFile(home); // nothing to write (e.g. unset of an absent key)
  for (const [key, value] of updates) {
    if (value === null) remove(table, key);
    else {
      remove(table, key);
      const parts = key.split('.');
      let at = table;
      for (const part of parts.slice(0, -1)) {
        if (!isTable(at[part])) at[part] = {};
        at = at[part] as TomlTable;
      }
      at[parts[parts.length - 1] as string] = value;
    }
  }
  writeAtomically(path, `${HEADER_COMMENT}\n${stringify(canonical(table))}`);
  return inspectConfigFile(home);
}

/** Where a setting's value comes from. */
export type SettingSourceName = 'env' | 'file' | 'default';

/** One setting as `keel config list` shows it. */
export interface SettingState {
  /** Its variable. */
  variable: SettingName;
  /** Its key in the file; null: environment only. */
  key: ConfigKey | null;
  /** The value in force, as given (text, or a whole number from the file); null: unset. */
  value: ConfigValue | null;
  /** Where {@link SettingState.value} comes from. */
  source: SettingSourceName;
  /** The file sets it too, and the environment wins. */
  overridesFile: boolean;
  /** A credential: mask it when shown. */
  secret: boolean;
  /** The form expected, when the value in force is not acceptable; else null. */
  problem: string | null;
}

/** What {@link describeConfig} returns. */
export interface ConfigDescription {
  home: string;
  file: ConfigFile;
  settings: SettingState[];
}

/**
 * Every setting (keel's internal ones aside) with its value in force and where it comes from:
 * the environment, the file, or the default ({@link DEFAULTS}). A bad value is shown with its
 * problem rather than refused, so a broken configuration can be seen and mended.
 *
 * @throws KeelError `CONFIG_INVALID` when `KEEL_HOME` is bad or the file is not TOML.
 */
export function describeConfig(env: RawSettings): ConfigDescription {
  const home = homeFrom(env);
  const file = inspectConfigFile(home);
  const settings = SETTING_NAMES.filter((name) => !settingInfo(name).internal).map(
    (variable): SettingState => {
      const info = settingInfo(variable);
      const key = info.key as ConfigKey | null;
      const fromEnv = env[variable]?.trim();
      const fromFile = key === null ? undefined : file.values[key];
      const inFile = fromFile !== undefined && String(fromFile).trim() !== '';
      const [value, source]: [ConfigValue | null, SettingSourceName] = fromEnv
        ? [fromEnv, 'env']
        : inFile
          ? [fromFile, 'file']
          : [defaultValue(variable), 'default'];
      const problem =
        source === 'default' || SETTINGS[variable].schema.safeParse(String(value).trim()).success
          ? null
          : info.form;
      return {
        variable,
        key,
        value,
        source,
        overridesFile: source === 'env' && inFile,
        secret: info.secret === true,
        problem,
      };
    },
  );
  return { home, file, settings };
}

/** A setting's default as `keel config` shows it (null: unset, or chosen at run time). */
function defaultValue(name: SettingName): ConfigValue | null {
  const value: unknown = DEFAULTS[settingInfo(name).setting];
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}
