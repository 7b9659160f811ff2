/**
 * A fake Anthropic Messages API on 127.0.0.1 for tests that drive the real `@anthropic-ai/sdk`
 * (point its `baseURL` at {@link FakeAnthropic.baseURL}).
 *
 * It speaks the wire protocol: `POST /v1/messages` with `stream: true` answers Server-Sent Events
 * in the order the SDK accepts (`message_start`, a `ping`, then per block `content_block_start` /
 * `content_block_delta` (`text_delta` or `input_json_delta`) / `content_block_stop`, then
 * `message_delta` with `stop_reason` and usage, `message_stop`); without `stream` it answers the
 * message as JSON.
 *
 * It is scripted: push a queue of {@link FakeScript}s, one per request, answered in order, or set a
 * {@link FakeAnthropic.responder} that answers from the request body (consulted first). It records
 * every request (method, path, headers, parsed JSON body, its size in estimated tokens). A request
 * with nothing scripted is answered 500 with an `api_error` naming the problem and recorded in
 * {@link FakeAnthropic.errors}.
 *
 * Like the real API it can refuse a malformed conversation ({@link FakeAnthropic.checkConversations})
 * and a prompt longer than a context window
 * ({@link FakeAnthropic.promptLimit}): HTTP 400 `invalid_request_error` "prompt is too long: N
 * tokens > M maximum", without consuming a script (or, to play a proxy whose numbers do not add
 * up, {@link FakeAnthropic.promptTooLongMessage}). Its token estimate is not keel's tokenizer: by
 * default a token per 4 characters of the system, message and tool text as sent
 * ({@link estimateTokens}).
 *
 * The Models API (`GET /v1/models`, paged, and `GET /v1/models/{id}`: `fake-anthropic-models.ts`)
 * answers for {@link FakeAnthropic.models} (404 `not_found_error` for another id), and a message
 * for a model not among them is refused the same way. With {@link FakeAnthropic.apiKey} set, every request
 * must carry that key (`x-api-key`, or `authorization: Bearer`), else it is answered 401
 * `authentication_error`, as the API does.
 *
 * @example
 * const fake = await FakeAnthropic.start();
 * fake.push({ kind: 'message', blocks: [text('hello')] });
 * const client = new Anthropic({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0 });
 * // ...
 * await fake.close();
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerModels, type ModelsAnswer, modelNotFound } from './fake-anthropic-models.js';

/** A content block the fake sends. */
export type FakeBlock =
  | { type: 'text'; text: string }
  | {
      type: 'tool_use';
      id?: string;
      name: string;
      input: unknown;
      /** The input JSON as streamed, when it is not `input`'s (e.g. cut off mid-value). */
      rawJson?: string;
    };

/** Token counts reported in `message_start` / `message_delta`. */
export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A complete, successful response. */
export interface FakeMessageScript {
  kind: 'message';
  blocks: FakeBlock[];
  /** Default `tool_use` when a block is a tool_use, else `end_turn`. */
  stopReason?: string;
  usage?: Partial<FakeUsage>;
  /** Characters per `text_delta` / `input_json_delta` (default 4), so text arrives in pieces. */
  chunkSize?: number;
  /** Pause between SSE events, ms (default 0). */
  eventDelayMs?: number;
}

/** An HTTP error with the Anthropic error body `{type:'error', error:{type, message}}`. */
export interface FakeHttpErrorScript {
  kind: 'http_error';
  /** 400, 401, 403, 413, 429, 500, 529, ... */
  status: number;
  /** The `error.type`; defaults from the status (`rate_limit_error`, `overloaded_error`, ...). */
  type?: string;
  message?: string;
  /** Extra response headers, e.g. `retry-after`, `anthropic-ratelimit-requests-reset`. */
  headers?: Record<string, string>;
}

/** HTTP 200, some text deltas, then an SSE `event: error` (e.g. `overloaded_error`), then close. */
export interface FakeStreamErrorScript {
  kind: 'stream_error';
  /** Text streamed before the error (in `chunkSize` pieces; may be empty). */
  textBefore?: string;
  /** Default `overloaded_error`. */
  errorType?: string;
  message?: string;
  chunkSize?: number;
}

