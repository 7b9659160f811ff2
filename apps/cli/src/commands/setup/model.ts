/**
 * Setup's step 1: the model (an Anthropic key, an OpenAI-compatible server, a local Ollama, or
 * offline), each checked live before it is saved.
 *
 * @module
 */
import * as p from '@clack/prompts';
import type { ListedModel } from '@keel/agent';
import { listOllamaModels, ollamaHasModel } from '@keel/agent';
import { KeelError } from '@keel/errors';
import {
  CHECK_TIMEOUT_MS,
  type ConfigValues,
  listChatModels,
  type ModelListing,
  normalizeOllamaHost,
} from '@keel/host';
import {
  ask,
  type Ctx,
  candidate,
  fileValues,
  save,
  secret,
  text,
  validFor,
  value,
  verify,
} from './context.js';
import { pickModel } from './pick-model.js';

type ModelChoice = 'anthropic' | 'openai' | 'ollama' | 'offline' | 'keep';

/** The model now, in words, from the file. */
function modelNow(values: ConfigValues): string {
  const provider = text(values['model.provider']);
  if (provider) return provider;
  if (values['anthropic.api_key']) return 'anthropic (its key is set)';
  if (values['openai.api_key']) return 'openai (its key is set)';
  return 'none chosen';
}

/** Step 1: the model. */
export async function modelStep(ctx: Ctx): Promise<void> {
  const values = fileValues(ctx);
  const provider = text(values['model.provider']) as ModelChoice | undefined;
  const choice = await ask(ctx, () =>
    p.select<ModelChoice>({
      message: 'Which model should keel talk to?',
      initialValue: provider ?? 'anthropic',
      options: [
        { value: 'anthropic', label: 'Anthropic (Claude)', hint: 'an API key' },
        {
          value: 'openai',
          label: 'OpenAI or an OpenAI-compatible server',
          hint: 'OpenRouter, LM Studio, vLLM, llama.cpp',
        },
        { value: 'ollama', label: 'A local Ollama', hint: 'runs on this machine' },
        {
          value: 'offline',
          label: 'None: offline',
          hint: 'keel stores and recalls what you say, without a model',
        },
        { value: 'keep', label: `Skip: keep it as it is (${modelNow(values)})` },
      ],
    }),
  );
  switch (choice) {
    case 'anthropic':
      return anthropicStep(ctx, text(values['anthropic.api_key']));
    case 'openai':
      return openaiStep(ctx, values);
    case 'ollama':
      return ollamaStep(ctx, values);
    case 'offline':
      save(ctx, { 'model.provider': 'offline' });
      p.log.success('keel runs offline: it stores what you say and answers with what it recalls.');
      return;
    case 'keep':
      return;
  }
}

/**
 * Checks the key by listing the models it can use (`listChatModels`: one request); `listed`
 * receives them (null when none were listed).
 */
async function checkByListing(
  ctx: Ctx,
  what: string,
  changes: ConfigValues,
  againLabel: string,
): Promise<{ verdict: 'save' | 'again' | 'skip'; models: ListedModel[] | null }> {
  let listing: ModelListing | null = null;
  const verdict = await verify(
    ctx,
    what,
    async () => {
      listing = await listChatModels(candidate(ctx, changes), {
        signal: ctx.signal,
        timeoutMs: CHECK_TIMEOUT_MS,
      });
      return listing.finding;
    },
    againLabel,
  );
  return { verdict, models: (listing as ModelListing | null)?.models ?? null };
}

/**
 * Anthropic: the key (checked by listing the models it can use; saved with the provider once it
 * is taken, or when the owner says save anyway), then the model from that list.
 */
async function anthropicStep(ctx: Ctx, had: string | undefined): Promise<void> {
  for (;;) {
    const key = await secret(
      ctx,
      'anthropic.api_key',
      'Your Anthropic API key (console.anthropic.com → API keys)',
      had,
    );
    if (!key) {
      p.log.info('No key given: the model is left as it was.');
      return;
    }
    const changes = { 'model.provider': 'anthropic', 'anthropic.api_key': key } as const;
    const { verdict, models } = await checkByListing(
      ctx,
      'the key with Anthropic',
      changes,
      'Enter another key',
    );
    if (verdict === 'again') continue;
    if (verdict === 'skip') return;
    save(ctx, changes);
    const current = candidate(ctx, {}).chat.model;
    return pickModel(ctx, { key: 'anthropic.model', where: 'Anthropic', models, current });
  }
}

