// The embedder verbs through the built CLI as a real process: `keel models pull` against a
// refused port and a fake hub, `keel models list`, `keel doctor` and `keel reindex` with the fake
// Ollama server and the generated tiny model. The fakes run in this process, so the CLI is spawned
// asynchronously.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MemoryStore, OllamaEmbedder } from '@keel/memory';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MINILM } from '../../packages/memory/src/embed/minilm.js';
import { ConceptEmbedder, writeTinyBertModel } from '../../packages/memory/src/embed/testkit.js';
import { CLI, tempHome } from '../support/cli.js';
import { refusedPort, startFakeHub } from '../support/fake-hub.js';
import { bagOfWordsVector, type FakeOllama, startFakeOllama } from '../support/fake-ollama.js';

let home: string;
let cleanup: () => void;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  cleanup();
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  json: <T = Record<string, unknown>>() => T;
}

/** Runs `keel <args>` without blocking this process's event loop (the fakes live here). */
function keelAsync(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        ...process.env,
        KEEL_HOME: home,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        KEEL_EMBEDDER: 'none',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({ status, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }),
    );
  });
}

const modelsDir = () => join(home, 'models');

describe('keel models pull', () => {
  it('with no network fails with a clear message and leaves nothing half-written', async () => {
    const port = await refusedPort();
    const r = await keelAsync(['models', 'pull'], { KEEL_HF_ENDPOINT: `http://127.0.0.1:${port}` });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('error MODEL_DOWNLOAD_FAILED: cannot reach http://127.0.0.1:');
    expect(r.stderr).toContain('no network? nothing was installed');
    expect(r.stderr).toContain('fix: Check the network connection');
    const left = existsSync(modelsDir()) ? readdirSync(modelsDir(), { recursive: true }) : [];
    expect(
      left.filter((p) => String(p).includes('.partial') || String(p).endsWith('.onnx')),
    ).toEqual([]);
    // Control: the listing still works and says the model is not installed.
    const list = (await keelAsync(['models', 'list', '--json'])).json<{
      models: { installed: boolean }[];
    }>();
    expect(list.models).toEqual([expect.objectContaining({ name: 'minilm', installed: false })]);
  });

  it('a checksum that does not match installs nothing', async () => {
    const source = mkdtempSync(join(tmpdir(), 'keel-hub-'));
    closers.push(async () => rmSync(source, { recursive: true, force: true }));
    const folder = await writeTinyBertModel(source, MINILM);
    const hub = await startFakeHub(MINILM.id, folder, { corrupt: 'onnx/model_quantized.onnx' });
    closers.push(() => hub.close());
    const r = await keelAsync(['models', 'pull', '--json'], { KEEL_HF_ENDPOINT: hub.url });
    expect(r.status).toBe(2);
    expect(r.json<{ error: { code: string; message: string } }>().error).toMatchObject({
      code: 'MODEL_DOWNLOAD_FAILED',
      message: expect.stringContaining('does not match the hub'),
    });
    expect(readdirSync(join(modelsDir(), 'Xenova'))).toEqual([]);
  });

  it('downloads from the hub, verifies, installs atomically; then minilm runs and recall is hybrid', async () => {
    const source = mkdtempSync(join(tmpdir(), 'keel-hub-'));
    closers.push(async () => rmSync(source, { recursive: true, force: true }));
    const folder = await writeTinyBertModel(source, MINILM);
    const hub = await startFakeHub(MINILM.id, folder, { sha: 'a'.repeat(40) });
    closers.push(() => hub.close());
    const r = await keelAsync(['models', 'pull', '--json'], { KEEL_HF_ENDPOINT: hub.url });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ model: MINILM.id, revision: 'a'.repeat(40) });
    expect(readdirSync(join(modelsDir(), 'Xenova'))).toEqual(['all-MiniLM-L6-v2']);
    const list = (await keelAsync(['models', 'list', '--json'])).json<{ models: unknown[] }>();
    expect(list.models).toEqual([
      expect.objectContaining({ name: 'minilm', installed: true, revision: 'a'.repeat(40) }),
    ]);

    const env = { KEEL_EMBEDDER: 'minilm' };
    const remembered = await keelAsync(
      ['remember', 'note/garden', 'tomatoes', 'by', 'the', 'shed'],
      env,
    );
    expect(remembered.status, remembered.stderr).toBe(0);
    const doctor = (await keelAsync(['doctor', '--json'], env)).json();
    expect(doctor).toMatchObject({
      embedder: { name: 'minilm', model: MINILM.id, dim: 32 },
      recall_mode: 'hybrid',
      vectors: { available: true },
    });
  });
});

