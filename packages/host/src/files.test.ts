// keel's data folder, wherever keel makes it, ignores itself: a KEEL_HOME inside a checkout is
// never committed (nor linted), and a folder the owner made is left as it is.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { setConfigValues } from './config-file.js';
import { ensureHome, HOME_GITIGNORE } from './files.js';
import { acquireServiceLock, serviceLockPath } from './lock.js';
import { closeStore, openStore } from './open.js';
import { keepForRecovery } from './recovery.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A git checkout in a temporary folder. */
function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keel-checkout-'));
  dirs.push(dir);
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

/** What `git status` would offer to commit in `dir`. */
const untracked = (dir: string) =>
  execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=all'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

describe('ensureHome', () => {
  it('makes a missing data folder private and ignored; leaves an existing one alone', () => {
    const repo = checkout();
    const home = join(repo, 'keel-home');
    ensureHome(home);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(home, '.gitignore'), 'utf8')).toBe(HOME_GITIGNORE);

    // Control: a folder the owner made is not written to.
    const own = join(repo, 'mine');
    mkdirSync(own);
    ensureHome(own);
    expect(existsSync(join(own, '.gitignore'))).toBe(false);
  });

  it('is how every writer makes the folder: nothing keel writes there can be committed', () => {
    const writers: [string, (home: string) => void][] = [
      ['the store', (home) => closeStore(openStore(loadConfig({ KEEL_HOME: home }), 'none'))],
      ['the config file', (home) => setConfigValues(home, { time_zone: 'Europe/Lisbon' })],
      [
        'the recovery file',
        (home) => keepForRecovery(home, { channel: 'terminal', text: 'my sister lives in Porto' }),
      ],
      [
        'a service lock',
        (home) =>
          acquireServiceLock(serviceLockPath(home, 'discord'), 'discord', {
            releaseOnExit: false,
          }).release(),
      ],
    ];
    for (const [what, write] of writers) {
      const repo = checkout();
      // Control: the checkout sees a file written beside the data folder.
      execFileSync('touch', [join(repo, 'notes.txt')]);
      write(join(repo, 'keel-home'));
      expect(untracked(repo), what).toEqual(['?? notes.txt']);
    }
  });
});