/**
 * An OpenAI-compatible server: its address (saved when given), its key (checked with the server's
 * model list; saved with the provider once the server takes it), then the model from that list,
 * or typed where the server lists none.
 */
async function openaiStep(ctx: Ctx, values: ConfigValues): Promise<void> {
  for (;;) {
    const now = candidate(ctx, {}).chat;
    const baseUrl = await value(
      ctx,
      'openai.base_url',
      'The API address, with its version path',
      now.openaiBaseUrl,
    );
    if (baseUrl !== now.openaiBaseUrl) save(ctx, { 'openai.base_url': baseUrl });
    const key = await secret(
      ctx,
      'openai.api_key',
      'Its API key (a local server needs none)',
      text(values['openai.api_key']),
    );
    const changes: ConfigValues = {
      'model.provider': 'openai',
      ...(key ? { 'openai.api_key': key } : {}),
    };
    const { verdict, models } = await checkByListing(
      ctx,
      `the server at ${baseUrl}`,
      changes,
      'Enter them again',
    );
    if (verdict === 'again') continue;
    if (verdict === 'skip') return;
    save(ctx, changes);
    const current = candidate(ctx, {}).chat.openaiModel;
    return pickModel(ctx, { key: 'openai.model', where: baseUrl, models, current });
  }
}

/** Chooses one of Ollama's models (or names another, to be pulled). */
async function pickOllamaModel(
  ctx: Ctx,
  message: string,
  names: string[],
  current: string,
): Promise<string> {
  const OTHER = '\u0000other';
  const options = names.map((n) => ({ value: n, label: n, hint: 'pulled' }));
  if (!names.some((n) => ollamaHasModel([n], current))) {
    options.push({ value: current, label: current, hint: `not pulled: ollama pull ${current}` });
  }
  options.push({ value: OTHER, label: 'Another model…', hint: 'named next' });
  const initial = names.find((n) => ollamaHasModel([n], current)) ?? current;
  const chosen = await ask(ctx, () =>
    p.select<string>({ message, options, initialValue: initial }),
  );
  if (chosen !== OTHER) return chosen;
  return ask(ctx, () =>
    p.text({
      message: 'Its name, as `ollama pull` takes it',
      validate: (v) => validFor('ollama.chat_model')(v) ?? (v?.trim() ? undefined : 'a name'),
    }),
  ).then((v) => v.trim());
}

async function ollamaStep(ctx: Ctx, values: ConfigValues): Promise<void> {
  const now = candidate(ctx, {});
  for (;;) {
    const host = await value(ctx, 'ollama.host', 'Where Ollama runs', now.chat.ollamaHost);
    const url = normalizeOllamaHost(host) ?? host;
    p.log.step(`Looking for Ollama at ${url}…`);
    let names: string[];
    try {
      names = await listOllamaModels(url, { timeoutMs: CHECK_TIMEOUT_MS, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted || !KeelError.isInstance(err)) throw err;
      p.log.error(
        `${err.code}: ${err.message}\nfix: Start Ollama (\`ollama serve\`, or the Ollama app), or give the address it listens on.`,
      );
      const next = await ask(ctx, () =>
        p.select<'again' | 'skip'>({
          message: 'What now?',
          options: [
            { value: 'again', label: 'Look again (or at another address)' },
            { value: 'skip', label: 'Skip: the model is left as it was' },
          ],
        }),
      );
      if (next === 'again') continue;
      return;
    }
    ctx.ollamaModels = names;
    p.log.success(
      names.length
        ? `Ollama at ${url} has: ${names.join(', ')}`
        : `Ollama at ${url} answers, with no models pulled yet`,
    );
    save(ctx, { 'ollama.host': host });
    const chat = await pickOllamaModel(
      ctx,
      'The chat model (one that supports tools)',
      names,
      text(values['ollama.chat_model']) ?? now.chat.ollamaModel,
    );
    save(ctx, { 'model.provider': 'ollama', 'ollama.chat_model': chat });
    p.log.info(
      'The belief gate is a small local model that decides which of your sentences become beliefs (without it a simpler pattern gate stands in).',
    );
    const gate = await pickOllamaModel(
      ctx,
      'The belief gate model (a small one)',
      names,
      text(values['ollama.gate_model']) ?? now.think.gateModel,
    );
    save(ctx, { 'ollama.gate_model': gate });
    for (const model of new Set([chat, gate])) {
      if (!ollamaHasModel(names, model))
        p.log.warn(`${model} is not pulled yet: ollama pull ${model}`);
    }
    p.log.success(`keel talks to ${chat} on Ollama; the belief gate uses ${gate}.`);
    return;
  }
}
