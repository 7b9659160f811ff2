/**
 * The file tools: `read_file`, `write_file` and `list_files`, confined to the folders the owner
 * allows ({@link confineExisting}, {@link confineWritable}).
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { KeelError } from '@keel/errors';
import { z } from 'zod';
import type { Tool, ToolResult } from '../contract.js';
import { decodeCut, describeFileType, formatBytes, KIB, looksBinary, MIB } from './bytes.js';
import { confineExisting, confineWritable, hiddenInListings, lexicalPath } from './confine.js';
import { definedOnly, displayPath } from './paths.js';

/** What the file tools need from the host. */
export interface FileToolsOptions {
  /**
   * The folders the tools may touch; the first is the workspace (the host passes
   * `$KEEL_HOME/workspace`), against which relative paths resolve. At least one.
   */
  roots: readonly string[];
  /** Bytes `read_file` returns at most (the head of a larger file). Default {@link FILE_DEFAULTS}.maxReadBytes. */
  maxReadBytes?: number;
  /** Bytes `write_file` writes at most (UTF-8). Default {@link FILE_DEFAULTS}.maxWriteBytes. */
  maxWriteBytes?: number;
  /** The deepest `list_files` goes below the folder asked for. Default {@link FILE_DEFAULTS}.maxListDepth. */
  maxListDepth?: number;
  /** Entries `list_files` shows at most. Default {@link FILE_DEFAULTS}.maxListEntries. */
  maxListEntries?: number;
  /** The owner's home folder, only to show paths as `~/…` in summaries. */
  home?: string;
  /**
   * Places the tools never reach, even inside a root: the host passes keel's data folder and its
   * MCP server list, so a root such as `~` cannot lead the model to keel's keys, its database or
   * its own permissions. The workspace inside one stays reachable. Default none.
   */
  guarded?: readonly string[];
}

/** The most of a write's content its approval question shows, in characters. */
export const WRITE_SHOWN_CHARS = 1_000;

/**
 * What the owner reads when asked to approve a write: the size, the path and the content (all of
 * it up to {@link WRITE_SHOWN_CHARS}; beyond, its start and how much is not shown).
 */
export function writeSummary(path: string, content: string): string {
  const size = formatBytes(Buffer.byteLength(content));
  if (content.length <= WRITE_SHOWN_CHARS) return `write ${size} to ${path}:\n${content}`;
  return `write ${size} to ${path}, starting:\n${content.slice(0, WRITE_SHOWN_CHARS)}\n(${content.length - WRITE_SHOWN_CHARS} more characters not shown)`;
}

/** The defaults of {@link FileToolsOptions}. */
export const FILE_DEFAULTS = {
  /** 256 KiB. */
  maxReadBytes: 256 * KIB,
  /** 1 MiB. */
  maxWriteBytes: 1 * MIB,
  /** 3 levels below the folder asked for. */
  maxListDepth: 3,
  /** 500 entries. */
  maxListEntries: 500,
  guarded: [] as readonly string[],
} as const;

type Settings = Required<Omit<FileToolsOptions, 'home'>> & Pick<FileToolsOptions, 'home'>;

const readInput = z.object({
  path: z
    .string()
    .min(1)
    .describe('The file: relative to the workspace, or absolute inside an allowed folder.'),
});
const writeInput = z.object({
  path: z
    .string()
    .min(1)
    .describe('The file: relative to the workspace, or absolute inside an allowed folder.'),
  content: z.string().describe('The whole new content (UTF-8); an existing file is replaced.'),
});
const listInput = z.object({
  path: z.string().min(1).default('.').describe('The folder; default the workspace.'),
  depth: z.number().int().min(1).default(1).describe('Levels to show: 1 is the folder itself.'),
});

/** The input of `read_file`. */
export type ReadFileInput = z.infer<typeof readInput>;
/** The input of `write_file`. */
export type WriteFileInput = z.infer<typeof writeInput>;
/** The input of `list_files`. */
export type ListFilesInput = z.infer<typeof listInput>;

/**
 * Makes `[read_file, write_file, list_files]`. Paths are confined to `options.roots` (refusals
 * name the allowed folders); binary files (NUL bytes or invalid UTF-8 in the first 8 KiB) are
 * named with their size and type, not read; `write_file` writes atomically (a temporary file in
 * the same folder, then a rename) and creates missing parent folders inside the root.
 *
 * @throws KeelError `INVALID_INPUT` when `roots` is empty.
 */
