/**
 * A fake OpenAI-compatible Chat Completions server on 127.0.0.1 for tests that drive the real
 * `openai` client (point its `baseURL` at {@link FakeOpenAI.baseURL}, which ends in `/v1`).
 *
 * It speaks the wire protocol: `POST /v1/chat/completions` with `stream: true` answers Server-Sent
 * Events, each `data: {chat.completion.chunk}`: a first chunk with `delta.role`, the text in
 * `delta.content` pieces, each tool call as `delta.tool_calls` pieces (`index`, `id`, `type`,
 * `function.name` and empty arguments first, then the arguments JSON in pieces), a chunk with the
 * `finish_reason`, a usage chunk with empty `choices` when `stream_options.include_usage` asks for
 * it, then `data: [DONE]`. Without `stream` it answers a `chat.completion` JSON object. Errors are
 * `{error: {message, type, param, code}}` with the HTTP status; an error inside a 200 stream is a
 * `data: {error: {...}}` event. `GET /v1/models` lists the model names it has seen and those in
 * {@link FakeOpenAI.models}. With {@link FakeOpenAI.apiKey} set, a request without
 * `authorization: Bearer <that key>` is answered 401 `invalid_api_key`, as OpenAI does.
 *
 * Like the real API it refuses (400, and records in {@link FakeOpenAI.errors}) a body that is
 * not well formed: no model or messages, a `tool` message that answers no earlier tool call, an
 * assistant's tool calls not all answered before the next message, both `max_tokens` and
 * `max_completion_tokens`. It can also play a model that refuses `max_tokens`
 * ({@link FakeOpenAI.refuseMaxTokens}), and a context window ({@link FakeOpenAI.promptLimit}):
 * a longer request is refused 400 `context_length_exceeded`, with the true counts or, to play a
 * proxy whose numbers do not add up, {@link FakeOpenAI.promptTooLongMessage}. 5xx answers, errors
 * inside the stream and streams that stall after some events are scripts
 * ({@link FakeOpenAIScript}).
 *
 * It is scripted: push a queue of {@link FakeOpenAIScript}s, one per request, answered in order.
 * It records every request (method, path, headers, parsed JSON body). A request with nothing
 * scripted is answered 500 and recorded in {@link FakeOpenAI.errors}.
 *
 * @example
 * const fake = await FakeOpenAI.start();
 * fake.reply('hello');
 * const client = new OpenAI({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0 });
 * // ...
 * await fake.close();
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the fake answers with; `id` defaults to a fresh `call_…`. */
export interface FakeToolCall {
  id?: string;
  name: string;
  /** Sent as JSON text (`arguments`); a string is sent as it is. */
  arguments: unknown;
}

/** The `usage` object of a completion. */
export interface FakeOpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** `prompt_tokens_details.cached_tokens`. */
  cached_tokens: number;
}

/** A complete, successful answer. */
export interface FakeOpenAIMessageScript {
  kind: 'message';
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  usage?: Partial<FakeOpenAIUsage>;
  /** Characters per content / arguments piece (default 4), so both arrive in pieces. */
  chunkSize?: number;
  /** Pause between SSE events, ms (default 0). */
  eventDelayMs?: number;
  /** Leave the `id` out of tool-call deltas (as some local servers do). */
  omitToolCallIds?: boolean;
}

/** An HTTP error with the body `{error: {message, type, param, code}}`. */
export interface FakeOpenAIHttpErrorScript {
  kind: 'http_error';
  /** 400, 401, 403, 404, 429, 500, 503, ... */
  status: number;
  /** `error.type`; defaults from the status (`invalid_request_error`, `requests`, ...). */
  type?: string;
  /** `error.code`; defaults from the status (`invalid_api_key`, `rate_limit_exceeded`, ...). */
  code?: string | null;
  message?: string;
  param?: string | null;
  /** Extra response headers, e.g. `retry-after`, `x-ratelimit-remaining-requests`. */
  headers?: Record<string, string>;
}

/** HTTP 200, some text pieces, then a `data: {error: {...}}` event, then close. */
export interface FakeOpenAIStreamErrorScript {
  kind: 'stream_error';
  textBefore?: string;
  /** Default `server_error`. */
  type?: string;
  /** `error.code`: a string, or a number as OpenRouter sends for an upstream failure. */
  code?: string | number | null;
  message?: string;
}

/** HTTP 200, some text pieces, then silence until the client disconnects. */
export interface FakeOpenAIStallScript {
  kind: 'stall';
  textBefore?: string;
  /** Stall before sending the response headers instead (default false). */
  beforeHeaders?: boolean;
}

/** HTTP 200, some text pieces, then the connection is cut (socket destroyed). */
export interface FakeOpenAIDisconnectScript {
  kind: 'disconnect';
  textBefore?: string;
}

