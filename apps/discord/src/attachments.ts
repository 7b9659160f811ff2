/**
 * Attachments on an owner's DM: text files are read into the message, up to a size cap; anything
 * else (images, archives, binaries) is named in the message and neither read nor stored.
 *
 * @module
 */

/** The most bytes read from one text attachment. */
export const ATTACHMENT_LIMIT_BYTES = 64 * 1024;

/** What keel needs to know about an attachment. */
export interface AttachmentInfo {
  name: string;
  url: string;
  size: number;
  contentType: string | null;
}

/** The fetch port attachments are read through (global fetch by default). */
export type FetchLike = (url: string, init?: { signal?: AbortSignal }) => Promise<Response>;

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|x-yaml|yaml|toml|javascript|typescript|x-sh|sql|csv))/i;
const TEXT_EXTENSIONS =
  /\.(txt|md|markdown|json|jsonl|csv|tsv|log|ya?ml|toml|ini|cfg|conf|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|sh|bash|zsh|sql|env\.example|diff|patch|org|rst|tex)$/i;

/** True when the attachment should be read as text. */
export function isTextAttachment(a: AttachmentInfo): boolean {
  if (a.contentType && TEXT_TYPES.test(a.contentType)) return true;
  if (a.contentType && !/^application\/octet-stream/i.test(a.contentType)) return false;
  return TEXT_EXTENSIONS.test(a.name);
}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Reads at most `limit` bytes of a response body. */
async function readCapped(res: Response, limit: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const parts: Buffer[] = [];
  let total = 0;
  let cut = false;
  if (!res.body) return { bytes: Buffer.alloc(0), cut };
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = Buffer.from(value);
    if (total + chunk.length > limit) {
      parts.push(chunk.subarray(0, limit - total));
      total = limit;
      cut = true;
      await reader.cancel().catch(() => {});
      break;
    }
    parts.push(chunk);
    total += chunk.length;
  }
  return { bytes: Buffer.concat(parts), cut };
}

/**
 * The message text with its attachments folded in: each text attachment's content (fenced, and
 * marked when cut at the cap), each other attachment as one line saying it was not read.
 */
export async function withAttachments(
  content: string,
  attachments: readonly AttachmentInfo[],
  options: { fetch?: FetchLike; limitBytes?: number; signal?: AbortSignal } = {},
): Promise<string> {
  if (attachments.length === 0) return content;
  const fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
  const limit = options.limitBytes ?? ATTACHMENT_LIMIT_BYTES;
  const parts = [content];
  for (const a of attachments) {
    if (!isTextAttachment(a)) {
      parts.push(
        `[attachment ${a.name} (${a.contentType ?? 'unknown type'}, ${humanSize(a.size)}): not read and not stored]`,
      );
      continue;
    }
    try {
      const res = await fetchImpl(a.url, options.signal ? { signal: options.signal } : {});
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const { bytes, cut } = await readCapped(res, limit);
      // A cut may split a multibyte character: drop the partial one.
      const text = new TextDecoder('utf-8').decode(bytes).replace(/\uFFFD$/, '');
      parts.push(
        `[attachment ${a.name}${cut ? `, first ${humanSize(limit)} of ${humanSize(a.size)}` : ''}]\n${text}\n[end of ${a.name}]`,
      );
    } catch (err) {
      parts.push(`[attachment ${a.name}: could not be read (${(err as Error).message})]`);
    }
  }
  return parts.filter((p) => p.length > 0).join('\n\n');
}
