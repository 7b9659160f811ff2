/**
 * keel's version: the `version` of the CLI's `package.json`, read when asked (nothing else is
 * loaded for it). The file is one folder up from this module as built (`dist/`) and as bundled
 * (`bundle/`), in the repository and in an installed package alike.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/**
 * The version, e.g. `0.1.0`.
 *
 * @throws Error when `package.json` is missing or has no version (a broken install).
 */
export function keelVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  if (typeof pkg.version !== 'string') throw new Error('keel: package.json has no version');
  return pkg.version;
}
