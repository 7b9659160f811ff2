// A separate OS process standing in for a live turn that writes the owner's word for the same
// slot a reflection tick is writing, through the real store, at the moment the tick writes.
//
// The meeting is forced, not hoped for, with two files in the barrier folder:
// - `go`: the tick holds the database's write lock and has not written its row yet (the test
//   creates it from inside the tick's write transaction, and waits there);
// - `contending`: this process has found the write lock held (an IMMEDIATE transaction with no
//   busy wait was refused), so its own write is about to queue behind the tick's.
// The test's tick carries on once `contending` exists; this write then waits on the lock and runs
// its review against whatever the tick committed.
//
// argv: dbPath, episodeId, barrier folder. Prints "ready" once the store is open, then one JSON
// line: { errors, decision, contended }.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import Database from 'better-sqlite3';

const [dbPath, episodeArg, barrier] = process.argv.slice(2);
if (!dbPath || !episodeArg || !barrier) {
  throw new Error('usage: same-fact-writer.mjs <db> <episode id> <barrier folder>');
}
/** How long to wait for the tick (a loaded machine is slow, never this slow). */
const DEADLINE_MS = 120_000;
// The write below waits behind the tick's write lock: as long as the tick may take on a loaded
// machine, not the store's everyday busy timeout.
const store = MemoryStore.open(dbPath, { busyTimeoutMs: DEADLINE_MS });
const errors = [];
let decision = null;
let contended = false;

/** Resolves once `file` exists, polling; rejects after DEADLINE_MS. */
function waitForFile(file) {
  const until = Date.now() + DEADLINE_MS;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (existsSync(file)) resolve();
      else if (Date.now() > until) reject(new Error(`${file} did not appear`));
      else setTimeout(poll, 2);
    };
    poll();
  });
}

/** Whether another connection holds the write lock right now (asked without waiting for it). */
function writeLockHeld() {
  const probe = new Database(dbPath, { timeout: 0 });
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (err) {
    if (err.code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    probe.close();
  }
}

process.stdout.write('ready\n');
try {
  await waitForFile(join(barrier, 'go'));
  contended = writeLockHeld();
  if (!contended) errors.push('the tick did not hold the write lock when the live turn wrote');
  writeFileSync(join(barrier, 'contending'), '');
  decision = store.remember({
    kind: 'profile',
    key: 'allergy',
    value: 'penicillin',
    source: 'owner_stated',
    episodeId: Number(episodeArg),
  }).decision;
} catch (err) {
  errors.push(`${err.code ?? ''} ${err.message}`);
}
store.close();
process.stdout.write(`${JSON.stringify({ errors, decision, contended })}\n`);
process.exit(0);
