/**
 * Choosing the chat model in setup once its provider took the key: the models the provider listed
 * (the one in force offered when it is among them, else the newest Sonnet-class one, else the
 * first), or a name typed when there is no list; the choice checked live (a model the provider
 * refuses is said and the list offered again) and saved at once.
 *
 * @module
 */
import * as p from '@clack/prompts';
import type { ListedModel } from '@keel/agent';
import { CHECK_TIMEOUT_MS, type ConfigKey, checkModel } from '@keel/host';
import { ask, type Ctx, candidate, save, stopped, validFor, value } from './context.js';

/** What {@link pickModel} chooses for. */
export interface ModelPick {
  /** The setting it saves. */
  key: Extract<ConfigKey, 'anthropic.model' | 'openai.model'>;
  /** Who lists the models, for the messages (`Anthropic`, `http://127.0.0.1:1234/v1`). */
  where: string;
  /** The models listed for the key, in the provider's order; null: none could be listed. */
  models: ListedModel[] | null;
  /** The model in force now (the file's, the environment's, or the default). */
  current: string;
}

const OTHER = '\u0000other';

/**
 * The model offered first: `current` when listed, else the newest Sonnet-class model (the list is
 * newest first), else the first listed.
 */
export function preferredModel(models: ListedModel[], current: string): string | undefined {
  if (models.some((m) => m.id === current)) return current;
  return (models.find((m) => /sonnet/i.test(m.id)) ?? models[0])?.id;
}

/** Asks for the model: from the list, or typed. `refused` was just refused by the provider. */
async function askModel(ctx: Ctx, pick: ModelPick, refused: string | null): Promise<string> {
  const { models, current } = pick;
  if (!models || models.length === 0) {
    return value(ctx, pick.key, 'The model (one that calls tools)', refused ?? current);
  }
  const listed = models.filter((m) => m.id !== refused);
  const initial = preferredModel(listed, current) ?? OTHER;
  const options = listed.map((m) => ({
    value: m.id,
    label: m.id,
    hint: [m.displayName, m.id === current ? 'now' : undefined].filter(Boolean).join(', '),
  }));
  options.push({ value: OTHER, label: 'Another model…', hint: 'typed next' });
  const chosen = await ask(ctx, () =>
    p.select<string>({
      message: `Which model? (${listed.length} listed by ${pick.where})`,
      options,
      initialValue: initial,
      maxItems: 12,
    }),
  );
  if (chosen !== OTHER) return chosen;
  return ask(ctx, () =>
    p.text({
      message: 'The model name',
      validate: (v) => validFor(pick.key)(v) ?? (v?.trim() ? undefined : 'a name'),
    }),
  ).then((v) => v.trim());
}

/**
 * Chooses the model (see the module description), checks it with one live lookup and saves it
 * when it differs from the one in force. A refused model (`MODEL_NOT_FOUND`) is said and the list
 * offered again; another failure asks: choose again, save anyway, or skip.
 */
export async function pickModel(ctx: Ctx, pick: ModelPick): Promise<void> {
  const { models, current } = pick;
  if (models && models.length > 0 && !models.some((m) => m.id === current)) {
    p.log.warn(
      `${current} (the model now) is not among the models ${pick.where} lists for this key.`,
    );
  }
  let refused: string | null = null;
  for (;;) {
    const model = await askModel(ctx, pick, refused);
    p.log.step(`Checking ${model}…`);
    const found = await checkModel(candidate(ctx, { [pick.key]: model }), {
      signal: ctx.signal,
      timeoutMs: CHECK_TIMEOUT_MS,
    });
    if (ctx.signal.aborted) throw stopped();
    if (found.status === 'fail' && found.code === 'MODEL_NOT_FOUND') {
      p.log.error(
        `${found.code}: ${found.detail}\n${model} is refused for this key: choose another.`,
      );
      refused = model;
      continue;
    }
    if (found.status === 'fail') {
      p.log.error(`${found.code}: ${found.detail}\nfix: ${found.fix}`);
      const next = await ask(ctx, () =>
        p.select<'again' | 'save' | 'skip'>({
          message: 'What now?',
          options: [
            { value: 'again', label: 'Choose the model again' },
            { value: 'save', label: `Save ${model} anyway` },
            { value: 'skip', label: `Skip: the model stays ${current}` },
          ],
        }),
      );
      if (next === 'again') continue;
      if (next === 'skip') return;
    } else if (found.status === 'warn') {
      p.log.warn(`${found.code}: ${found.detail}`);
    } else {
      p.log.success(found.detail);
    }
    if (model !== current) save(ctx, { [pick.key]: model });
    p.log.success(`keel talks to ${model}${model === current ? ' (as it did)' : ''}.`);
    return;
  }
}