/** One scripted answer. */
export type FakeOpenAIScript =
  | FakeOpenAIMessageScript
  | FakeOpenAIHttpErrorScript
  | FakeOpenAIStreamErrorScript
  | FakeOpenAIStallScript
  | FakeOpenAIDisconnectScript;

/** One request the fake received. */
export interface FakeOpenAIRequest {
  method: string;
  path: string;
  /** Lower-cased header names, as node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (`undefined` if it was not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the wire body.
  body: any;
  /** The script that answered it (`undefined`: unscripted or refused). */
  script: FakeOpenAIScript | undefined;
  /** Refused as longer than {@link FakeOpenAI.promptLimit}. */
  tooLong?: boolean;
}

const ERROR_DEFAULTS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

function chunks(value: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += Math.max(1, size)) out.push(value.slice(i, i + size));
  return out;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The scripted fake server. Create with {@link FakeOpenAI.start}. */
export class FakeOpenAI {
  /** Every request received, in order. */
  readonly requests: FakeOpenAIRequest[] = [];
  /** Problems (unscripted requests, malformed bodies, unknown paths); tests expect this empty. */
  readonly errors: string[] = [];
  /** Closed-connection count for stalls (the client gave up on a stalled stream). */
  stallsAbandoned = 0;
  /**
   * Play a model that refuses `max_tokens` (as OpenAI's reasoning models do): such a request is
   * answered 400 `unsupported_parameter` without using a script. Not reset by {@link reset}.
   */
  refuseMaxTokens = false;
  /**
   * The context window, in {@link FakeOpenAI.countTokens} tokens: a longer request is refused as
   * OpenAI refuses it (HTTP 400 `invalid_request_error`, `param: "messages"`, `code:
   * "context_length_exceeded"`, "This model's maximum context length is M tokens. However, your
   * messages resulted in N tokens…"), without consuming a script (null: no limit).
   */
  promptLimit: number | null = null;
  /**
   * The message of that refusal instead of the true counts: plays a proxy or server whose numbers
   * do not add up (e.g. "… maximum context length is 8192 tokens … resulted in 9000 tokens" for a
   * request of a few hundred). Null: the true counts.
   */
  promptTooLongMessage: ((tokens: number, limit: number) => string) | null = null;
  /** How the fake counts a request's tokens. Default: a token per 4 characters of the body. */
  countTokens: (body: unknown) => number = (body) => Math.ceil(JSON.stringify(body).length / 4);
  /** The only key accepted (null: any key, or none). */
  apiKey: string | null = null;
  /** Models listed besides those seen. */
  readonly models = new Set<string>();
  /**
   * Play OpenAI itself: a completion for a model not in {@link FakeOpenAI.models} is refused 404
   * `model_not_found` ("The model `x` does not exist or you do not have access to it."), without
   * using a script; only those models are listed. False (a local server): any name is served.
   */
  onlyListed = false;
  /** False plays a server without `GET /v1/models` (it answers 404). */
  listsModels = true;
  readonly #queue: FakeOpenAIScript[] = [];
  readonly #models = new Set<string>();
  readonly #server: Server;
  #port = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a server on 127.0.0.1 on a random free port. */
  static async start(): Promise<FakeOpenAI> {
    let fake: FakeOpenAI | undefined;
    const server = createServer((req, res) => {
      void fake?.handle(req, res);
    });
    fake = new FakeOpenAI(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (server.address() as AddressInfo).port;
    return fake;
  }

  /** `http://127.0.0.1:PORT/v1` (the client appends `/chat/completions`). */
  get baseURL(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  /** Scripts still unanswered. */
  get pending(): number {
    return this.#queue.length;
  }

  /** The requests to `/v1/chat/completions`, in order. */
  get completions(): FakeOpenAIRequest[] {
    return this.requests.filter((r) => r.path === '/v1/chat/completions');
  }

  /** Appends scripted answers, one per future completion request. */
  push(...scripts: FakeOpenAIScript[]): this {
    this.#queue.push(...scripts);
    return this;
  }

  /** Shorthand: push a successful answer with this text (and these tool calls). */
  reply(text: string, extra: Omit<FakeOpenAIMessageScript, 'kind' | 'text'> = {}): this {
    return this.push({ kind: 'message', text, ...extra });
  }

  /** Drops the queue, the recorded requests and errors (between tests). */
  reset(): void {
    this.#queue.length = 0;
    this.requests.length = 0;
    this.errors.length = 0;
    this.stallsAbandoned = 0;
    this.promptLimit = null;
    this.promptTooLongMessage = null;
    this.countTokens = (body) => Math.ceil(JSON.stringify(body).length / 4);
    this.apiKey = null;
    this.models.clear();
    this.#models.clear();
    this.onlyListed = false;
    this.listsModels = true;
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
    const record: FakeOpenAIRequest = {
      method: req.method ?? '',
      path,
      headers: { ...req.headers },
      body,
      script: undefined,
    };
    this.requests.push(record);
    const n = this.requests.length;

    if (this.apiKey !== null && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return sendError(res, 401, {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: 'Incorrect API key provided.',
        param: null,
      });
    }
    if (req.method === 'GET' && path === '/v1/models' && !this.listsModels) {
      return sendError(res, 404, {
        type: 'invalid_request_error',
        code: 'unknown_url',
        message: `Unknown request URL: GET ${path}.`,
        param: null,
      });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, {
        object: 'list',
        data: [...new Set([...this.models, ...this.#models])].map((id) => ({
          id,
          object: 'model',
          created: 0,
          owned_by: 'fake',
        })),
      });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return this.fail(res, 404, `fake-openai: no route ${req.method} ${path} (request #${n})`);
    }
    const problem = wireProblem(body);
    if (problem) return this.fail(res, 400, `fake-openai: request #${n}: ${problem}`);
    const b = body as { model: string; stream?: unknown; max_tokens?: unknown };
    if (this.onlyListed && !this.models.has(b.model)) {
      return sendError(res, 404, {
        type: 'invalid_request_error',
        code: 'model_not_found',
        message: `The model \`${b.model}\` does not exist or you do not have access to it.`,
        param: null,
      });
    }
    this.#models.add(b.model);
    if (this.refuseMaxTokens && b.max_tokens !== undefined) {
      return sendError(res, 400, {
        type: 'invalid_request_error',
        code: 'unsupported_parameter',
        param: 'max_tokens',
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      });
    }
    const tokens = this.countTokens(body);
    if (this.promptLimit !== null && tokens > this.promptLimit) {
      record.tooLong = true;
      return sendError(res, 400, {
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        param: 'messages',
        message:
          this.promptTooLongMessage?.(tokens, this.promptLimit) ??
          `This model's maximum context length is ${this.promptLimit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      });
    }
    const script = this.#queue.shift();
    record.script = script;
    if (script === undefined) {
      return this.fail(res, 500, `fake-openai: no scripted response left for request #${n}`);
    }
    const stream = b.stream === true;
    const usage = (body as { stream_options?: { include_usage?: unknown } }).stream_options
      ?.include_usage;
    switch (script.kind) {
      case 'http_error': {
        const d = ERROR_DEFAULTS[script.status] ?? { type: 'api_error', code: null };
        return sendError(
          res,
          script.status,
          {
            type: script.type ?? d.type,
            code: script.code === undefined ? d.code : script.code,
            param: script.param ?? null,
            message: script.message ?? `fake ${script.status}`,
          },
          script.headers,
        );
      }
      case 'message':
        if (!stream) return sendJson(res, completion(b.model, script));
        return sendStream(res, b.model, script, usage === true);
      case 'stream_error': {
        const send = startSse(res);
        for (const chunk of textChunks(b.model, script.textBefore ?? '')) send(chunk);
        send({
          error: {
            message: script.message ?? 'The server had an error while processing your request.',
            type: script.type ?? 'server_error',
            param: null,
            code: script.code ?? null,
          },
        });
        res.end();
        return;
      }
      case 'stall': {
        const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
        if (!script.beforeHeaders) {
          const send = startSse(res);
          for (const chunk of textChunks(b.model, script.textBefore ?? '')) send(chunk);
        }
        // Send nothing more, and do not end: wait for the client to give up.
        await closed;
        this.stallsAbandoned++;
        return;
      }
      case 'disconnect': {
        const send = startSse(res);
        for (const chunk of textChunks(b.model, script.textBefore ?? '')) send(chunk);
        await delay(20);
        res.socket?.destroy();
        return;
      }
    }
  }

  private fail(res: ServerResponse, status: number, message: string): void {
    this.errors.push(message);
    const d = ERROR_DEFAULTS[status] ?? { type: 'api_error', code: null };
    sendError(res, status, { ...d, param: null, message });
  }
}

interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: Array<{ id?: unknown; type?: unknown; function?: { name?: unknown } }>;
  tool_call_id?: unknown;
}

/** What the real API would refuse in `body`, or null. */
function wireProblem(body: unknown): string | null {
  if (body === undefined || typeof body !== 'object' || body === null) {
    return 'body is not a JSON object';
  }
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return 'no model';
  if (!Array.isArray(b.messages) || b.messages.length === 0) return 'no messages';
  if (b.max_tokens !== undefined && b.max_completion_tokens !== undefined) {
    return 'both max_tokens and max_completion_tokens';
  }
  let open = new Set<string>();
  for (const [i, m] of (b.messages as WireMessage[]).entries()) {
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !open.delete(m.tool_call_id)) {
        return `messages[${i}] role 'tool' answers no preceding tool call (${String(m.tool_call_id)})`;
      }
      if (typeof m.content !== 'string') return `messages[${i}] tool content is not a string`;
      continue;
    }
    if (open.size > 0) {
      return `messages[${i}]: tool calls ${[...open].join(', ')} were not answered`;
    }
    if (!['system', 'developer', 'user', 'assistant'].includes(String(m.role))) {
      return `messages[${i}] has role ${String(m.role)}`;
    }
    if (m.role === 'assistant' && m.tool_calls) {
      for (const call of m.tool_calls) {
        if (typeof call.id !== 'string' || call.type !== 'function') {
          return `messages[${i}] has a malformed tool call`;
        }
        if (typeof call.function?.name !== 'string') return `messages[${i}] tool call has no name`;
      }
      open = new Set(m.tool_calls.map((c) => c.id as string));
    } else if (typeof m.content !== 'string') {
      return `messages[${i}] content is not a string`;
    }
  }
  if (open.size > 0) return `tool calls ${[...open].join(', ')} were not answered`;
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools)) return 'tools is not a list';
    for (const tool of b.tools as Array<{ type?: unknown; function?: { name?: unknown } }>) {
      if (tool.type !== 'function' || typeof tool.function?.name !== 'string') {
        return 'a tool is not {type: function, function: {name, ...}}';
      }
    }
  }
  return null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${randomUUID()}` });
  res.end(JSON.stringify(value));
}

function sendError(
  res: ServerResponse,
  status: number,
  error: { message: string; type: string; code: string | null; param: string | null },
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-request-id': `req_${randomUUID()}`,
    ...headers,
  });
  res.end(JSON.stringify({ error }));
}

const completionId = () => `chatcmpl-${randomUUID().replaceAll('-', '').slice(0, 24)}`;
const callId = () => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

function argumentsText(call: FakeToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function fullUsage(script: FakeOpenAIMessageScript) {
  const outChars =
    (script.text ?? '').length +
    (script.toolCalls ?? []).map((c) => argumentsText(c).length).reduce((a, c) => a + c, 0);
  const prompt = script.usage?.prompt_tokens ?? 25;
  const completionTokens = script.usage?.completion_tokens ?? Math.max(1, Math.ceil(outChars / 4));
  return {
    prompt_tokens: prompt,
    completion_tokens: completionTokens,
    total_tokens: prompt + completionTokens,
    prompt_tokens_details: { cached_tokens: script.usage?.cached_tokens ?? 0 },
  };
}

function finishReason(script: FakeOpenAIMessageScript): string {
  return script.finishReason ?? (script.toolCalls?.length ? 'tool_calls' : 'stop');
}

function completion(model: string, script: FakeOpenAIMessageScript) {
  const calls = (script.toolCalls ?? []).map((c) => ({
    id: c.id ?? callId(),
    type: 'function',
    function: { name: c.name, arguments: argumentsText(c) },
  }));
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: script.text ?? null,
          refusal: null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(script),
      },
    ],
    usage: fullUsage(script),
  };
}

function startSse(res: ServerResponse): (data: unknown) => void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': `req_${randomUUID()}`,
  });
  res.flushHeaders();
  return (data) => {
    if (!res.destroyed) {
      res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    }
  };
}

/** A chunk shell: the same id, model and time on every chunk of one answer. */
function chunker(model: string) {
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  return (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
}

/** The role chunk and the text pieces of an answer, without its end. */
function textChunks(model: string, text: string, size = 4): unknown[] {
  const chunk = chunker(model);
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...chunks(text, size).map((piece) => chunk({ content: piece })),
  ];
}

async function sendStream(
  res: ServerResponse,
  model: string,
  script: FakeOpenAIMessageScript,
  includeUsage: boolean,
): Promise<void> {
  const size = script.chunkSize ?? 4;
  const chunk = chunker(model);
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of chunks(script.text ?? '', size)) events.push(chunk({ content: piece }));
  for (const [index, call] of (script.toolCalls ?? []).entries()) {
    const id = call.id ?? callId();
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            ...(script.omitToolCallIds ? {} : { id }),
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of chunks(argumentsText(call), size)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  events.push(chunk({}, finishReason(script)));
  if (includeUsage) {
    events.push({ ...chunk({}), choices: [], usage: fullUsage(script) });
  }
  events.push('[DONE]');
  const send = startSse(res);
  for (const event of events) {
    if (res.destroyed) return;
    send(event);
    if (script.eventDelayMs) await delay(script.eventDelayMs);
  }
  res.end();
}
