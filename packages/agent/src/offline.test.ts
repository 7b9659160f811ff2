// The offline session's "remember that …": the owner's line (an episode) and the belief it states
// are written as one unit of work. Real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OfflineSession } from './offline.js';

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-offline-'));
  store = MemoryStore.open(join(dir, 'keel.db'));
});
afterEach(() => {
  vi.restoreAllMocks();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('"remember that …" offline', () => {
  it('keeps the message and the belief together, or neither when it fails between the two writes', async () => {
    const session = new OfflineSession(store, { channel: 'terminal' });
    // A fault after the episode is written and before the belief is: the write of the belief
    // fails, and so does recording the capture failure (the process is going down).
    const crash = new Error('the process died between the two writes');
    const remember = vi.spyOn(store, 'remember').mockImplementation(() => {
      throw crash;
    });
    const record = vi.spyOn(store, 'recordCaptureFailure').mockImplementation(() => {
      throw crash;
    });
    await expect(session.handle('remember that my dentist is Dr. Ortiz')).rejects.toBe(crash);
    expect(remember).toHaveBeenCalled();
    expect(store.stats()).toMatchObject({ episodes: 0, active: 0 });

    // Control: without the fault the same line keeps both, the belief resting on the episode.
    remember.mockRestore();
    record.mockRestore();
    const r = await session.handle('remember that my dentist is Dr. Ortiz');
    expect(r.write?.decision).toBe('create');
    expect(store.stats()).toMatchObject({ episodes: 1, active: 1 });
    expect(store.activeFacts()[0]).toMatchObject({ value: 'Dr. Ortiz', source: 'owner_stated' });
    expect(r.episodeId).toBe(1);
  });
});

describe('a "remember that …" too long to keep as a belief', () => {
  it('is refused with TOO_LARGE, the limit and the fix, never silently; the message is stored', async () => {
    const session = new OfflineSession(store, { channel: 'terminal' });
    const said = `remember that my favourite story is ${'a'.repeat(1_000_000)}`;
    const r = await session.handle(said);
    expect(r.captureError).toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringContaining('2000 characters'),
      fix: expect.stringContaining('shorter sentence'),
    });
    expect(r.text).toMatch(
      /^Stored your message as e1, but could not keep it as a belief \(TOO_LARGE: /,
    );
    expect(r.text).toContain('fix: Say what to remember in a shorter sentence');
    expect(store.episode(1)?.text).toBe(said);
    expect(store.stats().active).toBe(0);
    expect(store.captureFailures()[0]).toMatchObject({ code: 'TOO_LARGE' });

    // Control: the same request, short enough, is kept.
    const kept = await session.handle('remember that my favourite story is the Odyssey');
    expect(kept.captureError).toBeUndefined();
    expect(kept.write?.decision).toBe('create');
    expect(store.activeFacts().map((f) => f.value)).toEqual(['the Odyssey']);
  });
});
