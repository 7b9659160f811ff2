/**
 * {@link openKeel}: keel's parts wired from one configuration, the same way for every door: the
 * store with the configured embedder bound (so recall is hybrid wherever an embedder can run),
 * the chat model (only when asked: choosing may probe Ollama), the belief gate chooser bound to
 * the configured Ollama host and gate model, and the owner notifier. {@link openStore} opens the
 * store alone, checked the way a verb that writes needs.
 *
 * @module
 */
import { join } from 'node:path';
import { type ChatChoice, chooseChatModel } from '@keel/agent';
import { corruptionError, KeelError, refusesWrites } from '@keel/errors';
import { type BeliefGate, type ChooseBeliefGateOptions, chooseBeliefGate } from '@keel/gate';
import {
  type EmbedderSelection,
  MemoryStore,
  type StoreOptions,
  selectEmbedder,
} from '@keel/memory';
import { sendToOwner } from '@keel/outbound';
import type { KeelConfig } from './config.js';
import { DoorVectors } from './door-vectors.js';
import { ensureHome } from './files.js';
import { reachHomeBackups } from './purge-ledger.js';

/** What a door asks {@link openKeel} for beyond the store. */
export interface OpenNeeds {
  /** Choose the chat model (may probe Ollama, up to 400 ms). Default false: `chat` is null. */
  chat?: boolean;
  /**
   * What to do when the chosen embedder cannot be bound to the store (its vectors have another
   * dimension, sqlite-vec will not load): `throw` the KeelError (`EMBEDDER_MISMATCH` names
   * `keel reindex`; the CLI's verbs), or run recall `lexical` and say why in the store's recall
   * mode and in `embedder.reason` (a long-running service). Default `throw`. An embedder that
   * cannot be chosen (none installed, Ollama down) always means lexical recall, with the reason.
   */
  onEmbedderError?: 'throw' | 'lexical';
  /**
   * Check the database before anything is written to it (see {@link IntegrityCheck}): a damaged
   * page is `DB_CORRUPT` now. `true` is `full`. Default false.
   */
  checkIntegrity?: boolean | IntegrityCheck;
  /**
   * A long-running door (the terminal, Discord): build recall's full-text indexes in memory while
   * idle, and embed what each turn wrote once it is done ({@link keepRecallWarm}), so its recall
   * does not pay FTS5's per-row cost and finds the turn by meaning at once. Default false (a
   * one-shot command would build them for nothing).
   */
  warmRecall?: boolean;
}

/**
 * The time budget of one warm-up step, ms: a step ends with the first statement that passes it
 * (a statement reads at most 40,000 word occurrences, or all of one word's: 10-35 ms at 100k
 * turns on a quiet machine), and a message that arrives meanwhile waits for it.
 */
export const WARM_STEP_MS = 15;
/** How often built indexes are looked at again (facts written, a redaction, an import), ms. */
export const WARM_IDLE_MS = 2000;

/**
 * A long-running door's idle loop: keeps recall's full-text indexes in memory built for `store`
 * (`MemoryStore.warmRecall`) and embeds what was written since it last looked
 * ({@link DoorVectors}: once no turn holds the session, so after the reply, never on its path;
 * nothing without a bound embedder). Warm-up steps of about {@link WARM_STEP_MS} (see there) run
 * on unref'd timers, one after another while building (other work runs between them), then one
 * every {@link WARM_IDLE_MS} to rebuild what a write left stale; the embedding looks every
 * {@link WARM_IDLE_MS} and runs in the background. Until the indexes are built, recall asks FTS5
 * (the same ranking, slower). A step that fails (the file is busy or damaged) is tried again
 * later: it only costs speed. It ends by itself once the store is closed.
 *
 * @param options.turnUnderWay - whether a turn holds the session (default: its turn lock).
 * @returns a function that stops it (call it before closing the store); an embedding under way
 *   stores nothing more and its requests to the embedder end ({@link DoorVectors.stop}).
 */
