import { existsSync } from 'node:fs';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../contract.js';
import { fileTools } from './files.js';

function context(): ToolContext {
  // The file tools never touch memory.
  return {
    signal: new AbortController().signal,
    store: {} as MemoryStore,
    tz: 'UTC',
    now: () => Date.now(),
    channel: 'cli',
  };
}

let dir: string;
let workspace: string;
let outside: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'keel-files-')));
  workspace = join(dir, 'home', 'workspace');
  outside = join(dir, 'outside');
  await mkdir(workspace, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(workspace, 'notes.md'), 'inside the workspace\n');
  await writeFile(join(outside, 'secret.txt'), 'outside the roots\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('read_file', () => {
  it('reads a file inside the workspace by a relative path', async () => {
    const [read] = fileTools({ roots: [workspace] });
    const result = await read.execute({ path: 'notes.md' }, context());
    expect(result).toMatchObject({ content: 'inside the workspace\n', isError: false });
    expect(read.effect).toBe('read');
  });

  it('refuses ../ escapes and absolute paths outside, naming the allowed folders', async () => {
    const [read] = fileTools({ roots: [workspace] });
    for (const path of [
      '../../etc/passwd',
      '../../outside/secret.txt',
      join(outside, 'secret.txt'),
      '/etc/passwd',
    ]) {
      const result = await read.execute({ path }, context());
      expect(result.isError).toBe(true);
      expect(result.exit).toBe('refused');
      expect(result.content).toContain(`Allowed folders: ${workspace}`);
      expect(result.content).not.toContain('outside the roots\n');
    }
    // Control: the same file is readable once its folder is allowed.
    const [readWide] = fileTools({ roots: [workspace, outside] });
    const allowed = await readWide.execute({ path: join(outside, 'secret.txt') }, context());
    expect(allowed).toMatchObject({ content: 'outside the roots\n', isError: false });
  });

  it('refuses a symlink inside the root that points out (control: one pointing inside works)', async () => {
    await symlink(join(outside, 'secret.txt'), join(workspace, 'out-link'));
    await symlink(join(workspace, 'notes.md'), join(workspace, 'in-link'));
    await symlink(outside, join(workspace, 'out-dir'));
    const [read] = fileTools({ roots: [workspace] });
    const out = await read.execute({ path: 'out-link' }, context());
    expect(out.exit).toBe('refused');
    expect(out.content).toContain('outside the allowed folders');
    const throughDir = await read.execute({ path: 'out-dir/secret.txt' }, context());
    expect(throughDir.exit).toBe('refused');
    const inside = await read.execute({ path: 'in-link' }, context());
    expect(inside).toMatchObject({ content: 'inside the workspace\n', isError: false });
  });

  it('names a binary file with its size and type instead of reading it (control: text is read)', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      Buffer.alloc(500, 7),
    ]);
    await writeFile(join(workspace, 'image.png'), png);
    await writeFile(join(workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const [read] = fileTools({ roots: [workspace] });
    const binary = await read.execute({ path: 'image.png' }, context());
    expect(binary.exit).toBe('binary');
    expect(binary.content).toBe('image.png is a binary .png file of 512 B (512 bytes); not read.');
    const invalidUtf8 = await read.execute({ path: 'latin1.txt' }, context());
    expect(invalidUtf8.exit).toBe('binary');
    const text = await read.execute({ path: 'notes.md' }, context());
    expect(text.exit).toBe('ok');
  });

  it('says a missing file inside the root is missing, not refused', async () => {
    const [read] = fileTools({ roots: [workspace] });
    const missing = await read.execute({ path: 'nowhere.md' }, context());
    expect(missing).toMatchObject({ isError: true, exit: 'not_found' });
    expect(missing.content).toBe('nowhere.md cannot be read: no such file or folder.');
  });

  it('gives the head of a file above the cap and says its size', async () => {
    await writeFile(join(workspace, 'big.txt'), `${'a'.repeat(2000)}${'z'.repeat(2000)}`);
    const [read] = fileTools({ roots: [workspace], maxReadBytes: 1000 });
    const result = await read.execute({ path: 'big.txt' }, context());
    expect(result.exit).toBe('cut');
    expect(result.content).toBe(
      `[big.txt is 3.9 KiB; the first 1000 B follow]\n${'a'.repeat(1000)}`,
    );
  });
});

