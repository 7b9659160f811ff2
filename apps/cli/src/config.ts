/**
 * The CLI's configuration: keel's one configuration from `@keel/host`, read from this process's
 * environment (the verbs take it as `config`).
 *
 * @module
 */
import { type KeelConfig, loadConfig as loadKeelConfig } from '@keel/host';

/** keel's configuration, as the verbs use it. */
export type Config = KeelConfig;

/**
 * Reads the configuration from `env` (default `process.env`).
 *
 * @throws KeelError `CONFIG_INVALID` naming every bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadKeelConfig(env);
}