export function keepRecallWarm(
  store: MemoryStore,
  options: { stepMs?: number; idleMs?: number; turnUnderWay?: () => boolean } = {},
): () => void {
  const stepMs = options.stepMs ?? WARM_STEP_MS;
  const idleMs = options.idleMs ?? WARM_IDLE_MS;
  const vectors = new DoorVectors(
    store,
    options.turnUnderWay ? { turnUnderWay: options.turnUnderWay } : {},
  );
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let looked = Number.NEGATIVE_INFINITY;
  const tick = () => {
    // A store closed without stopping this first: nothing left to warm.
    if (stopped || store.closed) return;
    let ready: boolean;
    try {
      ready = store.warmRecall(stepMs);
    } catch {
      ready = true; // nothing to hurry: recall asks FTS5 until a later step succeeds
    }
    const now = performance.now();
    if (now - looked >= idleMs) {
      looked = now;
      vectors.look();
    }
    timer = setTimeout(tick, ready ? idleMs : 0);
    timer.unref();
  };
  timer = setTimeout(tick, 0);
  timer.unref();
  return () => {
    stopped = true;
    vectors.stop();
    if (timer) clearTimeout(timer);
  };
}

/**
 * How a store is checked at open: `full` runs SQLite's quick check (O(file): about 25 ms for 10k
 * turns, 0.3 s for 100k); `cached` skips it when the verdict cache `$KEEL_HOME/integrity.json`
 * vouches for the file's current state (a stat and a small read); `none` does not check.
 */
export type IntegrityCheck = 'full' | 'cached' | 'none';

/** The verdict cache's name inside KEEL_HOME. */
export const INTEGRITY_CACHE_FILE = 'integrity.json';

/** The store options for a check at open (see {@link IntegrityCheck}). */
export function integrityOptions(config: KeelConfig, check: IntegrityCheck): StoreOptions {
  if (check === 'none') return {};
  return { integrity: { check, cacheFile: join(config.home, INTEGRITY_CACHE_FILE) } };
}

/**
 * Opens the store alone, checked at open (default `cached`: for every verb that writes). Close it
 * with {@link closeStore}, which records the state its writes left as sound. Every door's store is
 * opened here (through {@link openKeel} or alone): a purge through it reaches the home's backups
 * (`MemoryStore.reachBackups`, {@link reachHomeBackups}), whichever door made it.
 *
 * @throws KeelError as `MemoryStore.open` (`DB_CORRUPT` for a damaged file, nothing written).
 */
export function openStore(config: KeelConfig, check: IntegrityCheck = 'cached'): MemoryStore {
  ensureHome(config.home);
  return MemoryStore.open(config.paths.db, {
    ...integrityOptions(config, check),
    backups: reachHomeBackups(config.home),
  });
}

/**
 * Closes a store opened by {@link openStore} or {@link openKeel}: when `err` (what the work threw,
 * if anything) is damage, the store records it (the verdict cache is cleared); otherwise the state
 * its writes left is recorded as sound, so the next verb need not read the whole file.
 */
export function closeStore(store: MemoryStore, err?: unknown): void {
  // A broken journal is not damaged pages: the file's verdict stands.
  if (err !== undefined && damageError(err)?.code === 'DB_CORRUPT') store.recordDamage();
  store.close();
  store.recordSound();
}

/**
 * `err` when it says the database cannot take writes: damaged (a KeelError `DB_CORRUPT`, or
 * SQLite's corruption errors, as `DB_CORRUPT`) or its journal broken (`JOURNAL_BROKEN`: it does
 * not end where keel last wrote it). Every door then keeps the owner's words in the recovery file
 * and says how to get back. Null for anything else.
 */
export function damageError(err: unknown): KeelError | null {
  if (KeelError.isInstance(err)) return refusesWrites(err) ? err : null;
  return corruptionError(err);
}

/** Sends a message to the owner (a Discord DM); resolves once it is sent. */
export type NotifyOwner = (text: string) => Promise<void>;

/** keel, open. */
export interface OpenKeel<Chat extends ChatChoice | null = ChatChoice | null> {
  readonly config: KeelConfig;
  /** The store, with the configured embedder bound when one can run. */
  readonly store: MemoryStore;
  /** The embedder bound (`name`: provider and model), or null with why recall is lexical. */
  readonly embedder: { name: string | null; reason: string };
  /** The chat model chosen (when asked for), or null. */
  readonly chat: Chat;
  /**
   * Chooses the belief gate: Ollama (the configured host and gate model) when it answers with the
   * model, else the pattern gate; `why` says which. Options override the configured ones.
   */
  chooseGate(
    options?: Partial<ChooseBeliefGateOptions>,
  ): Promise<{ gate: BeliefGate; why: string }>;
  /** DMs the owner, or null (with the reason) when no Discord token and owner id are configured. */
  readonly owner: { notify: NotifyOwner | null; reason: string };
  /**
   * Closes the store and records the state it left as sound (see {@link closeStore}); pass what
   * the work threw, if anything, so damage is recorded instead.
   */
  close(err?: unknown): void;
}

