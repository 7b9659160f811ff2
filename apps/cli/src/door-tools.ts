/**
 * The tools a turn at the terminal or `keel ask` offers its model (`openTools` of `@keel/host`:
 * the memory tools, the built-ins the owner enabled, the owner's MCP servers), with what was wrong
 * in `mcp.json` said on stderr as warnings (each with its fix): a bad server entry is left out,
 * never a reason not to answer. A file that cannot be read at all is said the same way, and the
 * door goes on with the built-ins alone.
 *
 * @module
 */
import { KeelError } from '@keel/errors';
import { type KeelTools, openTools } from '@keel/host';
import type { Config } from './config.js';

/** One warning line (and its fix) on stderr. */
function warn(err: KeelError): void {
  process.stderr.write(`warning ${err.code}: ${err.message}\nfix: ${err.fix}\n`);
}

/**
 * Opens the door's tools; `mcp.json`'s problems are warnings. `waitForServers`: resolve once every
 * MCP server is up or has failed (`keel tools`); else they start while the door opens.
 */
export async function doorTools(
  config: Config,
  options: { waitForServers?: boolean } = {},
): Promise<KeelTools> {
  try {
    const tools = await openTools(config, options);
    for (const problem of tools.problems) warn(problem);
    return tools;
  } catch (err) {
    if (!KeelError.isInstance(err)) throw err;
    warn(err);
    return openTools(config, { mcp: false });
  }
}
