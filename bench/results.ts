/**
 * Writing a benchmark's table to `bench/results/<name>-<date>.md`, so figures are kept beside the
 * code that produced them.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './lib.js';

/**
 * Writes a Markdown table (and notes) to `bench/results/<name>-<YYYY-MM-DD>.md`.
 *
 * @returns the file written.
 */
export function writeResults(
  name: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  notes: readonly string[] = [],
): string {
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const date = new Date().toISOString().slice(0, 10);
  const file = join(dir, `${name}-${date}.md`);
  // Cells as the formatter keeps them: no leading spaces (an indented sub-row gets "· "), padded.
  const cell = (c: string) => (c.startsWith('  ') ? `· ${c.trim()}` : c.trim());
  const table = [header, ...rows].map((r) => r.map(cell));
  const width = header.map((_, i) => Math.max(3, ...table.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(width[i]!)).join(' | ')} |`;
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const text = [
    `# ${name}, ${date}`,
    '',
    `Node ${process.version}, load average ${load} at the end.`,
    '',
    line(table[0]!),
    line(width.map((w) => '-'.repeat(w))),
    ...table.slice(1).map(line),
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
  writeFileSync(file, text);
  console.log(`\nwritten to ${file}`);
  return file;
}
