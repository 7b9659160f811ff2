/**
 * keel as the web page holds it: the store opened the way every door opens it (`@keel/host`'s
 * `openKeel`, the configured embedder bound, falling back to lexical recall), or, when the
 * database is damaged, the same file read only, so every page still shows what it can and says
 * plainly what cannot work. Each request reads in short statements and each change is one short
 * transaction of the store's, so `keel discord` and `keel think` keep writing the same KEEL_HOME
 * (the store's busy timeout covers the overlap).
 *
 * @module
 */

import { chooseChatModel } from '@keel/agent';
import { KeelError } from '@keel/errors';
import { damageError, type KeelConfig, openKeel } from '@keel/host';
import { MemoryStore } from '@keel/memory';

/** What the pages read and change. */
export interface WebKeel {
  readonly config: KeelConfig;
  /** The store, or null when it cannot be opened at all (`problems` says why). */
  readonly store: MemoryStore | null;
  /** Why changes are refused (a damaged database, read only), or null when they are taken. */
  readonly readOnly: string | null;
  /** What cannot work, in words, shown on every page. */
  readonly problems: string[];
  /** The chat model in words (`anthropic claude-…`), or why there is none. */
  readonly model: string;
  /** Closes the store. */
  close(): void;
}

/** Opens keel for the web page; never throws for a damaged or missing store: it says so. */
export async function openWebKeel(config: KeelConfig): Promise<WebKeel> {
  const problems: string[] = [];
  const { model, problem } = await chatModel(config);
  if (problem) problems.push(problem);
  try {
    const keel = await openKeel(config, { checkIntegrity: 'cached', onEmbedderError: 'lexical' });
    if (keel.embedder.name === null) {
      problems.push(`Recall is lexical (BM25 only): ${keel.embedder.reason}.`);
    }
    return {
      config,
      store: keel.store,
      readOnly: null,
      problems,
      model,
      close: () => keel.close(),
    };
  } catch (err) {
    const damage = damageError(err);
    if (damage) return { ...readOnlyKeel(config, damage, problems), model };
    const e = KeelError.isInstance(err) ? err : null;
    problems.unshift(
      `The database cannot be opened: ${e ? `${e.code} ${e.message}` : String(err)}${e?.fix ? ` (fix: ${e.fix})` : ''}. Only the health page can say more.`,
    );
    return {
      config,
      store: null,
      readOnly: 'the database cannot be opened',
      problems,
      model,
      close() {},
    };
  }
}

/** The damaged file, read only: the pages show it, every change is refused. */
function readOnlyKeel(
  config: KeelConfig,
  damage: KeelError,
  problems: string[],
): Omit<WebKeel, 'model'> {
  const why = `The database is damaged (${damage.code}: ${damage.message}); keel writes nothing to it, so this page only shows it. Fix: ${damage.fix ?? 'see the health page'}`;
  try {
    const store = MemoryStore.open(config.paths.db, { readonly: true });
    return {
      config,
      store,
      readOnly: why,
      problems: [why, ...problems],
      close: () => store.close(),
    };
  } catch {
    return {
      config,
      store: null,
      readOnly: why,
      problems: [`${why} It cannot even be read.`, ...problems],
      close() {},
    };
  }
}

/** The chat model in words, and what to say when there is none (reflection then does not run). */
async function chatModel(config: KeelConfig): Promise<{ model: string; problem: string | null }> {
  try {
    const chat = await chooseChatModel(config.chat);
    if (chat.model) return { model: `${chat.provider} ${chat.model.model}`, problem: null };
    return {
      model: `none (${chat.reason})`,
      problem: `No chat model is configured (${chat.reason}): the think service gates and curates without reflection. keel setup chooses one.`,
    };
  } catch (err) {
    const e = KeelError.isInstance(err) ? err : null;
    const why = e ? `${e.code} ${e.message}` : String(err);
    return {
      model: `unusable (${why})`,
      problem: `The chat model cannot be used: ${why}${e?.fix ? ` (fix: ${e.fix})` : ''}.`,
    };
  }
}
