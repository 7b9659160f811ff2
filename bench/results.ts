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

/** `bench/results/<name>-<YYYY-MM-DD>[-<label>].<ext>`, the folder made when missing. */
function resultFile(name: string, ext: string, label?: string): string {
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const date = new Date().toISOString().slice(0, 10);
  return join(dir, `${name}-${date}${label ? `-${label}` : ''}.${ext}`);
}

/**
 * Writes a Markdown table (and notes) to `bench/results/<name>-<YYYY-MM-DD>[-<label>].md`; more
 * tables may follow the first (each with its header).
 *
 * @returns the file written.
 */
export function writeResults(
  name: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  notes: readonly string[] = [],
  label?: string,
  more: readonly { header: readonly string[]; rows: readonly (readonly string[])[] }[] = [],
): string {
  const date = new Date().toISOString().slice(0, 10);
  const file = resultFile(name, 'md', label);
  // Cells as the formatter keeps them: no leading spaces (an indented sub-row gets "· "), padded.
  const cell = (c: string) => (c.startsWith('  ') ? `· ${c.trim()}` : c.trim());
  const markdown = (h: readonly string[], rs: readonly (readonly string[])[]) => {
    const table = [h, ...rs].map((r) => r.map(cell));
    const width = h.map((_, i) => Math.max(3, ...table.map((r) => (r[i] ?? '').length)));
    const line = (cells: readonly string[]) =>
      `| ${cells.map((c, i) => c.padEnd(width[i]!)).join(' | ')} |`;
    return [
      line(table[0]!),
      line(width.map((w) => '-'.repeat(w))),
      ...table.slice(1).map(line),
      '',
    ];
  };
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const text = [
    `# ${name}, ${date}${label ? ` (${label})` : ''}`,
    '',
    `Node ${process.version}, load average ${load} at the end.`,
    '',
    ...markdown(header, rows),
    ...more.flatMap((t) => markdown(t.header, t.rows)),
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
  writeFileSync(file, text);
  console.log(`\nwritten to ${file}`);
  return file;
}

/**
 * Writes a run's per-question figures as JSON to `bench/results/<name>-<date>[-<label>].json`,
 * for pairing a later run against it (`--compare`).
 *
 * @returns the file written.
 */
export function writeQuestions(name: string, data: unknown, label?: string): string {
  const file = resultFile(name, 'json', label);
  writeFileSync(file, `${JSON.stringify(data)}\n`);
  console.log(`per-question figures written to ${file}`);
  return file;
}
