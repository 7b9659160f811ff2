/**
 * Setup's step 4: the embedder (`keel models pull` offered when its hub answers).
 *
 * @module
 */
import * as p from '@clack/prompts';
import { ollamaHasModel } from '@keel/agent';
import { CHECK_TIMEOUT_MS, runApp } from '@keel/host';
import { listInstalledModels, MINILM } from '@keel/memory';
import { keelMain } from '../service.js';
import { ask, type Ctx, candidate, stopped } from './context.js';

/** Whether `url` answers at all (any HTTP status) within a few seconds. */
async function reachable(url: string, signal: AbortSignal): Promise<boolean> {
  try {
    await fetch(url, {
      method: 'HEAD',
      signal: AbortSignal.any([signal, AbortSignal.timeout(CHECK_TIMEOUT_MS)]),
    });
    return true;
  } catch {
    return false;
  }
}
/** Step 4: the embedder. */
export async function embedderStep(ctx: Ctx): Promise<void> {
  const config = candidate(ctx, {});
  if (config.embedder.choice === 'none') {
    p.log.info('The embedder is switched off (embedder.provider none): recall matches words.');
    ctx.embedder = 'none (switched off): recall matches words (lexical)';
    return;
  }
  const installed = listInstalledModels(config.paths.models).filter((m) => m.installed);
  if (installed.length > 0) {
    p.log.success(
      `The local embedder is installed (${installed.map((m) => m.id).join(', ')}): recall matches meaning as well as words.`,
    );
    ctx.embedder = `${MINILM.name}: hybrid recall`;
    return;
  }
  if (ctx.ollamaModels && ollamaHasModel(ctx.ollamaModels, config.embedder.ollamaModel)) {
    p.log.success(
      `Ollama has ${config.embedder.ollamaModel}: recall embeds with it and matches meaning as well as words.`,
    );
    ctx.embedder = `ollama ${config.embedder.ollamaModel}: hybrid recall`;
    return;
  }
  const endpoint = config.embedder.hfEndpoint;
  p.log.step(`The embedder: looking for ${endpoint}…`);
  if (!(await reachable(endpoint, ctx.signal))) {
    if (ctx.signal.aborted) throw stopped();
    p.log.info(
      `${endpoint} cannot be reached: skipped. Recall matches words (lexical) until \`keel models pull\`, run when online.`,
    );
    return;
  }
  const choice = await ask(ctx, () =>
    p.select<'pull' | 'skip'>({
      message: `Download the local embedder (${MINILM.id}, about 23 MB)? Recall then matches meaning as well as words.`,
      options: [
        { value: 'pull', label: 'Download it now (keel models pull)' },
        { value: 'skip', label: 'Skip: recall matches words (keel models pull later)' },
      ],
    }),
  );
  if (choice === 'skip') {
    p.log.info('Skipped: recall stays lexical until `keel models pull`.');
    return;
  }
  const code = await runApp(keelMain(), ['models', 'pull'], { env: ctx.env });
  if (ctx.signal.aborted) throw stopped();
  if (code === 0) {
    p.log.success('The embedder is installed: recall is hybrid from now on.');
    ctx.embedder = `${MINILM.name}: hybrid recall`;
  } else {
    p.log.warn(
      'The download failed (see above): recall stays lexical. `keel models pull` tries again.',
    );
  }
}