describe('write_file', () => {
  it('creates a file (and its folders) inside the workspace, atomically, and replaces it', async () => {
    const [, write] = fileTools({ roots: [workspace] });
    const created = await write.execute(
      { path: 'drafts/today/plan.md', content: 'first\n' },
      context(),
    );
    expect(created).toMatchObject({ isError: false, exit: 'ok' });
    expect(created.content).toContain('Created');
    expect(await readFile(join(workspace, 'drafts/today/plan.md'), 'utf8')).toBe('first\n');
    const replaced = await write.execute(
      { path: 'drafts/today/plan.md', content: 'second\n' },
      context(),
    );
    expect(replaced.content).toContain('Replaced');
    expect(await readFile(join(workspace, 'drafts/today/plan.md'), 'utf8')).toBe('second\n');
    // No temporary file is left beside it.
    expect(await readdir(join(workspace, 'drafts/today'))).toEqual(['plan.md']);
    // "Exactly this" is this content at this path: another content is another key.
    const key = write.exactKey?.({ path: 'drafts/today/plan.md', content: 'a' });
    expect(key).toMatch(
      new RegExp(`^${join(workspace, 'drafts/today/plan.md')} sha256:[0-9a-f]{64}$`),
    );
    expect(write.exactKey?.({ path: 'drafts/today/plan.md', content: 'b' })).not.toBe(key);
    expect(write.exactKey?.({ path: 'drafts/today/plan.md', content: 'a' })).toBe(key);
    // The owner reads the content they approve.
    expect(write.summary({ path: 'plan.md', content: 'buy milk' })).toContain('buy milk');
    expect(write.effect).toBe('write');
  });

  it('refuses to write outside the roots: by ../, by an absolute path, by a symlinked folder', async () => {
    await symlink(outside, join(workspace, 'out-dir'));
    const [, write] = fileTools({ roots: [workspace] });
    for (const path of [
      '../../outside/new.txt',
      join(outside, 'new.txt'),
      'out-dir/new.txt',
      'out-dir/deeper/new.txt',
    ]) {
      const result = await write.execute({ path, content: 'x' }, context());
      expect(result.exit).toBe('refused');
      expect(result.content).toContain(`Allowed folders: ${workspace}`);
    }
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect(existsSync(join(outside, 'deeper'))).toBe(false);
  });

  it('refuses content above the write cap (control: at the cap it is written)', async () => {
    const [, write] = fileTools({ roots: [workspace], maxWriteBytes: 10 });
    const tooBig = await write.execute({ path: 'a.txt', content: 'x'.repeat(11) }, context());
    expect(tooBig.exit).toBe('too_large');
    expect(existsSync(join(workspace, 'a.txt'))).toBe(false);
    const fits = await write.execute({ path: 'a.txt', content: 'x'.repeat(10) }, context());
    expect(fits.exit).toBe('ok');
  });
});

describe('list_files', () => {
  it('lists one level with kinds and sizes, deeper on request, and refuses outside', async () => {
    await mkdir(join(workspace, 'sub', 'deep'), { recursive: true });
    await writeFile(join(workspace, 'sub', 'deep', 'x.txt'), 'x');
    const [, , list] = fileTools({ roots: [workspace] });
    const one = await list.execute({ path: '.', depth: 1 }, context());
    expect(one.content.split('\n').slice(1)).toEqual([
      'file  21 B       notes.md',
      'dir   -          sub/',
    ]);
    const deep = await list.execute({ path: '.', depth: 3 }, context());
    expect(deep.content).toContain('file  1 B        sub/deep/x.txt');
    expect(list.inputSchema?.required).toBeUndefined();
    const refused = await list.execute({ path: '..', depth: 1 }, context());
    expect(refused.exit).toBe('refused');
  });

  it('stops at the entry cap and says so', async () => {
    for (let i = 0; i < 5; i++) await writeFile(join(workspace, `f${i}.txt`), '');
    const [, , list] = fileTools({ roots: [workspace], maxListEntries: 3 });
    const result = await list.execute({ path: '.', depth: 1 }, context());
    expect(result.exit).toBe('cut');
    expect(result.content.split('\n')).toHaveLength(4);
    expect(result.content).toContain('(stopped at 3)');
  });
});

describe("keel's own places", () => {
  it('are never reached, even inside a root, while the workspace inside them is', async () => {
    // The data folder (`home`) holds the workspace; the owner also allowed `dir` (like `~`).
    const home = join(dir, 'home');
    await writeFile(join(home, 'config.toml'), 'anthropic.api_key = "sk-ant-…"\n');
    const mcp = join(dir, 'mcp.json');
    await writeFile(mcp, '{"mcpServers": {}}');
    await writeFile(join(dir, 'diary.md'), "the owner's own file\n");
    const [read, write] = fileTools({ roots: [workspace, dir], guarded: [home, mcp] });
    for (const path of [join(home, 'config.toml'), '../config.toml', mcp]) {
      const r = await read.execute({ path }, context());
      expect(r, path).toMatchObject({ isError: true, exit: 'refused' });
      expect(r.content).toContain("keel's own data");
    }
    const w = await write.execute({ path: mcp, content: '{"mcpServers": {"x": {}}}' }, context());
    expect(w).toMatchObject({ isError: true, exit: 'refused' });
    expect(await readFile(mcp, 'utf8')).toBe('{"mcpServers": {}}');
    // a link in the workspace pointing at keel's configuration is refused too
    await symlink(join(home, 'config.toml'), join(workspace, 'cfg'));
    expect(await read.execute({ path: 'cfg' }, context())).toMatchObject({ exit: 'refused' });
    // the controls: the workspace inside the data folder, and the owner's other files
    expect(await read.execute({ path: 'notes.md' }, context())).toMatchObject({ isError: false });
    expect(await read.execute({ path: join(dir, 'diary.md') }, context())).toMatchObject({
      content: "the owner's own file\n",
    });
  });

  it('are left out of listings, name and all, while the workspace inside them and the rest are listed', async () => {
    const home = join(dir, 'home');
    await writeFile(join(home, 'keel.db'), 'SQLite format 3');
    await mkdir(join(home, 'backups'));
    await writeFile(join(home, 'backups', 'keel-1.db'), 'SQLite format 3');
    const mcp = join(dir, 'mcp.json');
    await writeFile(mcp, '{"mcpServers": {}}');
    await writeFile(join(dir, 'diary.md'), "the owner's own file\n");
    const list = fileTools({ roots: [workspace, dir], guarded: [home, mcp] })[2]!;
    const r = await list.execute({ path: dir, depth: 3 }, context());
    expect(r.isError).toBe(false);
    const names = r.content
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/).at(-1));
    for (const name of ['keel.db', 'backups/', 'backups/keel-1.db', 'mcp.json']) {
      expect(
        names.some((n) => n?.endsWith(name)),
        name,
      ).toBe(false);
    }
    // the controls: the owner's file, and the workspace (in the data folder) with its file
    expect(names).toEqual(
      expect.arrayContaining(['diary.md', 'home/', 'home/workspace/', 'home/workspace/notes.md']),
    );
  });
});
