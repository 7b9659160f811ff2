/**
 * The README's Configuration table, written from `SETTINGS` (`pnpm config-table`), so the README
 * cannot drift from the schema (a test compares them).
 *
 * @module
 */
import { DEFAULTS } from './config.js';
import { SETTING_NAMES, settingInfo } from './settings.js';

/** One row of the README's Configuration table: key, variable, meaning, default (Markdown). */
export type ConfigTableRow = readonly [key: string, variable: string, meaning: string, def: string];

/** The header of the README's Configuration table. */
export const CONFIG_TABLE_HEADER: ConfigTableRow = ['key', 'variable', 'meaning', 'default'];

/**
 * The README's Configuration table, from {@link SETTINGS}: one row per setting the owner sets
 * (keel's internal variables aside), its key in `config.toml` (`—`: environment only), its
 * variable, its meaning and its default (the text given, else {@link DEFAULTS}' value).
 */
export function configTableRows(): ConfigTableRow[] {
  return SETTING_NAMES.filter((name) => !settingInfo(name).internal).map((name) => {
    const info = settingInfo(name);
    const value: unknown = DEFAULTS[info.setting];
    const def = info.defaultText ?? (value === null ? 'unset' : `\`${String(value)}\``);
    return [info.key === null ? '—' : `\`${info.key}\``, `\`${name}\``, info.meaning, def];
  });
}

/** {@link configTableRows} as a Markdown table (unpadded; the formatter pads it). */
export function configTableMarkdown(): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [
    line(CONFIG_TABLE_HEADER),
    line(CONFIG_TABLE_HEADER.map(() => '---')),
    ...configTableRows().map(line),
  ].join('\n');
}