describe('keel doctor and keel reindex with Ollama', () => {
  it('shows the embedder, indexes with reindex, and refuses another dimension until reindex', async () => {
    const ollama = await startFakeOllama({
      models: ['nomic-embed-text:latest', 'tiny-embed:latest'],
    });
    closers.push(() => ollama.close());
    ollama.setEmbed((input, model) =>
      input.map((t) =>
        Array.from(
          { length: model.startsWith('tiny') ? 8 : 16 },
          (_, i) => (t.length % (i + 2)) + 1,
        ),
      ),
    );
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    const remembered = await keelAsync(['remember', 'preference/coffee', 'flat', 'white'], env);
    expect(remembered.status, remembered.stderr).toBe(0);

    const reindex = await keelAsync(['reindex', '--json'], env);
    expect(reindex.status, reindex.stderr).toBe(0);
    expect(reindex.json()).toMatchObject({ status: { state: 'active', vectors: { facts: 1 } } });
    expect((await keelAsync(['doctor', '--json'], env)).json()).toMatchObject({
      embedder: { name: 'ollama', model: 'nomic-embed-text', dim: 16 },
      recall_mode: 'hybrid',
      vectors: { available: true, counts: { facts: 1, episodes: 0 }, pending: 0 },
    });

    const other = { ...env, KEEL_OLLAMA_EMBED_MODEL: 'tiny-embed' };
    const refused = (await keelAsync(['doctor', '--json'], other)).json<{
      recall_mode: string;
      vectors: { available: boolean; reason: string };
    }>();
    expect(refused.recall_mode).toBe('lexical');
    expect(refused.vectors.reason).toContain('EMBEDDER_MISMATCH');
    expect(refused.vectors.reason).toContain('keel reindex');
    const rebuilt = await keelAsync(['reindex'], other);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect((await keelAsync(['doctor', '--json'], other)).json()).toMatchObject({
      embedder: { dim: 8 },
      recall_mode: 'hybrid',
    });
  });

  it('KEEL_EMBEDDER=none: recall mode lexical and doctor says why', async () => {
    const d = (await keelAsync(['doctor', '--json'], { KEEL_EMBEDDER: 'none' })).json();
    expect(d).toMatchObject({
      embedder: null,
      recall_mode: 'lexical',
      vectors: { available: false, reason: expect.stringContaining('KEEL_EMBEDDER=none') },
    });
  });
});