/** HTTP 200, some events (and `textBefore`), then silence until the client disconnects. */
export interface FakeStallScript {
  kind: 'stall';
  textBefore?: string;
  chunkSize?: number;
  /** Stall before sending the response headers instead (default false). */
  beforeHeaders?: boolean;
}

/** HTTP 200, some events (and `textBefore`), then the connection is cut (socket destroyed). */
export interface FakeDisconnectScript {
  kind: 'disconnect';
  textBefore?: string;
  chunkSize?: number;
}

/** One scripted answer. */
export type FakeScript =
  | FakeMessageScript
  | FakeHttpErrorScript
  | FakeStreamErrorScript
  | FakeStallScript
  | FakeDisconnectScript;

/** The parts of a Messages API request body a responder reads. */
export interface FakeRequestBody {
  model: string;
  max_tokens: number;
  system?: Array<{ type: 'text'; text: string }>;
  // biome-ignore lint/suspicious/noExplicitAny: content blocks of any type, read loosely.
  messages: Array<{ role: string; content: string | Array<Record<string, any>> }>;
  tools?: unknown[];
  tool_choice?: { type: string };
}

/** One request the fake received. */
export interface FakeRequest {
  method: string;
  path: string;
  /** Lower-cased header names, as node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (`undefined` if it was not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the wire body.
  body: any;
  /** The script that answered it (`undefined`: unscripted, or refused as too long). */
  script: FakeScript | undefined;
  /** The request's size as the fake estimates it ({@link FakeAnthropic.countTokens}). */
  tokens: number;
  /** True when it was refused for passing {@link FakeAnthropic.promptLimit}. */
  tooLong: boolean;
  /** Why the fake refused it as malformed, as the API would (null: well formed). */
  invalid: string | null;
}

/**
 * The checks the Messages API makes of a conversation that keel's requests could fail: the first
 * message is the owner's, every message but a final assistant one has content, text blocks are
 * not empty, each `tool_use` is answered by a `tool_result` in the very next message (and only
 * then), and tools are declared when tool blocks are present. Returns the API's complaint, or null.
 */
