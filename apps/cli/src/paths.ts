/**
 * Where keel's own files are. The CLI runs either bundled (`apps/cli/bundle/`: what `npm start`,
 * an installed `keel` and the end-to-end tests run; see `scripts/bundle.mjs`) or as tsc built it
 * (`apps/cli/dist/`); every module of either sits one folder below the CLI's package folder.
 *
 * - {@link keelMain}: the `keel` entry point (what the service units run);
 * - {@link appMain}: the think service's, the Discord door's, the MCP server's and the web page's
 *   entry points (the CLI starts them as child processes; no app imports another);
 * - {@link embedderRuntimeDir}: where `keel models pull` installs the local embedder's runtime.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** An app the CLI starts. */
export type App = 'think' | 'discord' | 'mcp' | 'web';

/** Whether `from` (a module URL) is part of the bundle: `keel.mjs` sits beside it. */
function bundled(from: string): boolean {
  return existsSync(new URL('./keel.mjs', from));
}

/**
 * The `keel` entry point: `bundle/keel.mjs`, or `dist/main.js` beside a tsc build.
 *
 * @param from - the running module's URL (default this one's).
 */
export function keelMain(from: string = import.meta.url): string {
  return fileURLToPath(new URL(bundled(from) ? './keel.mjs' : './main.js', from));
}

/**
 * The entry point of `app`: `bundle/<app>.mjs` beside the bundled CLI, else the app's own tsc
 * build in the workspace (`apps/<app>/dist/main.js`).
 *
 * @param from - the running module's URL (default this one's).
 */
export function appMain(app: App, from: string = import.meta.url): string {
  return fileURLToPath(new URL(bundled(from) ? `./${app}.mjs` : `../../${app}/dist/main.js`, from));
}

/**
 * The folder that holds the local embedder's runtime (`@huggingface/transformers` and the ONNX
 * runtime, installed by `keel models pull`): `runtime/` in the CLI's package folder
 * (`apps/cli/runtime` in a clone; inside the installed package after `npm install -g`).
 *
 * @param from - the running module's URL (default this one's).
 */
export function embedderRuntimeDir(from: string = import.meta.url): string {
  return fileURLToPath(new URL('../runtime', from));
}
