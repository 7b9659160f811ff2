#!/usr/bin/env node
/**
 * Entry point of the `keel` command. `keel --version` is answered here, before the argument
 * parser or anything else is loaded; everything else goes to `program.ts`.
 *
 * @module
 */
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { keelVersion } = await import('./version.js');
  process.stdout.write(`${keelVersion()}\n`);
} else {
  const { main } = await import('./program.js');
  process.exitCode = await main();
}
