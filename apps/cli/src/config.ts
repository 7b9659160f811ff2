/**
 * The CLI's configuration: the only place keel reads the environment.
 *
 * @module
 */
import { join } from 'node:path';
import { DB_FILENAME, keelHome } from '@keel/memory';

/** Resolved configuration. */
export interface Config {
  /** The data folder (KEEL_HOME, default ~/.keel). */
  home: string;
  /** The database file inside it. */
  dbPath: string;
  /** OLLAMA_HOST, when set. */
  ollamaHost: string | null;
  /** KEEL_EMBEDDER: minilm, ollama, none, or auto (the default: the first available). */
  embedder: string;
  /** KEEL_OLLAMA_EMBED_MODEL, when set (default nomic-embed-text). */
  ollamaEmbedModel: string | null;
  /** Where local models live: `<home>/models`. */
  modelsDir: string;
  /** KEEL_HF_ENDPOINT, when set: the hub `keel models pull` downloads from. */
  hfEndpoint: string | null;
}

/** Reads the configuration from `env` (default `process.env`). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const home = keelHome(env);
  return {
    home,
    dbPath: join(home, DB_FILENAME),
    ollamaHost: env.OLLAMA_HOST?.trim() || null,
    embedder: env.KEEL_EMBEDDER?.trim().toLowerCase() || 'auto',
    ollamaEmbedModel: env.KEEL_OLLAMA_EMBED_MODEL?.trim() || null,
    modelsDir: join(home, 'models'),
    hfEndpoint: env.KEEL_HF_ENDPOINT?.trim() || null,
  };
}
