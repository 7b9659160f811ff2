// The owner's explicit statement, captured with its time: "since when" is the day a time phrase
// names in the owner's zone, never a guess, and never part of the value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureErrorNote, captureOwnerStatement } from './capture.js';

const tz = 'America/Los_Angeles';
/** Said at 00:30 on 2 December in Los Angeles (PST, UTC−8: 08:30 UTC). */
const SAID = Date.UTC(2026, 11, 2, 8, 30);

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-capture-'));
  store = MemoryStore.open(join(dir, 'keel.db'), { now: () => SAID });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Says `text` as the owner's turn and captures it; returns the belief written. */
function say(text: string) {
  const episode = store.addEpisode({ channel: 'terminal', role: 'owner', text, occurredAt: SAID });
  const { write, error } = captureOwnerStatement(store, text, episode.id, tz);
  expect(error).toBeNull();
  return write!.fact!;
}

describe('captureOwnerStatement: the time said with a statement', () => {
  it('a day named relative to the line starts the belief that day, in the owner’s zone', () => {
    const fact = say('remember that I moved to Porto yesterday');
    expect([fact.key, fact.value]).toEqual(['home', 'Porto']);
    // Yesterday in Los Angeles: 1 December from 00:00 PST (08:00 UTC), not from 00:00 UTC.
    expect(fact.valid_from).toBe(Date.UTC(2026, 11, 1, 8, 0));
  });

  it('a month or a year alone leaves the start unknown, not guessed', () => {
    const fact = say('remember that I work at Acme since 2024');
    expect([fact.key, fact.value, fact.valid_from]).toEqual(['employer', 'Acme', null]);
    const home = say('remember that I moved to Lyon in March');
    expect([home.value, home.valid_from]).toEqual(['Lyon', null]);
  });

  it('a dated move replaces a home said earlier without a time', () => {
    const porto = say('remember that I live in Porto');
    const lisbon = say('remember that I moved to Lisbon yesterday');
    expect(store.current({ scope: 'owner', kind: 'profile', key: 'home' })?.id).toBe(lisbon.id);
    expect(store.fact(porto.id)).toMatchObject({
      status: 'superseded',
      valid_to: Date.UTC(2026, 11, 1, 8, 0),
    });
  });

  it('a date after the line is never a start; a statement with no time has none', () => {
    const later = say('remember that I work at Globex on Saturday');
    expect(later.valid_from).toBeNull();
    // Control: the same capture with no time phrase.
    const plain = say('remember that my dentist is Dr. Ortiz');
    expect([plain.value, plain.valid_from]).toEqual(['Dr. Ortiz', null]);
    const dated = say('remember that my dentist is Dr. Ruiz since 3 May 2024');
    expect([dated.value, dated.valid_from]).toEqual([
      'Dr. Ruiz',
      Date.UTC(2024, 4, 3, 7, 0), // 00:00 PDT (UTC−7)
    ]);
  });

  it('a time phrase before the statement is kept out of it and a known day is its start', () => {
    const moved = say('remember that on 12 May 2025 I moved to Porto');
    expect([moved.key, moved.value, moved.valid_from]).toEqual([
      'home',
      'Porto',
      Date.UTC(2025, 4, 12, 7, 0), // 00:00 PDT
    ]);
    const acme = say('remember that since 2024 I work at Acme');
    expect([acme.key, acme.value, acme.valid_from]).toEqual(['employer', 'Acme', null]);
    const siemens = say('merk dir, dass ich seit gestern bei Siemens arbeite');
    expect([siemens.key, siemens.value, siemens.valid_from]).toEqual([
      'employer',
      'Siemens',
      Date.UTC(2026, 11, 1, 8, 0), // yesterday in Los Angeles
    ]);
  });

  it('a day and month without a year is the most recent one at or before the line', () => {
    const march = say('remember that on March 3rd I moved to Lyon');
    expect([march.value, march.valid_from]).toEqual(['Lyon', Date.UTC(2026, 2, 3, 8, 0)]); // PST
    // Not yet this year when said: last year's.
    const xmas = say('remember that I work at Globex since December 25');
    expect([xmas.value, xmas.valid_from]).toEqual(['Globex', Date.UTC(2025, 11, 25, 8, 0)]);
    // Control: a month alone still leaves the start unknown.
    const month = say('remember that in March I moved to Nice');
    expect([month.value, month.valid_from]).toEqual(['Nice', null]);
  });
});

describe('captureErrorNote: what every door says when a capture failed', () => {
  it('says the code, the message and the one-line fix of the failure', () => {
    const said = `remember that my favourite story is ${'a'.repeat(3000)}`;
    const episode = store.addEpisode({ channel: 'discord', role: 'owner', text: said });
    const { error } = captureOwnerStatement(store, said, episode.id, tz);
    expect(error).toMatchObject({ code: 'TOO_LARGE' });
    const note = captureErrorNote(error!);
    expect(note).toBe(
      `(Your message is stored, but keel could not keep it as a belief: TOO_LARGE: ${error!.message}. keel doctor lists it.)\nfix: ${error!.fix}`,
    );
    expect(note).toContain('\nfix: Say what to remember in a shorter sentence');
  });

  it("a failure handed over without its fix gets its code's fix, or the bug's", () => {
    expect(captureErrorNote({ code: 'BUSY', message: 'locked' })).toMatch(
      /\nfix: Another keel process is writing; try again in a moment\.$/,
    );
    expect(captureErrorNote({ code: 'INTERNAL', message: 'boom' })).toMatch(
      /\nfix: This is a bug in keel; please report it/,
    );
    // Control: a fix given is the one said.
    expect(captureErrorNote({ code: 'BUSY', message: 'locked', fix: 'Wait.' })).toMatch(
      /\nfix: Wait\.$/,
    );
  });
});
