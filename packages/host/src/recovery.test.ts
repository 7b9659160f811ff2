// The recovery file: lines kept while the database is damaged, stored once by `recoverInto`.

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepForRecovery, pendingRecovery, recoverInto, recoveryPath } from './recovery.js';

const homes: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  while (homes.length) rmSync(homes.pop()!, { recursive: true, force: true });
});
function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'keel-host-recovery-'));
  homes.push(home);
  return home;
}

const T = Date.UTC(2026, 2, 1, 10, 15, 0, 123);

describe('the recovery file', () => {
  it('appends JSON lines with channel, time and text, mode 0600, secrets withheld', () => {
    const home = join(tempHome(), 'nested');
    const a = keepForRecovery(home, { channel: 'terminal', text: 'I moved to Lyon\n', at: T });
    const b = keepForRecovery(home, {
      channel: 'discord',
      text: 'my wifi password is sunshine42',
      at: T + 1,
      sourceId: 'discord:123',
    });
    expect(keepForRecovery(home, { channel: 'cli', text: '   ' }).line).toBeNull();
    expect(a.path).toBe(recoveryPath(home));
    expect(statSync(a.path).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const lines = readFileSync(a.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([a.line, b.line]);
    expect(lines[0]).toMatchObject({
      time: '2026-03-01T10:15:00.123Z',
      channel: 'terminal',
      text: 'I moved to Lyon',
    });
    expect(lines[1]).toMatchObject({ id: 'discord:123', source_id: 'discord:123' });
    expect(lines[1].text).not.toContain('sunshine42');
    expect(lines[1].text).toContain('[secret withheld]');
    expect(pendingRecovery(home).lines).toBe(2);
  });

  it('recovers each line once as the owner episode, with its time and channel, then clears the file', () => {
    const home = tempHome();
    keepForRecovery(home, { channel: 'terminal', text: 'I moved to Lyon', at: T });
    keepForRecovery(home, { channel: 'cli', text: 'remember that I love tea', at: T + 5 });
    const store = MemoryStore.openHome(home);
    try {
      const r = recoverInto(store, home);
      expect(r).toMatchObject({ recovered: 2, existing: 0, unreadable: 0 });
      expect(existsSync(recoveryPath(home))).toBe(false);
      expect(pendingRecovery(home).lines).toBe(0);
      const [first, second] = r.episodes.map((id) => store.episode(id)!);
      expect(first).toMatchObject({
        role: 'owner',
        kind: 'conversation',
        channel: 'terminal',
        text: 'I moved to Lyon',
        occurred_at: T,
        source_doc: 'recovery',
      });
      expect(second).toMatchObject({ channel: 'cli', occurred_at: T + 5 });

      // The same line again (kept twice, a rerun): stored once.
      keepForRecovery(home, { channel: 'terminal', text: 'I moved to Lyon', at: T });
      const twice = recoverInto(store, home);
      expect(twice).toMatchObject({ recovered: 0, existing: 1 });
      expect(store.recentEpisodes(10).filter((e) => e.text === 'I moved to Lyon')).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('a Discord message caught up already is not stored again; unreadable lines are kept aside', () => {
    const home = tempHome();
    const store = MemoryStore.openHome(home);
    try {
      // What the Discord door's catch-up stores for a message sent while keel was away.
      store.addEpisode({
        channel: 'discord',
        role: 'owner',
        text: 'sent while away',
        sourceId: 'discord:42',
      });
      keepForRecovery(home, {
        channel: 'discord',
        text: 'sent while away',
        at: T,
        sourceId: 'discord:42',
      });
      writeFileSync(recoveryPath(home), 'not json\n', { flag: 'a' });
      const r = recoverInto(store, home);
      expect(r).toMatchObject({ recovered: 0, existing: 1, unreadable: 1 });
      expect(readFileSync(r.unreadableFile!, 'utf8')).toBe('not json\n');
      expect(statSync(r.unreadableFile!).mode & 0o777).toBe(0o600);
      expect(existsSync(recoveryPath(home))).toBe(false);
    } finally {
      store.close();
    }
  });

  it('picks up an import that stopped half-way', () => {
    const home = tempHome();
    keepForRecovery(home, { channel: 'terminal', text: 'line one', at: T });
    const path = recoveryPath(home);
    writeFileSync(`${path}.importing-999-x`, readFileSync(path));
    rmSync(path);
    keepForRecovery(home, { channel: 'terminal', text: 'line two', at: T + 1 });
    expect(pendingRecovery(home).lines).toBe(2);
    const store = MemoryStore.openHome(home);
    try {
      expect(recoverInto(store, home)).toMatchObject({ recovered: 2 });
      expect(pendingRecovery(home).lines).toBe(0);
    } finally {
      store.close();
    }
  });

  it('keeps what a line asked to be remembered, as its door would have', () => {
    const home = tempHome();
    keepForRecovery(home, {
      channel: 'terminal',
      text: 'remember that my dentist is Dr. Ortiz',
      at: T,
    });
    keepForRecovery(home, {
      channel: 'cli',
      text: 'remember preference/coffee oat flat white',
      at: T + 1,
      verb: 'remember',
      remember: {
        scope: 'owner',
        kind: 'preference',
        key: 'coffee',
        value: 'oat flat white',
        source: 'owner_stated',
      },
    });
    keepForRecovery(home, {
      channel: 'cli',
      text: 'remember setting/wifi_password hunter2hunter2',
      at: T + 2,
      verb: 'remember',
      remember: {
        scope: 'owner',
        kind: 'setting',
        key: 'wifi_password',
        value: 'hunter2hunter2',
        source: 'owner_stated',
      },
    });
    const kept = readFileSync(recoveryPath(home), 'utf8');
    expect(kept).not.toContain('hunter2');
    expect(kept).toContain('remember setting/wifi_password [secret withheld]');
    keepForRecovery(home, { channel: 'terminal', text: 'what is my coffee?', at: T + 3 });
    const store = MemoryStore.openHome(home);
    try {
      const r = recoverInto(store, home);
      expect(r.recovered).toBe(4);
      expect(r.beliefs.map((b) => b.decision)).toEqual(['create', 'create']);
      expect(store.current({ scope: 'owner', kind: 'relationship', key: 'dentist' })).toMatchObject(
        { value: 'Dr. Ortiz', source: 'owner_stated' },
      );
      const coffee = store.current({ scope: 'owner', kind: 'preference', key: 'coffee' })!;
      expect(coffee).toMatchObject({ value: 'oat flat white', source: 'owner_stated' });
      expect(store.evidence(coffee.id)).toEqual([r.episodes[1]]);
      expect(store.episode(r.episodes[1]!)).toMatchObject({ kind: 'command', channel: 'cli' });
    } finally {
      store.close();
    }
  });

  it('keeps each line with its belief, or neither when it fails between the two writes', () => {
    const home = tempHome();
    keepForRecovery(home, { channel: 'terminal', text: 'remember that I love tea', at: T });
    keepForRecovery(home, {
      channel: 'terminal',
      text: 'remember that my dentist is Dr. Ortiz',
      at: T + 1,
    });
    const store = MemoryStore.openHome(home);
    try {
      // A fault on the second line, after its episode is written and before its belief is: the
      // write of the belief fails, and so does recording the capture failure (the process is
      // going down).
      const crash = new Error('the process died between the two writes');
      const real = store.remember.bind(store);
      const remember = vi.spyOn(store, 'remember').mockImplementation((input) => {
        if (input.value === 'Dr. Ortiz') throw crash;
        return real(input);
      });
      const record = vi.spyOn(store, 'recordCaptureFailure').mockImplementation(() => {
        throw crash;
      });
      expect(() => recoverInto(store, home)).toThrow(crash);
      expect(remember).toHaveBeenCalledTimes(2);
      // The first line whole (its episode and its belief), the second neither.
      expect(store.recentEpisodes(10).map((e) => e.text)).toEqual(['remember that I love tea']);
      expect(store.activeFacts().map((f) => f.value)).toEqual(['I love tea']);
      expect(pendingRecovery(home).lines).toBe(2);

      // Control: without the fault the next run skips the first line and keeps the second whole.
      remember.mockRestore();
      record.mockRestore();
      const r = recoverInto(store, home);
      expect(r).toMatchObject({ recovered: 1, existing: 1 });
      expect(r.beliefs).toEqual([
        { episode: r.episodes[0], decision: 'create', fact: expect.any(Number) },
      ]);
      expect(store.episode(r.episodes[0]!)?.text).toBe('remember that my dentist is Dr. Ortiz');
      const dentist = store.activeFacts().find((f) => f.value === 'Dr. Ortiz')!;
      expect(store.evidence(dentist.id)).toEqual([r.episodes[0]]);
      expect(pendingRecovery(home).lines).toBe(0);
    } finally {
      store.close();
    }
  });
});
