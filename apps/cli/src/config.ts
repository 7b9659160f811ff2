/**
 * The CLI's configuration: keel's one configuration from `@keel/host`, read from this process's
 * environment and `$KEEL_HOME/config.toml` beneath it (the verbs take it as `config`).
 *
 * @module
 */
import { type KeelConfig, readConfig } from '@keel/host';

/** keel's configuration, as the verbs use it. */
export type Config = KeelConfig;

/**
 * Reads the configuration from `env` (default `process.env`) and the config file.
 *
 * @throws KeelError `CONFIG_INVALID` naming every bad variable, or the file, line and key.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return readConfig(env);
}
