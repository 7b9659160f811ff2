/**
 * Writes the README's Configuration table from the one schema (`SETTINGS` in
 * packages/host/src/config.ts), between its `config-table:start` and `config-table:end` markers.
 * Run `pnpm config-table` after changing a setting (it formats the README too);
 * packages/host/src/config-readme.test.ts fails while the two disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configTableMarkdown } from '../packages/host/src/config.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const text = readFileSync(README, 'utf8');
const start = /<!-- config-table:start[^>]*-->\n/.exec(text);
const end = text.indexOf('<!-- config-table:end -->');
if (!start || end < start.index) throw new Error('README.md has no config-table markers');
const from = start.index + start[0].length;
writeFileSync(README, `${text.slice(0, from)}\n${configTableMarkdown()}\n\n${text.slice(end)}`);
process.stdout.write('README.md: Configuration table written from SETTINGS\n');