export function fileTools(
  options: FileToolsOptions,
): [Tool<ReadFileInput>, Tool<WriteFileInput>, Tool<ListFilesInput>] {
  if (options.roots.length === 0) {
    throw new KeelError(
      'INVALID_INPUT',
      'The file tools need at least one allowed folder (roots).',
    );
  }
  const settings: Settings = { ...FILE_DEFAULTS, ...definedOnly(options), roots: options.roots };
  return [readFileTool(settings), writeFileTool(settings), listFilesTool(settings)];
}

function shown(settings: Settings, path: string): string {
  return displayPath(lexicalPath(settings.roots, path), settings.home);
}

function readFileTool(settings: Settings): Tool<ReadFileInput> {
  return {
    name: 'read_file',
    description:
      `Reads a text file inside the allowed folders (${settings.roots.join(', ')}); relative paths start at the workspace. ` +
      `Returns at most the first ${formatBytes(settings.maxReadBytes)}; binary files are named, not read.`,
    input: readInput,
    effect: 'read',
    origin: 'builtin',
    exactKey: (input) => lexicalPath(settings.roots, input.path),
    summary: (input) => `read ${shown(settings, input.path)}`,
    async execute(input, context) {
      if (context.signal.aborted) return cancelled();
      const confined = await confineExisting(settings.roots, input.path, settings.guarded);
      if (!confined.ok) return failed(confined.reason, confined.exit);
      return readConfined(confined.path, input.path, settings.maxReadBytes);
    },
  };
}

/** Reads the head of a confined file, or names it when it is binary. */
async function readConfined(path: string, asked: string, maxBytes: number): Promise<ToolResult> {
  try {
    const info = await stat(path);
    if (info.isDirectory())
      return failed(`${asked} is a folder; list it with list_files.`, 'not_a_file');
    if (!info.isFile()) return failed(`${asked} is not a regular file.`, 'not_a_file');
    const handle = await open(path, 'r');
    let head: Buffer;
    try {
      const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    if (looksBinary(head)) {
      return {
        content: `${asked} is a binary ${describeFileType(path)} of ${formatBytes(info.size)} (${info.size} bytes); not read.`,
        isError: false,
        exit: 'binary',
      };
    }
    if (info.size === 0) return { content: `${asked} is empty.`, isError: false, exit: 'ok' };
    const text = decodeCut(head);
    if (info.size <= maxBytes) return { content: text, isError: false, exit: 'ok' };
    return {
      content: `[${asked} is ${formatBytes(info.size)}; the first ${formatBytes(head.length)} follow]\n${text}`,
      isError: false,
      exit: 'cut',
    };
  } catch (error) {
    return failed(`${asked} cannot be read: ${messageOf(error)}`, 'error');
  }
}

function writeFileTool(settings: Settings): Tool<WriteFileInput> {
  return {
    name: 'write_file',
    description:
      `Writes a text file inside the allowed folders (${settings.roots.join(', ')}), replacing it if it exists; ` +
      `relative paths start at the workspace; missing folders are created. At most ${formatBytes(settings.maxWriteBytes)}.`,
    input: writeInput,
    effect: 'write',
    origin: 'builtin',
    // "Exactly this" is this content at this path: a grant never covers other content.
    exactKey: (input) =>
      `${lexicalPath(settings.roots, input.path)} sha256:${createHash('sha256').update(input.content).digest('hex')}`,
    summary: (input) => writeSummary(shown(settings, input.path), input.content),
    async execute(input, context) {
      if (context.signal.aborted) return cancelled();
      const bytes = Buffer.byteLength(input.content);
      if (bytes > settings.maxWriteBytes) {
        return failed(
          `Refused: the content is ${formatBytes(bytes)}, above the ${formatBytes(settings.maxWriteBytes)} write_file accepts.`,
          'too_large',
        );
      }
      const confined = await confineWritable(settings.roots, input.path, settings.guarded);
      if (!confined.ok) return failed(confined.reason, confined.exit);
      try {
        const replaced = await writeAtomically(confined.path, input.content);
        return {
          content: `${replaced ? 'Replaced' : 'Created'} ${confined.path} (${bytes} bytes).`,
          isError: false,
          exit: 'ok',
        };
      } catch (error) {
        return failed(`${input.path} cannot be written: ${messageOf(error)}`, 'error');
      }
    },
  };
}

/**
 * Writes `content` to a temporary file beside `path` and renames it over `path` (so a reader sees
 * the old or the new file, never half of one); an existing file's mode is kept.
 *
 * @returns whether a file was replaced.
 */
async function writeAtomically(path: string, content: string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const existing = await stat(path).catch(() => null);
  if (existing?.isDirectory()) throw new Error('it is a folder');
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { flag: 'wx' });
    if (existing) await chmod(temp, existing.mode & 0o7777);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  return existing !== null;
}

