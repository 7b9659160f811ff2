/**
 * `keel models pull`: downloading a model from the Hugging Face hub into `$KEEL_HOME/models`, the
 * only place keel ever downloads weights. Every file is checked against the checksum the hub
 * publishes (sha256 for large-file-storage files, the git blob sha1 for the others); the download
 * goes to a temporary folder beside the target and is renamed into place only when every file
 * verified, so a failed or interrupted pull leaves nothing half-written.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { KeelError } from '@keel/errors';
import { MINILM, MODELS, type ModelSpec, modelInstalled } from './minilm.js';

/** The hub's address. Apps may override it (KEEL_HF_ENDPOINT), e.g. for a mirror. */
export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';
/** The manifest written beside a pulled model. */
const MANIFEST = 'keel-model.json';

/** Download progress of one file, bytes. */
export interface PullProgress {
  file: string;
  received: number;
  /** Expected size, when the hub said. */
  total: number | null;
}

/** Options for {@link pullModel}. */
export interface PullOptions {
  /** `$KEEL_HOME/models`. */
  modelsDir: string;
  /** Which model. Default {@link MINILM}. */
  spec?: ModelSpec;
  /** Hub address. Default {@link DEFAULT_HF_ENDPOINT}. */
  endpoint?: string;
  /** Branch, tag or commit. Default "main" (the commit it resolves to is recorded). */
  revision?: string;
  onProgress?: (p: PullProgress) => void;
  signal?: AbortSignal;
}

interface Sibling {
  rfilename: string;
  size?: number;
  blobId?: string;
  lfs?: { sha256: string; size: number };
}

/** One installed model, as `keel models list` shows it. */
export interface InstalledModel {
  name: string;
  id: string;
  dtype: string;
  installed: boolean;
  path: string;
  /** Bytes on disk, when installed. */
  bytes: number | null;
  /** The hub commit it was pulled at (from its manifest). */
  revision: string | null;
}

function failed(message: string, cause?: unknown): KeelError {
  return new KeelError('MODEL_DOWNLOAD_FAILED', message, cause === undefined ? {} : { cause });
}

/**
 * Downloads a model's files, verifies each checksum and installs the folder atomically.
 *
 * @returns the installed folder, the resolved commit and the files with their sizes (bytes).
 * @throws KeelError `MODEL_DOWNLOAD_FAILED` (no network, hub error, checksum mismatch); nothing is
 *   left behind in `modelsDir` when it throws.
 */
export async function pullModel(
  options: PullOptions,
): Promise<{ path: string; revision: string; files: { path: string; bytes: number }[] }> {
  const spec = options.spec ?? MINILM;
  const endpoint = (options.endpoint ?? DEFAULT_HF_ENDPOINT).replace(/\/+$/, '');
  const revision = options.revision ?? 'main';
  const get = async (url: string): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(url, options.signal ? { signal: options.signal } : {});
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw failed(
        `cannot reach ${endpoint} (${cause ?? (err as Error).message}): no network? nothing was installed`,
        err,
      );
    }
    if (!res.ok) throw failed(`${url} answered HTTP ${res.status}; nothing was installed`);
    return res;
  };

  const infoRes = await get(`${endpoint}/api/models/${spec.id}/revision/${revision}?blobs=true`);
  const info = (await infoRes.json().catch(() => null)) as {
    sha?: string;
    siblings?: Sibling[];
  } | null;
  if (!info?.siblings) throw failed(`${endpoint} returned no file list for ${spec.id}`);
  const commit = info.sha ?? revision;

  const target = join(options.modelsDir, spec.id);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const tmp = `${target}.partial-${process.pid}-${Date.now()}`;
  try {
    const files: { path: string; bytes: number }[] = [];
    for (const file of spec.files) {
      const sibling = info.siblings.find((s) => s.rfilename === file);
      if (!sibling) throw failed(`${spec.id}@${commit} has no file ${file}`);
      const expected = sibling.lfs?.size ?? sibling.size ?? null;
      const res = await get(`${endpoint}/${spec.id}/resolve/${commit}/${file}`);
      if (!res.body) throw failed(`${file}: empty response`);
      const dest = join(tmp, file);
      mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
      const sha256 = createHash('sha256');
      const chunks: Buffer[] = [];
      let received = 0;
      const tap = async function* (source: AsyncIterable<Uint8Array>) {
        for await (const chunk of source) {
          const buf = Buffer.from(chunk);
          received += buf.length;
          sha256.update(buf);
          if (!sibling.lfs) chunks.push(buf);
          options.onProgress?.({ file, received, total: expected });
          yield buf;
        }
      };
      await pipeline(
        Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
        tap,
        createWriteStream(dest, { mode: 0o600 }),
      );
      if (expected !== null && received !== expected) {
        throw failed(`${file}: received ${received} bytes, expected ${expected}`);
      }
      if (sibling.lfs) {
        const got = sha256.digest('hex');
        if (got !== sibling.lfs.sha256)
          throw failed(`${file}: sha256 ${got} does not match the hub's ${sibling.lfs.sha256}`);
      } else if (sibling.blobId) {
        // A small file in git: its id is the sha1 of "blob <size>\0<content>".
        const got = createHash('sha1')
          .update(`blob ${received}\0`)
          .update(Buffer.concat(chunks))
          .digest('hex');
        if (got !== sibling.blobId)
          throw failed(`${file}: git blob id ${got} does not match the hub's ${sibling.blobId}`);
      } else {
        throw failed(`${file}: the hub published no checksum; refusing an unverified file`);
      }
      files.push({ path: file, bytes: received });
    }
    const manifest = { id: spec.id, revision: commit, dtype: spec.dtype, endpoint, files };
    writeFileSync(join(tmp, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const old = `${target}.old-${process.pid}-${Date.now()}`;
    if (existsSync(target)) renameSync(target, old);
    renameSync(tmp, target);
    rmSync(old, { recursive: true, force: true });
    return { path: target, revision: commit, files };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (KeelError.isInstance(err)) throw err;
    throw failed(
      `pull of ${spec.id} failed: ${(err as Error).message}; nothing was installed`,
      err,
    );
  }
}

function folderBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    total += entry.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return total;
}
/** The models keel knows, and which are installed under `modelsDir`. */
export function listInstalledModels(modelsDir: string): InstalledModel[] {
  return MODELS.map((spec) => {
    const path = join(modelsDir, spec.id);
    const installed = modelInstalled(modelsDir, spec);
    let revision: string | null = null;
    try {
      revision =
        (JSON.parse(readFileSync(join(path, MANIFEST), 'utf8')) as { revision?: string })
          .revision ?? null;
    } catch {
      // no manifest: copied in by hand
    }
    return {
      name: spec.name,
      id: spec.id,
      dtype: spec.dtype,
      installed,
      path,
      bytes: installed ? folderBytes(path) : null,
      revision,
    };
  });
}