/**
 * Chooses the embedder the configuration asks for (`KEEL_EMBEDDER`, `OLLAMA_HOST`,
 * `KEEL_OLLAMA_EMBED_MODEL`), or the first available.
 *
 * @param options.signal - ends the Ollama embedder's requests when it aborts (a bounded wait).
 * @throws KeelError `EMBEDDER_UNAVAILABLE` for an explicit choice that cannot run.
 */
export function configuredEmbedder(
  config: KeelConfig,
  options: { signal?: AbortSignal } = {},
): Promise<EmbedderSelection> {
  return selectEmbedder({
    choice: config.embedder.choice,
    modelsDir: config.paths.models,
    ollamaHost: config.embedder.ollamaHost,
    ollamaModel: config.embedder.ollamaModel,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** The owner notifier the configuration allows (see {@link OpenKeel.owner}). */
export function ownerNotifier(config: KeelConfig): OpenKeel['owner'] {
  const { token, ownerId, apiUrl } = config.discord;
  if (!token || !ownerId) {
    return {
      notify: null,
      reason:
        'DISCORD_TOKEN and KEEL_DISCORD_OWNER_ID are not both set: nothing urgent is sent to the owner',
    };
  }
  return {
    notify: async (text) => {
      await sendToOwner({ token, ownerId, ...(apiUrl ? { apiUrl } : {}) }, text);
    },
    reason: `DMs go to the Discord user ${ownerId}`,
  };
}

/** Binds the configured embedder to `store`; returns what was bound, or why recall is lexical. */
async function bindEmbedder(
  config: KeelConfig,
  store: MemoryStore,
  onError: 'throw' | 'lexical',
): Promise<OpenKeel['embedder']> {
  let selection: EmbedderSelection;
  try {
    selection = await configuredEmbedder(config);
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    selection = { embedder: null, info: null, reason: `${err.code}: ${err.message}` };
  }
  try {
    await store.useEmbedder(selection.embedder, selection.reason);
  } catch (err) {
    if (onError === 'throw' || !KeelError.isInstance(err)) throw err;
    const reason = `${err.code}: ${err.message}`;
    await store.useEmbedder(null, reason);
    return { name: null, reason };
  }
  const name = selection.info ? `${selection.info.provider} ${selection.info.model}` : null;
  return { name, reason: selection.reason };
}

/**
 * Opens keel: chooses the chat model first when asked (a provider error opens nothing), then opens
 * `<home>/keel.db` and binds the configured embedder.
 *
 * @throws KeelError from the chat choice (`MODEL_AUTH`), from opening the store (`DB_OPEN_FAILED`,
 *   `DB_CORRUPT`, `SCHEMA_FROM_FUTURE`, …) and, with `onEmbedderError: 'throw'`,
 *   `EMBEDDER_MISMATCH` / `EMBEDDER_UNAVAILABLE`; the store is closed again on any of them.
 */
export async function openKeel<N extends OpenNeeds = OpenNeeds>(
  config: KeelConfig,
  needs: N = {} as N,
): Promise<OpenKeel<N['chat'] extends true ? ChatChoice : null>> {
  type Chat = N['chat'] extends true ? ChatChoice : null;
  const chat = (needs.chat ? await chooseChatModel(config.chat) : null) as Chat;
  const check = needs.checkIntegrity === true ? 'full' : needs.checkIntegrity || 'none';
  const store = openStore(config, check);
  try {
    const embedder = await bindEmbedder(config, store, needs.onEmbedderError ?? 'throw');
    const stopWarming = needs.warmRecall ? keepRecallWarm(store) : () => {};
    return {
      config,
      store,
      embedder,
      chat,
      chooseGate: (options = {}) =>
        chooseBeliefGate({
          host: config.think.ollamaHost,
          model: config.think.gateModel,
          ...options,
        }),
      owner: ownerNotifier(config),
      close: (err?: unknown) => {
        stopWarming();
        closeStore(store, err);
      },
    };
  } catch (err) {
    closeStore(store, err);
    throw err;
  }
}
