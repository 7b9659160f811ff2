/**
 * Splitting a reply into Discord messages: each at most {@link DISCORD_MESSAGE_LIMIT} characters
 * (UTF-16 code units, which is never fewer than the code points Discord counts, so a chunk never
 * runs over), broken at paragraph or line boundaries where possible, never inside a surrogate pair
 * or grapheme cluster, with code fences closed at the end of a chunk and reopened (with their
 * language) at the start of the next so every chunk renders on its own.
 *
 * @module
 */

/** Discord's limit on a message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

const FENCE = /^\s*(`{3,}|~{3,})(.*)$/;

interface OpenFence {
  /** The opening line as written (e.g. "```ts"). */
  open: string;
  /** The marker run that closes it (e.g. "```"). */
  marker: string;
}

/** The grapheme segmenter, made on first use (not at start-up). */
let segmenter: Intl.Segmenter | undefined;

/**
 * Cuts one over-long line into pieces of at most `room` characters: at the last space in the
 * second half of a piece when there is one, else at a grapheme boundary.
 */
function hardSplit(line: string, room: number): string[] {
  const out: string[] = [];
  let piece = '';
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(line)) {
    if (piece.length + segment.length > room && piece.length > 0) {
      const space = piece.lastIndexOf(' ');
      if (space >= room / 2) {
        out.push(piece.slice(0, space + 1));
        piece = piece.slice(space + 1);
      } else {
        out.push(piece);
        piece = '';
      }
    }
    // A single grapheme longer than the room (absurd, but possible): split by code points.
    if (segment.length > room) {
      for (const cp of segment) {
        if (piece.length + cp.length > room) {
          out.push(piece);
          piece = '';
        }
        piece += cp;
      }
    } else piece += segment;
  }
  if (piece) out.push(piece);
  return out;
}

/**
 * Splits `text` into messages of at most `limit` characters.
 *
 * @param limit - the largest chunk, default {@link DISCORD_MESSAGE_LIMIT}; at least 64.
 * @returns the chunks in order; empty for blank text.
 */
export function splitMessage(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  if (limit < 64) throw new RangeError('limit must be at least 64 characters');
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const chunks: string[] = [];
  let fence: OpenFence | null = null;
  let current = '';
  // Whether `current` holds more than a reopened fence line.
  let hasBody = false;

  const closing = () => (fence ? `\n${fence.marker}` : '');
  const flush = () => {
    if (hasBody) {
      const body = fence ? `${current.replace(/\n+$/, '')}${closing()}` : current;
      const trimmed = body.replace(/\s+$/, '');
      if (trimmed) chunks.push(trimmed);
    }
    current = fence ? `${fence.open}\n` : '';
    hasBody = false;
  };
  /** Appends one line (without its newline) to the current chunk, flushing first if needed. */
  const append = (line: string) => {
    const piece = current.length === 0 || current.endsWith('\n') ? line : `\n${line}`;
    // Room must be left to close a fence this chunk is inside (after this line's state change).
    if (current.length + piece.length + closing().length > limit && hasBody) flush();
    const sep = current.length === 0 || current.endsWith('\n') ? '' : '\n';
    const room = limit - current.length - sep.length - closing().length;
    if (line.length <= room) {
      current += sep + line;
      hasBody = true;
      return;
    }
    // One line longer than a whole chunk: cut it.
    const parts = hardSplit(
      line,
      Math.max(16, limit - (fence ? fence.open.length + 1 : 0) - closing().length),
    );
    parts.forEach((part, k) => {
      if (current.length + part.length + closing().length > limit && hasBody) flush();
      // Continuation pieces of one line are joined without a newline.
      const s = k > 0 || current.length === 0 || current.endsWith('\n') ? '' : '\n';
      if (current.length + s.length + part.length + closing().length > limit && hasBody) flush();
      current += (current.length === 0 ? '' : s) + part;
      hasBody = true;
    });
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = FENCE.exec(line);
    if (!fence && line.trim() === '' && hasBody) {
      // A paragraph boundary: break here if the next paragraph would not fit and this chunk is
      // already half full.
      let next = 0;
      for (let j = i + 1; j < lines.length && lines[j]!.trim() !== ''; j++) {
        next += lines[j]!.length + 1;
      }
      if (current.length + 1 + next > limit && current.length >= limit / 2) {
        flush();
        continue;
      }
    }
    if (m) {
      const marker = m[1]!;
      if (!fence) {
        // Reserve room for the fence's own closing line: the whole opening must fit with it.
        const open = line.trim();
        if (current.length + 1 + open.length + marker.length + 1 > limit && hasBody) flush();
        append(line);
        fence = { open, marker };
        continue;
      }
      if (marker[0] === fence.marker[0] && marker.length >= fence.marker.length && !m[2]!.trim()) {
        const wasOpen: OpenFence = fence;
        fence = null;
        // The closing line always fits: its room was reserved.
        const sep = current.length === 0 || current.endsWith('\n') ? '' : '\n';
        current += sep + wasOpen.marker;
        hasBody = true;
        continue;
      }
    }
    append(line);
  }
  flush();
  return chunks;
}
