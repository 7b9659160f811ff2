/**
 * The `fetch_url` tool: one HTTP(S) GET, redirects followed by hand and each hop checked, never to
 * a loopback, private or other non-public address unless the owner allows it; the body is read as
 * a stream up to a byte cap, and an HTML page comes back as readable text.
 *
 * @module
 */
import { Agent, type Dispatcher, request } from 'undici';
import { z } from 'zod';
import type { Tool, ToolResult } from '../contract.js';
import {
  type AddressClass,
  classifyAddress,
  findRefusal,
  guardedLookup,
  isIpLiteral,
} from './address.js';
import { formatBytes, looksBinary, MIB } from './bytes.js';
import { type PageFormat, readablePage } from './html.js';
import { definedOnly } from './paths.js';

/** What `fetch_url` needs from the host. */
export interface FetchUrlToolOptions {
  /** Whether loopback, private, link-local, CGNAT and other non-public addresses may be reached. Default false. */
  allowPrivate?: boolean;
  /** Time limit of the whole call (every hop and the body), in milliseconds. Default {@link FETCH_DEFAULTS}.timeoutMs. */
  timeoutMs?: number;
  /** Bytes of the body read at most; the rest is not read. Default {@link FETCH_DEFAULTS}.maxBytes. */
  maxBytes?: number;
  /** Characters of text returned at most. Default {@link FETCH_DEFAULTS}.maxChars. */
  maxChars?: number;
  /** Redirects followed at most. Default {@link FETCH_DEFAULTS}.maxRedirects. */
  maxRedirects?: number;
  /** The `User-Agent` header. Default {@link FETCH_DEFAULTS}.userAgent. */
  userAgent?: string;
  /**
   * How an address is judged, public or not, at every hop (a literal address before the request,
   * a name's addresses when it is resolved). Default `classifyAddress`; a test names its fake
   * server on 127.0.0.1 public with it.
   */
  classify?: (address: string) => AddressClass;
}

/** The defaults of {@link FetchUrlToolOptions}. */
export const FETCH_DEFAULTS = {
  allowPrivate: false,
  /** 15 s. */
  timeoutMs: 15_000,
  /** 2 MiB. */
  maxBytes: 2 * MIB,
  /** 50,000 characters (about 12,000 tokens). */
  maxChars: 50_000,
  /** 5 redirects. */
  maxRedirects: 5,
  userAgent: 'keel (personal agent; fetch_url)',
  classify: classifyAddress,
} as const;

type Settings = Required<FetchUrlToolOptions>;

const fetchInput = z.object({
  url: z.string().min(1).describe('An http:// or https:// address.'),
  format: z
    .enum(['markdown', 'text'])
    .default('markdown')
    .describe('How an HTML page comes back: Markdown (links and headings kept) or plain text.'),
});

/** The input of `fetch_url`. */
export type FetchUrlInput = z.infer<typeof fetchInput>;

