// A separate OS process that takes the session's turn lock and keeps it until it is killed: the
// turn-lock tests kill it (SIGKILL, as a crash or `kill -9` would) or let it live.
// argv: the session path. Prints "locked" once it holds the lock.
import { acquireTurnLock } from '../../packages/agent/src/lock.js';

const [path] = process.argv.slice(2);
if (!path) throw new Error('usage: turn-lock-holder.ts <session path>');
await acquireTurnLock(path);
process.stdout.write('locked\n');
setInterval(() => {}, 60_000);
