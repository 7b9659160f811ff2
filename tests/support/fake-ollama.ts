/**
 * A fake Ollama server on 127.0.0.1 speaking Ollama's HTTP wire protocol, for tests that drive
 * the real `ollama` client (or the CLI) against it. Nothing leaves the machine.
 *
 * Endpoints:
 * - `GET /api/tags`: the models it "has" (`options.models`).
 * - `GET /api/version`.
 * - `POST /api/show`: `{ model }` → the model's `model_info` with its `context_length`
 *   (`options.contextLength`, default 131072); a model it does not have → 404.
 * - `POST /api/embed`: `{ model, input }` → `{ model, embeddings, ... }`; vectors come from
 *   `options.embed` (default: {@link bagOfWordsVector}, 16-d), after `embedDelayMs` (a slow or
 *   hung server; the wait ends early if the client disconnects). A model it does not have → 404.
 * - `POST /api/chat`: scripted replies, in order, from `options.chat` or {@link FakeOllama.queueChat}.
 *   With `stream: false` one JSON object; otherwise NDJSON chunks (the reply's content split into
 *   `chunkSize`-character pieces, tool calls on the last content chunk) and a final `done` line.
 *   An unscripted request → HTTP 500 `{ error }`, so a test can never pass on a reply it did not
 *   script. A reply with `delayMs` is held back that long (a hang before the headers); one with
 *   `stall` streams its content and then goes silent until the client leaves (`stallsAbandoned`
 *   counts those); one with `streamError` ends its stream with an `{"error": …}` line.
 *
 * Every request is recorded in `requests` (method, path, parsed body).
 *
 * @example
 * const ollama = await startFakeOllama({ models: ['nomic-embed-text:latest', 'llama3.2:latest'] });
 * ollama.queueChat({ content: 'hello' }, { content: '', tool_calls: [{ function: { name: 'recall', arguments: { query: 'coffee' } } }] });
 * const client = new Ollama({ host: ollama.url });
 * // ...
 * await ollama.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted chat reply. */
export interface ChatReply {
  content?: string;
  /** Ollama's tool-call shape: `{ function: { name, arguments } }`. */
  tool_calls?: { function: { name: string; arguments: Record<string, unknown> } }[];
  /** Thinking text (models with `think`). */
  thinking?: string;
  /** Replace the reply with an HTTP error: `{ status, error }`. */
  httpError?: { status: number; error: string };
  done_reason?: string;
  /**
   * Wait this many milliseconds before answering (headers included), e.g. longer than a client's
   * timeout to make the server hang. The wait ends early if the client disconnects.
   */
  delayMs?: number;
  /**
   * Stream the reply's content chunks (no `done` line), then send nothing until the client goes
   * away: a stalled model. `content` may be empty (headers, then silence).
   */
  stall?: boolean;
  /** Stream the reply's content chunks, then an `{"error": …}` line (Ollama's mid-stream error). */
  streamError?: string;
}

/** A reply, or a function of the request body that returns one. */
export type ChatScript = ChatReply | ((request: Record<string, unknown>) => ChatReply);

/** Options for {@link startFakeOllama}. */
export interface FakeOllamaOptions {
  /** Model names `/api/tags` lists, e.g. "nomic-embed-text:latest". Default: nomic-embed-text. */
  models?: string[];
  /** Vectors for `/api/embed`. Default: {@link bagOfWordsVector} per input, 16-d. */
  embed?: (input: string[], model: string) => number[][];
  /** Milliseconds `/api/embed` waits before answering (or a function of its input). Default 0. */
  embedDelayMs?: EmbedDelay;
  /** Chat replies, consumed in order. */
  chat?: ChatScript[];
  /** Characters per streamed chunk. Default 4. */
  chunkSize?: number;
  /** The `context_length` `/api/show` reports. Default 131072 (llama3.1's). */
  contextLength?: number;
  /** Milliseconds `/api/show` waits before answering (a hung server; ends if the client goes). */
  showDelayMs?: number;
}

/** How long `/api/embed` waits, ms: a number, or a function of the request's input. */
export type EmbedDelay = number | ((input: string[]) => number);

/** One request the fake received. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

/** A running fake. */
export interface FakeOllama {
  /** e.g. "http://127.0.0.1:41234": pass as the client's `host` or OLLAMA_HOST. */
  url: string;
  requests: RecordedRequest[];
  /** How many stalled chat streams ({@link ChatReply.stall}) the client abandoned. */
  readonly stallsAbandoned: number;
  /** Appends scripted chat replies. */
  queueChat(...replies: ChatScript[]): void;
  /** Forgets the chat replies not yet used (a test that ended early leaves none for the next). */
  clearChat(): void;
  /** Replaces the embed function (e.g. to return `[]` mid-test). */
  setEmbed(fn: (input: string[], model: string) => number[][]): void;
  /** Makes `/api/embed` wait this many milliseconds before answering (0: at once). */
  setEmbedDelay(ms: EmbedDelay): void;
  close(): Promise<void>;
}

/**
 * A deterministic bag-of-words vector: each lower-cased word adds 1 to dimension
 * hash(word) mod `dim`. Texts sharing words point the same way; that is all it knows.
 */
export function bagOfWordsVector(text: string, dim = 16): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % dim]! += 1;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

const matches = (have: string[], model: string) =>
  have.includes(model) || have.includes(`${model}:latest`);

