/**
 * `keel web`'s arguments: `--port N` (default 0: any free port), `--open`, `--json`.
 *
 * @module
 */
import { KeelError } from '@keel/errors';

/** `keel web`'s arguments. */
export interface WebArgs {
  port: number;
  open: boolean;
  json: boolean;
}

/**
 * Reads `--port N`, `--open` and `--json`.
 *
 * @throws KeelError `INVALID_INPUT` for a port that is not 0-65535, or an unknown argument.
 */
export function parseWebArgs(argv: readonly string[]): WebArgs {
  const args: WebArgs = { port: 0, open: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--open') args.open = true;
    else if (a === '--json') args.json = true;
    else if (a === '--port' || a.startsWith('--port=')) {
      const text = a === '--port' ? argv[++i] : a.slice('--port='.length);
      const port = Number(text);
      if (!Number.isInteger(port) || port < 0 || port > 65_535 || !text) {
        throw new KeelError('INVALID_INPUT', `--port "${text ?? ''}" is not a port`, {
          fix: 'Give a port from 1 to 65535 (or 0, the default: any free port).',
        });
      }
      args.port = port;
    } else {
      throw new KeelError('INVALID_INPUT', `unknown argument "${a}"`, {
        fix: 'keel web [--port N] [--open]',
      });
    }
  }
  return args;
}
