/**
 * The CLI's configuration: the only place keel reads the environment.
 *
 * @module
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Resolved configuration. */
export interface Config {
  /** The data folder (KEEL_HOME, default ~/.keel). */
  home: string;
  /** The database file inside it. */
  dbPath: string;
  /** Set when ANTHROPIC_API_KEY is present (the key itself is never kept here). */
  anthropicKeySet: boolean;
  /** OLLAMA_HOST, when set. */
  ollamaHost: string | null;
}

/** Reads the configuration from `env` (default `process.env`). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const home = resolve(env.KEEL_HOME?.trim() || join(homedir(), '.keel'));
  return {
    home,
    dbPath: join(home, 'keel.db'),
    anthropicKeySet: Boolean(env.ANTHROPIC_API_KEY?.trim()),
    ollamaHost: env.OLLAMA_HOST?.trim() || null,
  };
}