/** The statuses that redirect (the `Location` header says where). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A response whose body is still unread. */
interface Hop {
  url: URL;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/** Why a call stopped before a response was read; `exit` is the tool log's outcome. */
class Stop extends Error {
  constructor(
    message: string,
    readonly exit: string,
  ) {
    super(message);
  }
}

/**
 * Makes `fetch_url` (effect `network`, asks by default). Its result is a header (final URL,
 * status, content type, title, what was cut) and the text; a binary body is named with its size,
 * not read. A status of 400 or above is an error result that still shows the body.
 */
export function fetchUrlTool(options: FetchUrlToolOptions = {}): Tool<FetchUrlInput> {
  const settings: Settings = { ...FETCH_DEFAULTS, ...definedOnly(options) };
  return {
    name: 'fetch_url',
    description:
      'Fetches a web page or text file with HTTP GET and returns it as readable text (HTML pages as Markdown by default). ' +
      `At most ${formatBytes(settings.maxBytes)} are read and ${settings.maxChars} characters returned; binary files are named, not read.`,
    input: fetchInput,
    // Input mode: `format` has a default, so the model may leave it out.
    inputSchema: z.toJSONSchema(fetchInput, { io: 'input' }),
    effect: 'network',
    origin: 'builtin',
    exactKey: (input) => input.url,
    summary: (input) => `fetch ${input.url}`,
    async execute(input, context) {
      if (context.signal.aborted)
        return { content: 'Cancelled.', isError: true, exit: 'cancelled' };
      const timeout = AbortSignal.timeout(settings.timeoutMs);
      const signal = AbortSignal.any([context.signal, timeout]);
      const lookup = guardedLookup(settings.allowPrivate, undefined, settings.classify);
      const agent = new Agent({ connect: { lookup } });
      try {
        const hop = await follow(input.url, settings, agent, signal);
        return await readResponse(hop, settings, input.format, signal);
      } catch (error) {
        if (error instanceof Stop)
          return { content: error.message, isError: true, exit: error.exit };
        if (context.signal.aborted)
          return { content: 'Cancelled.', isError: true, exit: 'cancelled' };
        if (timeout.aborted) {
          return {
            content: `No complete answer from ${input.url} within ${settings.timeoutMs / 1000} s.`,
            isError: true,
            exit: 'timeout',
          };
        }
        const refusal = findRefusal(error);
        if (refusal) return refusedResult(refusal.message);
        return {
          content: `${input.url} could not be fetched: ${describeError(error)}`,
          isError: true,
          exit: 'error',
        };
      } finally {
        agent.destroy().catch(() => {});
      }
    },
  };
}

/** Requests `start`, following redirects up to the cap; every hop's scheme and literal address is checked. */
async function follow(
  start: string,
  settings: Settings,
  agent: Agent,
  signal: AbortSignal,
): Promise<Hop> {
  let url = parseTarget(start);
  for (let redirects = 0; ; redirects++) {
    checkTarget(url, settings);
    const response = await request(url, {
      method: 'GET',
      dispatcher: agent,
      signal,
      headers: { 'user-agent': settings.userAgent, accept: 'text/html,text/*;q=0.9,*/*;q=0.8' },
    });
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode) || typeof location !== 'string') {
      return { url, status: response.statusCode, headers: response.headers, body: response.body };
    }
    discard(response.body);
    if (redirects >= settings.maxRedirects) {
      throw new Stop(
        `Stopped after ${settings.maxRedirects} redirects (last at ${url.href}, to ${location}).`,
        'redirects',
      );
    }
    url = parseTarget(location, url);
  }
}

function parseTarget(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new Stop(`${text} is not a URL.`, 'invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Stop(
      `Only http:// and https:// addresses are fetched, not ${url.protocol}//.`,
      'refused',
    );
  }
  return url;
}

/** Refuses a literal IP address that is not public (names are checked when they are resolved). */
function checkTarget(url: URL, settings: Settings): void {
  if (settings.allowPrivate || !isIpLiteral(url.hostname)) return;
  const judged = settings.classify(url.hostname);
  if (!judged.public)
    throw new Stop(refusalText(`${url.host} is a ${judged.range} address`), 'refused');
}

function refusalText(what: string): string {
  return `Refused: ${what}; fetch_url reaches only public addresses (the owner's allowPrivate setting allows others).`;
}

function refusedResult(message: string): ToolResult {
  return { content: refusalText(message), isError: true, exit: 'refused' };
}

