// A separate OS process that writes through the real store: used by the concurrency test.
// argv: dbPath, count, label. Waits for "go" on stdin so that all writers start together.
import { MemoryStore } from '@keel/memory';

const [dbPath, countArg, label] = process.argv.slice(2);
const count = Number(countArg);
const store = MemoryStore.open(dbPath);
const errors = [];
const decisions = {};
const write = (i) => {
  try {
    const r = store.remember({
      kind: 'fact',
      key: `item_${i}`,
      value: `shared value ${i}`,
      source: 'observed',
      channel: `writer-${label}`,
    });
    decisions[r.decision] = (decisions[r.decision] ?? 0) + 1;
  } catch (err) {
    errors.push(`${err.code ?? ''} ${err.message}`);
  }
};
process.stdin.once('data', () => {
  for (let i = 0; i < count; i++) write(i);
  for (let i = 0; i < count; i++) write(i);
  store.close();
  process.stdout.write(JSON.stringify({ label, errors, decisions }));
  process.exit(0);
});
process.stdout.write('ready\n');