/** Starts the fake on an ephemeral port of 127.0.0.1. */
export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = options.models ?? ['nomic-embed-text:latest'];
  let embed = options.embed ?? ((input: string[]) => input.map((t) => bagOfWordsVector(t)));
  let embedDelay: EmbedDelay = options.embedDelayMs ?? 0;
  const chat: ChatScript[] = [...(options.chat ?? [])];
  const chunkSize = options.chunkSize ?? 4;
  const requests: RecordedRequest[] = [];
  let stallsAbandoned = 0;
  const now = () => new Date().toISOString();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  /** Waits `ms` unless the client goes first; true when it went (nothing left to answer). */
  const hold = (res: ServerResponse, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      res.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown> | null> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (chunks.length === 0) return null;
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = await readBody(req).catch(() => null);
      requests.push({ method: req.method ?? 'GET', path, body });
      if (req.method === 'GET' && path === '/api/tags') {
        return send(res, 200, {
          models: models.map((name) => ({
            name,
            model: name,
            modified_at: now(),
            size: 1000,
            digest: 'sha256:0000',
            details: {
              format: 'gguf',
              family: 'fake',
              parameter_size: '1M',
              quantization_level: 'Q8_0',
            },
          })),
        });
      }
      if (req.method === 'GET' && path === '/api/version')
        return send(res, 200, { version: '0.12.0' });
      if (req.method === 'POST' && path === '/api/show') {
        const model = String(body?.model ?? '');
        if (!matches(models, model)) {
          return send(res, 404, { error: `model '${model}' not found` });
        }
        if ((options.showDelayMs ?? 0) > 0 && (await hold(res, options.showDelayMs ?? 0))) return;
        return send(res, 200, {
          modelfile: '',
          parameters: '',
          template: '',
          details: { format: 'gguf', family: 'llama', parameter_size: '8B' },
          model_info: {
            'general.architecture': 'llama',
            'llama.context_length': options.contextLength ?? 131_072,
          },
          capabilities: ['completion', 'tools'],
          modified_at: now(),
        });
      }
      if (req.method === 'POST' && path === '/api/embed') {
        const model = String(body?.model ?? '');
        if (!matches(models, model)) {
          return send(res, 404, { error: `model "${model}" not found, try pulling it first` });
        }
        const raw = body?.input;
        const input = Array.isArray(raw) ? raw.map(String) : [String(raw ?? '')];
        const delay = typeof embedDelay === 'function' ? embedDelay(input) : embedDelay;
        if (delay > 0 && (await hold(res, delay))) return;
        return send(res, 200, {
          model,
          embeddings: embed(input, model),
          total_duration: 1000,
          load_duration: 10,
          prompt_eval_count: input.length,
        });
      }
      if (req.method === 'POST' && path === '/api/chat') {
        const model = String(body?.model ?? '');
        if (!matches(models, model)) {
          return send(res, 404, { error: `model "${model}" not found, try pulling it first` });
        }
        const script = chat.shift();
        if (!script) return send(res, 500, { error: 'fake-ollama: no scripted chat reply left' });
        const reply = typeof script === 'function' ? script(body ?? {}) : script;
        if (reply.delayMs) {
          let gone = false;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, reply.delayMs);
            res.once('close', () => {
              gone = true;
              clearTimeout(timer);
              resolve();
            });
          });
          if (gone) return;
        }
        if (reply.httpError)
          return send(res, reply.httpError.status, { error: reply.httpError.error });
        const stats = {
          done_reason: reply.done_reason ?? 'stop',
          total_duration: 1000,
          load_duration: 10,
          prompt_eval_count: 10,
          prompt_eval_duration: 100,
          eval_count: 10,
          eval_duration: 100,
        };
        const message = {
          role: 'assistant',
          content: reply.content ?? '',
          ...(reply.thinking ? { thinking: reply.thinking } : {}),
          ...(reply.tool_calls ? { tool_calls: reply.tool_calls } : {}),
        };
        if (body?.stream === false) {
          return send(res, 200, { model, created_at: now(), message, done: true, ...stats });
        }
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.flushHeaders();
        const text = message.content;
        const pieces: string[] = [];
        for (let i = 0; i < text.length; i += chunkSize) pieces.push(text.slice(i, i + chunkSize));
        if (pieces.length === 0 && !reply.stall) pieces.push('');
        pieces.forEach((piece, i) => {
          const last = i === pieces.length - 1;
          const chunk = {
            model,
            created_at: now(),
            message: {
              role: 'assistant',
              content: piece,
              ...(i === 0 && reply.thinking ? { thinking: reply.thinking } : {}),
              ...(last && reply.tool_calls ? { tool_calls: reply.tool_calls } : {}),
            },
            done: false,
          };
          res.write(`${JSON.stringify(chunk)}\n`);
        });
        if (reply.stall) {
          await new Promise<void>((resolve) => res.once('close', () => resolve()));
          stallsAbandoned += 1;
          return;
        }
        if (reply.streamError) {
          res.end(`${JSON.stringify({ error: reply.streamError })}\n`);
          return;
        }
        res.end(
          `${JSON.stringify({ model, created_at: now(), message: { role: 'assistant', content: '' }, done: true, ...stats })}\n`,
        );
        return;
      }
      send(res, 404, { error: `fake-ollama: no route ${req.method} ${path}` });
    })().catch((err: unknown) => send(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get stallsAbandoned() {
      return stallsAbandoned;
    },
    queueChat: (...replies) => {
      chat.push(...replies);
    },
    clearChat: () => {
      chat.length = 0;
    },
    setEmbed: (fn) => {
      embed = fn;
    },
    setEmbedDelay: (ms) => {
      embedDelay = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
