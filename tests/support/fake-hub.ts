/**
 * A fake Hugging Face hub on 127.0.0.1 serving one model folder the way the hub does: the
 * revision API (`GET /api/models/<id>/revision/<rev>?blobs=true`, with sha256 for large files and
 * git blob ids for the others) and `GET /<id>/resolve/<commit>/<file>`. For `keel models pull`
 * tests; nothing leaves the machine.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

/** A running fake hub. */
export interface FakeHub {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/**
 * Serves the files under `folder` as repository `id` at commit `sha`.
 *
 * @param options.corrupt - a file whose advertised checksum is wrong (to test verification).
 */
export async function startFakeHub(
  id: string,
  folder: string,
  options: { sha?: string; corrupt?: string } = {},
): Promise<FakeHub> {
  const sha = options.sha ?? 'f'.repeat(40);
  const files = new Map(walk(folder).map((p) => [relative(folder, p), readFileSync(p)]));
  const siblings = [...files].map(([rfilename, data]) => {
    const lie = rfilename === options.corrupt;
    if (rfilename.endsWith('.onnx')) {
      const sha256 = lie ? '0'.repeat(64) : createHash('sha256').update(data).digest('hex');
      return { rfilename, size: data.length, lfs: { sha256, size: data.length } };
    }
    const blobId = lie
      ? '0'.repeat(40)
      : createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
    return { rfilename, size: data.length, blobId };
  });
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(path);
    if (path.startsWith(`/api/models/${id}/revision/`)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, sha, siblings }));
      return;
    }
    const prefix = `/${id}/resolve/${sha}/`;
    const data = path.startsWith(prefix) ? files.get(path.slice(prefix.length)) : undefined;
    if (!data) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Entry not found');
      return;
    }
    res.writeHead(200, {
      'content-length': data.length,
      'content-type': 'application/octet-stream',
    });
    // Two chunks, so progress is reported more than once.
    const half = Math.floor(data.length / 2);
    res.write(data.subarray(0, half));
    setTimeout(() => res.end(data.subarray(half)), 5);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 127.0.0.1 port with nothing listening (connections are refused). */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