/** The media type of a response, lower-case, without parameters (`text/html`), or null. */
function mediaType(headers: Hop['headers']): { type: string | null; charset: string } {
  const raw = headers['content-type'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return { type: null, charset: 'utf-8' };
  const [type, ...params] = value.split(';');
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='));
  return {
    type: type?.trim().toLowerCase() || null,
    charset: charset?.slice(8).replace(/"/g, '') || 'utf-8',
  };
}

function isHtml(type: string): boolean {
  return type === 'text/html' || type === 'application/xhtml+xml';
}

/** Text types passed through as they are. */
function isText(type: string): boolean {
  return (
    type.startsWith('text/') ||
    /^application\/(json|xml|javascript|ecmascript|x-ndjson|ndjson|yaml|x-yaml|toml|csv|x-sh|sql|graphql)$/.test(
      type,
    ) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}

/** Reads the body up to the byte cap (the rest is never read) and makes the result. */
async function readResponse(
  hop: Hop,
  settings: Settings,
  format: PageFormat,
  signal: AbortSignal,
): Promise<ToolResult> {
  const { type, charset } = mediaType(hop.headers);
  const declared = Number(firstHeader(hop.headers['content-length']) ?? Number.NaN);
  if (type && !isHtml(type) && !isText(type)) {
    discard(hop.body);
    const size = Number.isFinite(declared)
      ? `${formatBytes(declared)} (${declared} bytes)`
      : 'size not given';
    return result(hop, type, null, `[binary content, ${size}; not read]`, [], settings);
  }
  const { bytes, cut } = await readCapped(hop.body, settings.maxBytes, declared, signal);
  const notes: string[] = [];
  if (cut) {
    const of = Number.isFinite(declared) ? ` of ${formatBytes(declared)}` : '';
    notes.push(`body cut at ${formatBytes(settings.maxBytes)}${of}; the rest was not read`);
  }
  if (!type && looksBinary(bytes)) {
    return result(
      hop,
      'unknown',
      null,
      `[binary content, at least ${formatBytes(bytes.length)}; not read]`,
      notes,
      settings,
    );
  }
  const text = decode(bytes, charset);
  const html = type ? isHtml(type) : /^\s*(<!doctype html|<html)/i.test(text);
  if (!html) return result(hop, type ?? 'unknown', null, text, notes, settings);
  const page = readablePage(text, hop.url.href, format);
  if (!page.article) notes.push('no article found: the text of the whole page follows');
  return result(hop, type ?? 'text/html', page.title, page.text, notes, settings);
}

/**
 * Reads chunks until the stream ends or `cap` bytes are in; then stops reading (the connection is
 * closed). A body that fills the cap exactly counts as cut unless its declared length says it ended.
 */
async function readCapped(
  body: Hop['body'],
  cap: number,
  declared: number,
  signal: AbortSignal,
): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  let cut = false;
  for await (const chunk of body) {
    if (signal.aborted) break;
    const room = cap - total;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      total += room;
      cut = chunk.length > room || declared !== cap;
      break;
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  discard(body);
  signal.throwIfAborted();
  return { bytes: Buffer.concat(chunks, total), cut };
}

/** Stops reading a body and closes its connection (the stream's abort error is expected, not thrown). */
function discard(body: Hop['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes, { stream: true });
  } catch {
    return new TextDecoder('utf-8').decode(bytes, { stream: true });
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The header lines and the text, cut to the character cap. */
function result(
  hop: Hop,
  type: string,
  title: string | null,
  text: string,
  notes: string[],
  settings: Settings,
): ToolResult {
  let body = text;
  if (body.length > settings.maxChars) {
    notes.push(`text cut at ${settings.maxChars} of ${body.length} characters`);
    body = body.slice(0, settings.maxChars);
  }
  const lines = [`URL: ${hop.url.href}`, `Status: ${hop.status}`, `Content-Type: ${type}`];
  if (title) lines.push(`Title: ${title}`);
  for (const note of notes) lines.push(`Note: ${note}`);
  return {
    content: `${lines.join('\n')}\n\n${body}`,
    isError: hop.status >= 400,
    exit: String(hop.status),
  };
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const code =
    (error as { code?: unknown }).code ?? (cause as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the name does not resolve';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  return typeof code === 'string' ? `${message} (${code})` : message;
}