describe('keel import embeds what it imports', () => {
  const conv = resolve(__dirname, '../fixtures/data/locomo/conv-26.json');
  interface ImportJson {
    added: number;
    vectors: { embedder: string | null; embedded: number; pending: number; reason: string | null };
  }

  it('with an embedder, every imported turn gets a vector and recall is hybrid', async () => {
    const ollama = await startFakeOllama();
    closers.push(() => ollama.close());
    ollama.setEmbed((input) => input.map((t) => bagOfWordsVector(t)));
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    const r = await keelAsync(['import', conv, '--format', 'locomo', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const out = r.json<ImportJson>();
    expect(out.added).toBe(419);
    expect(out.vectors).toEqual({
      embedder: 'ollama nomic-embed-text (16-d)',
      embedded: 419,
      pending: 0,
      reason: null,
      duration_ms: expect.any(Number),
    });
    // Batched: 419 turns in calls of at most 64 (besides the one-text dimension probe).
    const batches = ollama.requests
      .filter((q) => q.path === '/api/embed')
      .map((q) => (q.body!.input as string[]).length)
      .filter((n) => n > 1);
    expect(batches).toEqual([64, 64, 64, 64, 64, 64, 35]);
    expect((await keelAsync(['doctor', '--json'], env)).json()).toMatchObject({
      recall_mode: 'hybrid',
      vectors: { counts: { facts: 0, episodes: 419 }, pending: 0 },
    });
  });

  it('when embedding fails, the turns are stored, vectors are said to be pending, and keel reindex fills them', async () => {
    const ollama = await startFakeOllama();
    closers.push(() => ollama.close());
    // The one-text dimension probe works; every batch comes back empty.
    ollama.setEmbed((input) => (input.length === 1 ? [bagOfWordsVector(input[0]!)] : []));
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    const failed = await keelAsync(['import', conv, '--format', 'locomo'], env);
    expect(failed.status, failed.stderr).toBe(0);
    expect(failed.stdout).toContain('imported 419 new turn(s)');
    expect(failed.stdout).toContain(
      'vectors pending for 419 row(s) (EMBEDDING_INVALID: ollama (nomic-embed-text) returned 0 vector(s) for 64 text(s)); keel reindex will fill them',
    );

    ollama.setEmbed((input) => input.map((t) => bagOfWordsVector(t)));
    const reindex = await keelAsync(['reindex', '--json'], env);
    expect(reindex.status, reindex.stderr).toBe(0);
    expect(reindex.json()).toMatchObject({
      embedded: 419,
      status: { state: 'active', pending: 0, vectors: { episodes: 419 } },
    });
  });

  it('keel verify reports a lost vector with its fix, and keel reindex mends it', async () => {
    const ollama = await startFakeOllama();
    closers.push(() => ollama.close());
    ollama.setEmbed((input) => input.map((t) => bagOfWordsVector(t)));
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    expect((await keelAsync(['import', conv, '--format', 'locomo'], env)).status).toBe(0);
    const ok = await keelAsync(['verify'], env);
    expect(ok.status, ok.stdout).toBe(0);

    const db = new Database(join(home, 'keel.db'));
    const lost = (
      db.prepare('SELECT max(id) AS id FROM vec_episodes_codes').get() as { id: number }
    ).id;
    db.prepare('DELETE FROM vec_episodes_codes WHERE id = ?').run(lost);
    db.close();
    const broken = await keelAsync(['verify'], env);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(
      'BROKEN vector_tables: vec_episodes and vec_episodes_codes disagree: 1 vector(s) without a code, 0 code(s) without a vector (fix: keel reindex)',
    );
    expect(broken.stdout).toContain(
      `BROKEN vectors_missing: 1 episode(s) have no vector and are not queued for one: e${lost} (fix: keel reindex)`,
    );

    const mended = await keelAsync(['reindex', '--json'], env);
    expect(mended.status, mended.stderr).toBe(0);
    expect(mended.json()).toMatchObject({ rebuilt: false, embedded: 1 });
    const again = await keelAsync(['verify'], env);
    expect(again.status, again.stdout).toBe(0);
  });

  it('without an embedder nothing is queued and the output says recall is lexical', async () => {
    const r = await keelAsync(['import', conv, '--format', 'locomo', '--json'], {
      KEEL_EMBEDDER: 'none',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json<ImportJson>().vectors).toMatchObject({
      embedder: null,
      embedded: 0,
      pending: 419,
      reason: expect.stringContaining('KEEL_EMBEDDER=none'),
    });
    const text = await keelAsync(['import', conv, '--format', 'locomo'], { KEEL_EMBEDDER: 'none' });
    expect(text.stdout).toContain('imported 0 new turn(s) of 419');
    expect(text.stdout).toContain(
      'no vectors for 419 row(s) (no embedder: embedder set to none (KEEL_EMBEDDER=none)): recall of them is lexical; keel reindex embeds them once an embedder is set up',
    );
  });
});

describe('keel remember embeds what it wrote', () => {
  // Vectors that know meaning ("automobile" is "car" is "sedan"), through Ollama's wire format;
  // nomic-embed-text's task prefixes are taken off first, so only the words count.
  const concepts = new ConceptEmbedder({ dim: 256 });
  const meaning = (input: string[]) =>
    input.map((t) => concepts.vector(t.replace(/^search_(query|document): /, '')));

  interface RecallJson {
    mode: string;
    reason: string | null;
    results: { type: string; value?: string }[];
  }
  const recallValues = async (env: Record<string, string>) => {
    const r = await keelAsync(['recall', 'automobile', '--type', 'fact', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const out = r.json<RecallJson>();
    expect(out.mode).toBe('hybrid');
    return out.results.map((x) => x.value);
  };
  const queued = () => {
    const db = new Database(join(home, 'keel.db'), { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM vector_queue').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  /** The beliefs' texts sent to be embedded as documents, in order. */
  const documentsAsked = (ollama: FakeOllama) =>
    ollama.requests
      .filter((q) => q.path === '/api/embed')
      .flatMap((q) => q.body!.input as string[])
      .filter((t) => t.startsWith('search_document: fact'));

  it('with an embedder bound, a belief remembered now is found by meaning at once, without a tick', async () => {
    const ollama = await startFakeOllama({ embed: meaning });
    closers.push(() => ollama.close());
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    // Control: remembered by a keel that embeds nothing, the same question (no word in common)
    // finds nothing until a tick: the row waits in the queue.
    const quiet = await keelAsync(['remember', 'fact/ride', 'my', 'blue', 'sedan'], {
      KEEL_EMBEDDER: 'none',
    });
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(await recallValues(env)).toEqual([]);
    expect(queued()).toBe(1);

    const r = await keelAsync(
      ['remember', 'fact/parking', 'the', 'vehicle', 'is', 'on', 'level', 'two'],
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    // Found by meaning; the belief remembered before is still the tick's (older than this write).
    expect(await recallValues(env)).toEqual(['the vehicle is on level two']);
    expect(queued()).toBe(1);
    expect(documentsAsked(ollama)).toEqual([
      'search_document: fact parking: the vehicle is on level two',
    ]);
  });

  it('a slow embedder: remember returns within the bound, the row stays queued, and the tick embeds it', async () => {
    const ollama = await startFakeOllama({ embed: meaning });
    closers.push(() => ollama.close());
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    // Vectors in use, nothing waiting.
    expect((await keelAsync(['reindex'], env)).status).toBe(0);
    // The server answers its probe at once, and holds every embedding of a belief for 20 s.
    ollama.setEmbedDelay((input) => (input.some((t) => t.includes('fact ride')) ? 20_000 : 0));
    const started = performance.now();
    const r = await keelAsync(['remember', 'fact/ride', 'my', 'blue', 'sedan', '--json'], env);
    const took = performance.now() - started;
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ decision: 'create' });
    // The bound is 2 s; the rest is the process starting on a busy machine. Never the 20 s the
    // embedder takes: the process does not wait for it to answer either.
    expect(took).toBeLessThan(8000);
    // It asked, and gave up at the bound: the row waits for the tick.
    expect(documentsAsked(ollama)).toEqual(['search_document: fact ride: my blue sedan']);
    expect(queued()).toBe(1);
    // The tick's catch-up (what runThink calls) embeds it; then the question finds it.
    ollama.setEmbedDelay(0);
    const store = MemoryStore.open(join(home, 'keel.db'));
    try {
      await store.useEmbedder(new OllamaEmbedder({ host: ollama.url }));
      expect(await store.catchUpVectors()).toEqual({ embedded: 1, remaining: 0 });
    } finally {
      store.close();
    }
    expect(await recallValues(env)).toEqual(['my blue sedan']);
  });

  it('a failing embedder: remember stores the belief and exits cleanly; the row stays queued', async () => {
    const ollama = await startFakeOllama({ embed: meaning });
    closers.push(() => ollama.close());
    const env = { KEEL_EMBEDDER: 'ollama', OLLAMA_HOST: ollama.url };
    expect((await keelAsync(['reindex'], env)).status).toBe(0);
    // Every batch comes back empty (the one-text probe works): EMBEDDING_INVALID.
    ollama.setEmbed((input) => (input[0]!.includes('probe') ? meaning(input) : []));
    const r = await keelAsync(['remember', 'fact/ride', 'my', 'blue', 'sedan'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('create');
    expect(r.stderr).toBe('');
    // It asked; nothing came back that could be stored, so the row waits for the tick.
    expect(documentsAsked(ollama)).toEqual(['search_document: fact ride: my blue sedan']);
    expect(queued()).toBe(1);
  });
});