function listFilesTool(settings: Settings): Tool<ListFilesInput> {
  return {
    name: 'list_files',
    description:
      `Lists a folder inside the allowed folders (${settings.roots.join(', ')}): names, kinds and sizes; ` +
      `depth up to ${settings.maxListDepth}, at most ${settings.maxListEntries} entries.`,
    input: listInput,
    // Input mode: `path` and `depth` have defaults, so the model may leave them out.
    inputSchema: z.toJSONSchema(listInput, { io: 'input' }),
    effect: 'read',
    origin: 'builtin',
    exactKey: (input) => lexicalPath(settings.roots, input.path),
    summary: (input) => `list ${shown(settings, input.path)}`,
    async execute(input, context) {
      if (context.signal.aborted) return cancelled();
      const confined = await confineExisting(settings.roots, input.path, settings.guarded);
      if (!confined.ok) return failed(confined.reason, confined.exit);
      const depth = Math.min(input.depth, settings.maxListDepth);
      try {
        const info = await stat(confined.path);
        if (!info.isDirectory())
          return failed(`${input.path} is not a folder; read it with read_file.`, 'not_a_folder');
        const lines: string[] = [];
        const hidden = await hiddenInListings(settings.guarded, settings.roots[0]);
        const full = await listInto(
          confined.path,
          confined.path,
          depth,
          settings.maxListEntries,
          lines,
          hidden,
        );
        const head = `${confined.path}: ${lines.length} entr${lines.length === 1 ? 'y' : 'ies'}${full ? '' : ` (stopped at ${settings.maxListEntries})`}`;
        return { content: [head, ...lines].join('\n'), isError: false, exit: full ? 'ok' : 'cut' };
      } catch (error) {
        return failed(`${input.path} cannot be listed: ${messageOf(error)}`, 'error');
      }
    },
  };
}

/**
 * Appends one line per entry (`dir  -  name/`, `file  1.2 KiB  name`, `link  -  name`) of
 * `folder`, going `depth - 1` levels further down (symlinks are not followed). An entry in one of
 * keel's own places (its data folder, its MCP server list) is left out, name and all, as reading
 * it would be refused; the workspace inside the data folder is listed ({@link hiddenInListings}).
 *
 * @returns false when the entry cap stopped the listing.
 */
async function listInto(
  base: string,
  folder: string,
  depth: number,
  cap: number,
  lines: string[],
  hidden: (path: string) => boolean,
): Promise<boolean> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (lines.length >= cap) return false;
    const path = join(folder, entry.name);
    if (hidden(path)) continue;
    const rel = relative(base, path);
    if (entry.isDirectory()) {
      lines.push(`dir   -          ${rel}${sep}`);
      if (depth > 1 && !(await listInto(base, path, depth - 1, cap, lines, hidden))) return false;
    } else if (entry.isSymbolicLink()) {
      lines.push(`link  -          ${rel}`);
    } else if (entry.isFile()) {
      const size = await stat(path).then(
        (s) => formatBytes(s.size),
        () => '?',
      );
      lines.push(`file  ${size.padEnd(10)} ${rel}`);
    } else {
      lines.push(`other -          ${rel}`);
    }
  }
  return true;
}

function failed(message: string, exit: string): ToolResult {
  return { content: message, isError: true, exit };
}

function cancelled(): ToolResult {
  return { content: 'Cancelled.', isError: true, exit: 'cancelled' };
}

function messageOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
