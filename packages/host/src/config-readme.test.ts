// The README's Configuration table is the one schema written out: this test fails while they
// disagree (`pnpm config-table` rewrites the table from SETTINGS).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_TABLE_HEADER, configTableRows, SETTING_NAMES, settingInfo } from './config.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The cells of a Markdown table row (`\|` inside a cell kept as `|`). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll('\\|', '|'));
}

/** The rows of the table between the README's config-table markers, header first. */
function readmeTable(text: string): string[][] {
  const start = text.search(/<!-- config-table:start/);
  const end = text.indexOf('<!-- config-table:end -->');
  if (start < 0 || end < start) throw new Error('README.md has no config-table markers');
  return text
    .slice(start, end)
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .map(cells)
    .filter((row) => !row.every((c) => /^-+$/.test(c)));
}

describe("the README's Configuration table", () => {
  it('finds rows in a Markdown table, escaped bars included', () => {
    expect(
      readmeTable(
        '<!-- config-table:start -->\n| a | b \\| c |\n| --- | --- |\n| `x` | y |\n<!-- config-table:end -->',
      ),
    ).toEqual([
      ['a', 'b | c'],
      ['`x`', 'y'],
    ]);
  });

  it('is the schema: every setting the owner sets, its key, variable, meaning and default', () => {
    const [header, ...rows] = readmeTable(readFileSync(README, 'utf8'));
    expect(header).toEqual([...CONFIG_TABLE_HEADER]);
    expect(rows).toEqual(configTableRows().map((r) => [...r]));
    // Control: every variable keel reads but its internal one is a row.
    const variables = rows.map((r) => r[1]);
    expect(variables).toEqual(
      SETTING_NAMES.filter((n) => !settingInfo(n).internal).map((n) => `\`${n}\``),
    );
  });
});
