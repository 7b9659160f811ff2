// A separate OS process standing in for a live turn: on "go" (stdin) it writes the owner's word
// for the same slot a reflection tick is writing, through the real store.
// argv: dbPath, episodeId.
import { MemoryStore } from '@keel/memory';

const [dbPath, episodeArg] = process.argv.slice(2);
const store = MemoryStore.open(dbPath);
const errors = [];
let decision = null;
process.stdin.once('data', () => {
  try {
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
  process.stdout.write(JSON.stringify({ errors, decision }));
  process.exit(0);
});
process.stdout.write('ready\n');
