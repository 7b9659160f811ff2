/**
 * The fake Anthropic API's Models API, shaped as the real one answers: `GET /v1/models` lists the
 * models newest first, a page at a time (`limit`, default 20, 1 to 1000; `after_id`,
 * `before_id`), as `{data: [{type: 'model', id, display_name, created_at}], has_more, first_id,
 * last_id}`; `GET /v1/models/{id}` answers one, or 404 `not_found_error` "model: {id}", as the
 * API refuses a model the key cannot use.
 */

/** One entry of the Models API. */
export interface FakeModelInfo {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

/** `claude-sonnet-4-6` → `Claude Sonnet 4.6` (the API's display names read so). */
export function displayName(id: string): string {
  const words = id.replace(/-\d{8}$/, '').split('-');
  const out: string[] = [];
  for (const w of words) {
    const last = out.at(-1);
    if (/^\d+$/.test(w) && last && /^\d+(\.\d+)*$/.test(last)) out[out.length - 1] = `${last}.${w}`;
    else out.push(/^\d/.test(w) ? w : w.charAt(0).toUpperCase() + w.slice(1));
  }
  return out.join(' ');
}

/** The entries for `ids`, listed newest first: each a day older than the one before it. */
export function modelInfos(ids: readonly string[]): FakeModelInfo[] {
  const newest = Date.parse('2026-01-01T00:00:00Z');
  return ids.map((id, i) => ({
    type: 'model',
    id,
    display_name: displayName(id),
    created_at: new Date(newest - i * 86_400_000).toISOString().replace('.000Z', 'Z'),
  }));
}

/** The answer to a Models API request: its status and body. */
export interface ModelsAnswer {
  status: number;
  body: unknown;
}

/** The refusal of a model the API does not have (or the key cannot use). */
export function modelNotFound(id: string): ModelsAnswer {
  return {
    status: 404,
    body: { type: 'error', error: { type: 'not_found_error', message: `model: ${id}` } },
  };
}

/**
 * Answers `GET /v1/models[/{id}]` for the models `ids` (newest first), or null for another path.
 */
export function answerModels(url: URL, ids: readonly string[]): ModelsAnswer | null {
  const infos = modelInfos(ids);
  if (url.pathname.startsWith('/v1/models/')) {
    const id = decodeURIComponent(url.pathname.slice('/v1/models/'.length));
    const info = infos.find((m) => m.id === id);
    return info ? { status: 200, body: info } : modelNotFound(id);
  }
  if (url.pathname !== '/v1/models') return null;
  const limitText = url.searchParams.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return {
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'limit: must be between 1 and 1000' },
      },
    };
  }
  const after = url.searchParams.get('after_id');
  const before = url.searchParams.get('before_id');
  let from = 0;
  let to = infos.length;
  if (after !== null) from = infos.findIndex((m) => m.id === after) + 1;
  if (before !== null)
    to = Math.max(
      0,
      infos.findIndex((m) => m.id === before),
    );
  const page =
    before !== null && after === null
      ? infos.slice(Math.max(0, to - limit), to)
      : infos.slice(from, Math.min(to, from + limit));
  const more =
    before !== null && after === null ? infos.indexOf(page[0]!) > 0 : from + page.length < to;
  return {
    status: 200,
    body: {
      data: page,
      has_more: more,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    },
  };
}