export function checkConversation(body: FakeRequestBody): string | null {
  const messages = body.messages ?? [];
  if (messages[0]?.role !== 'user') return 'messages: the first message must use the "user" role';
  let toolBlocks = false;
  for (const [i, m] of messages.entries()) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const final = i === messages.length - 1 && m.role === 'assistant';
    if (content.length === 0 && !final) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const b of content) {
      if (b.type === 'text' && b.text === '') {
        return 'messages: text content blocks must be non-empty';
      }
      if (b.type === 'tool_use' || b.type === 'tool_result') toolBlocks = true;
    }
    const uses = m.role === 'assistant' ? content.filter((b) => b.type === 'tool_use') : [];
    if (uses.length > 0) {
      const next = messages[i + 1];
      const answered = new Set(
        (typeof next?.content === 'string' ? [] : (next?.content ?? []))
          .filter((b) => b.type === 'tool_result')
          .map((b) => b.tool_use_id),
      );
      const missing = uses.map((u) => u.id).filter((id) => !answered.has(id));
      if (next?.role !== 'user' || missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    if (m.role === 'user') {
      const prev = messages[i - 1];
      const asked = new Set(
        (prev?.role === 'assistant' && typeof prev.content !== 'string' ? prev.content : [])
          .filter((b) => b.type === 'tool_use')
          .map((b) => b.id),
      );
      for (const [k, b] of content.entries()) {
        if (b.type === 'tool_result' && !asked.has(b.tool_use_id)) {
          return `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  if (toolBlocks && !(body.tools ?? []).length) {
    return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  }
  return null;
}

/**
 * The fake's estimate of a request's input tokens: a token per 4 characters of the system text,
 * the messages' text, tool calls and results, and the tool specs, as JSON.
 */
export function estimateTokens(body: unknown): number {
  const b = (body ?? {}) as { system?: unknown; messages?: unknown; tools?: unknown };
  const chars = JSON.stringify([b.system ?? '', b.messages ?? [], b.tools ?? []]).length;
  return Math.ceil(chars / 4);
}

/** A text block for a script. */
export function text(value: string): FakeBlock {
  return { type: 'text', text: value };
}

/** A tool_use block for a script; `id` defaults to a fresh `toolu_…`. */
export function toolUse(name: string, input: unknown, id?: string): FakeBlock {
  return { type: 'tool_use', name, input, ...(id === undefined ? {} : { id }) };
}

/**
 * The models a fresh fake lets a key use, newest first: the default (`claude-sonnet-4-6`), the
 * smaller `claude-haiku-4-5`, and the names keel's tests use (`claude-test`, `claude-test-1`).
 */
export const DEFAULT_MODELS: readonly string[] = [
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
  'claude-test',
  'claude-test-1',
];

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function chunks(value: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += Math.max(1, size)) out.push(value.slice(i, i + size));
  return out;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The scripted fake server. Create with {@link FakeAnthropic.start}. */
export class FakeAnthropic {
  /** Every request received, in order. */
  readonly requests: FakeRequest[] = [];
  /** Problems (unscripted requests, unknown paths, bad bodies); tests should expect this empty. */
  readonly errors: string[] = [];
  /** Closed-connection count for stalls (the client gave up on a stalled stream). */
  stallsAbandoned = 0;
  /**
   * The context window, in {@link FakeAnthropic.countTokens} tokens: a longer request is refused
   * with a 400 "prompt is too long" (null: no limit).
   */
  promptLimit: number | null = null;
  /**
   * The message of that refusal instead of the true counts: plays a proxy whose numbers do not add
   * up (e.g. "prompt is too long: 215000 tokens > 200000 maximum" for a request of a few hundred
   * tokens). Null: "prompt is too long: N tokens > M maximum" with the true counts.
   */
  promptTooLongMessage: ((tokens: number, limit: number) => string) | null = null;
  /**
   * Refuse a malformed conversation with a 400, as the API does ({@link checkConversation}).
   * Default false: wire-level tests send conversations the API would refuse.
   */
  checkConversations = false;
  /** How the fake counts a request's tokens. Default {@link estimateTokens}. */
  countTokens: (body: unknown) => number = estimateTokens;
  /**
   * Answers a request from its body before the queue is consulted; `undefined` falls through to
   * the queue. E.g. answer every compaction request with a summary.
   */
  responder: ((body: FakeRequestBody) => FakeScript | undefined) | null = null;
  /** The only key accepted (null: any key). */
  apiKey: string | null = null;
  /**
   * The model ids the key can use, newest first: the Models API lists them, and a message for
   * another model is refused with 404 `not_found_error` "model: {id}", as the API does.
   */
  models: string[] = [...DEFAULT_MODELS];
  readonly #queue: FakeScript[] = [];
  readonly #server: Server;
  readonly #waiters: Array<{ count: number; resolve: () => void }> = [];
  #port = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a server on 127.0.0.1 on a random free port. */
  static async start(): Promise<FakeAnthropic> {
    let fake: FakeAnthropic | undefined;
    const server = createServer((req, res) => {
      void fake?.handle(req, res);
    });
    fake = new FakeAnthropic(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (server.address() as AddressInfo).port;
    return fake;
  }

  /** `http://127.0.0.1:PORT` (the SDK appends `/v1/messages`). */
  get baseURL(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** The port it listens on. */
  get port(): number {
    return this.#port;
  }

  /** Scripts still unanswered. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Appends scripted answers, one per future request. */
  push(...scripts: FakeScript[]): this {
    this.#queue.push(...scripts);
    return this;
  }

  /** Shorthand: push a successful message made of these blocks. */
  reply(
    blocks: FakeBlock[] | string,
    extra: Omit<FakeMessageScript, 'kind' | 'blocks'> = {},
  ): this {
    return this.push({
      kind: 'message',
      blocks: typeof blocks === 'string' ? [text(blocks)] : blocks,
      ...extra,
    });
  }

  /** Drops the queue, the recorded requests and errors, the limit and the responder. */
  reset(): void {
    this.#queue.length = 0;
    this.requests.length = 0;
    this.errors.length = 0;
    this.stallsAbandoned = 0;
    this.promptLimit = null;
    this.promptTooLongMessage = null;
    this.checkConversations = false;
    this.countTokens = estimateTokens;
    this.responder = null;
    this.apiKey = null;
    this.models = [...DEFAULT_MODELS];
  }

  /** Resolves once `count` requests in total have arrived. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /** Closes the server, cutting any open (stalled) connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const isMessages = req.method === 'POST' && path === '/v1/messages';
    const tokens = isMessages ? this.countTokens(body) : 0;
    const invalid =
      this.checkConversations && isMessages && body !== null && typeof body === 'object'
        ? checkConversation(body as FakeRequestBody)
        : null;
    const asked = (body as { model?: unknown } | undefined)?.model;
    const unknownModel =
      isMessages && typeof asked === 'string' && !this.models.includes(asked) ? asked : null;
    const tooLong =
      isMessages && invalid === null && this.promptLimit !== null && tokens > this.promptLimit;
    const script =
      isMessages && !tooLong && invalid === null && unknownModel === null
        ? (this.responder?.(body as FakeRequestBody) ?? this.#queue.shift())
        : undefined;
    this.requests.push({
      method: req.method ?? '',
      path,
      headers: { ...req.headers },
      body,
      script,
      tokens,
      tooLong,
      invalid,
    });
    for (const waiter of [...this.#waiters]) {
      if (this.requests.length >= waiter.count) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }

    const n = this.requests.length;
    if (this.apiKey !== null) {
      const given = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
      if (given !== this.apiKey) {
        return sendError(res, 401, 'authentication_error', 'invalid x-api-key');
      }
    }
    if (req.method === 'GET') {
      const answer = answerModels(new URL(req.url ?? '/', this.baseURL), this.models);
      if (answer) return sendAnswer(res, answer);
    }
    if (!isMessages) {
      return this.fail(res, 404, `fake-anthropic: no route ${req.method} ${path} (request #${n})`);
    }
    if (body === undefined || typeof body !== 'object') {
      return this.fail(res, 400, `fake-anthropic: request #${n} body is not a JSON object`);
    }
    if (unknownModel !== null) return sendAnswer(res, modelNotFound(unknownModel));
    if (invalid !== null) return sendError(res, 400, 'invalid_request_error', invalid);
    if (tooLong) {
      return sendError(
        res,
        400,
        'invalid_request_error',
        this.promptTooLongMessage?.(tokens, this.promptLimit!) ??
          `prompt is too long: ${tokens} tokens > ${this.promptLimit} maximum`,
      );
    }
    if (script === undefined) {
      return this.fail(res, 500, `fake-anthropic: no scripted response left for request #${n}`);
    }
    const b = body as { stream?: unknown; model?: unknown };
    const model = typeof b.model === 'string' ? b.model : 'unknown';
    const stream = b.stream === true;

    switch (script.kind) {
      case 'http_error':
        return sendError(res, script.status, script.type, script.message, script.headers);
      case 'message':
        if (!stream) return sendJson(res, model, script);
        return sendStream(res, model, script);
      case 'stream_error':
        return sendStreamError(res, model, script);
      case 'stall':
        await sendStall(res, model, script);
        this.stallsAbandoned++;
        return;
      case 'disconnect': {
        const send = startSse(res);
        const events = partialEvents(model, script.textBefore ?? '', script.chunkSize ?? 4);
        for (const [event, data] of events) send(event, data);
        await delay(20);
        res.socket?.destroy();
        return;
      }
    }
  }

  private fail(res: ServerResponse, status: number, message: string): void {
    this.errors.push(message);
    sendError(res, status, ERROR_TYPES[status] ?? 'api_error', message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendAnswer(res: ServerResponse, answer: ModelsAnswer): void {
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'request-id': `req_${randomUUID()}`,
  });
  res.end(JSON.stringify(answer.body));
}

function sendBody(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}` });
  res.end(JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  status: number,
  type: string | undefined,
  message: string | undefined,
  headers: Record<string, string> = {},
): void {
  const errorType = type ?? ERROR_TYPES[status] ?? 'api_error';
  const body = JSON.stringify({
    type: 'error',
    error: { type: errorType, message: message ?? `fake ${errorType}` },
  });
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_${randomUUID()}`,
    ...headers,
  });
  res.end(body);
}

function fullUsage(usage: Partial<FakeUsage> | undefined, blocks: FakeBlock[]): FakeUsage {
  const outChars = blocks
    .map((b) => (b.type === 'text' ? b.text.length : JSON.stringify(b.input).length))
    .reduce((a, c) => a + c, 0);
  return {
    input_tokens: usage?.input_tokens ?? 25,
    output_tokens: usage?.output_tokens ?? Math.max(1, Math.ceil(outChars / 4)),
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
  };
}

function withIds(blocks: FakeBlock[]): FakeBlock[] {
  return blocks.map((b) =>
    b.type === 'tool_use' && b.id === undefined
      ? { ...b, id: `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}` }
      : b,
  );
}

function defaultStop(blocks: FakeBlock[]): string {
  return blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function messageShell(model: string, usage: FakeUsage) {
  return {
    id: `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [] as unknown[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage,
  };
}

function sendJson(res: ServerResponse, model: string, script: FakeMessageScript): void {
  const blocks = withIds(script.blocks);
  const message = messageShell(model, fullUsage(script.usage, blocks));
  message.content = blocks;
  message.stop_reason = script.stopReason ?? defaultStop(blocks);
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}` });
  res.end(JSON.stringify(message));
}

function startSse(res: ServerResponse): (event: string, data: unknown) => void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': `req_${randomUUID()}`,
  });
  res.flushHeaders();
  return (event, data) => {
    if (!res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
}

/** The events for `blocks`, from `message_start` to `message_stop`. */
function messageEvents(
  model: string,
  blocks: FakeBlock[],
  stopReason: string,
  usage: FakeUsage,
  chunkSize: number,
): Array<[string, unknown]> {
  const events: Array<[string, unknown]> = [];
  events.push([
    'message_start',
    {
      type: 'message_start',
      message: { ...messageShell(model, usage), usage: { ...usage, output_tokens: 1 } },
    },
  ]);
  events.push(['ping', { type: 'ping' }]);
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      ]);
      for (const piece of chunks(block.text, chunkSize)) {
        events.push([
          'content_block_delta',
          { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } },
        ]);
      }
    } else {
      events.push([
        'content_block_start',
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        },
      ]);
      const json = block.rawJson ?? JSON.stringify(block.input ?? {});
      for (const piece of ['', ...chunks(json, chunkSize)]) {
        events.push([
          'content_block_delta',
          {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          },
        ]);
      }
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events;
}

async function sendStream(res: ServerResponse, model: string, script: FakeMessageScript) {
  const blocks = withIds(script.blocks);
  const send = startSse(res);
  const events = messageEvents(
    model,
    blocks,
    script.stopReason ?? defaultStop(blocks),
    fullUsage(script.usage, blocks),
    script.chunkSize ?? 4,
  );
  for (const [event, data] of events) {
    if (res.destroyed) return;
    send(event, data);
    if (script.eventDelayMs) await delay(script.eventDelayMs);
  }
  res.end();
}

/** `message_start` and a text block's start and deltas, without the stop events. */
function partialEvents(model: string, textBefore: string, chunkSize: number) {
  const all = messageEvents(
    model,
    [text(textBefore)],
    'end_turn',
    fullUsage(undefined, []),
    chunkSize,
  );
  // Keep message_start, ping, content_block_start and the deltas; drop stop/delta/message_stop.
  return all.slice(0, all.length - 3).filter(([, data]) => {
    const d = data as { type: string; delta?: { text?: string } };
    return d.type !== 'content_block_delta' || (d.delta?.text ?? '') !== '';
  });
}

function sendStreamError(res: ServerResponse, model: string, script: FakeStreamErrorScript): void {
  const send = startSse(res);
  for (const [event, data] of partialEvents(
    model,
    script.textBefore ?? '',
    script.chunkSize ?? 4,
  )) {
    send(event, data);
  }
  const type = script.errorType ?? 'overloaded_error';
  send('error', {
    type: 'error',
    error: { type, message: script.message ?? (type === 'overloaded_error' ? 'Overloaded' : type) },
  });
  res.end();
}

async function sendStall(
  res: ServerResponse,
  model: string,
  script: FakeStallScript,
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    res.on('close', () => resolve());
  });
  if (!script.beforeHeaders) {
    const send = startSse(res);
    for (const [event, data] of partialEvents(
      model,
      script.textBefore ?? '',
      script.chunkSize ?? 4,
    )) {
      send(event, data);
    }
  }
  // Send nothing more, and do not end: wait for the client to give up.
  await closed;
}
