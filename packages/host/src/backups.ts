/**
 * Keel's backups folder, `$KEEL_HOME/backups`: where it is ({@link backupsPath}), which of its
 * files are backups ({@link isBackup}: a `.db` SQLite file under its own name, never a temporary
 * copy), and how what a killed copy left is cleared ({@link removeStaleCopies}).
 *
 * Every copy keel writes (a backup, a backup rewritten by a purge, a restore's incoming file) is
 * written under a hidden temporary name (`partialName` of `@keel/memory`: `.<name>.partial-<pid>`)
 * and takes its own name in one rename once verified. A process killed midway leaves that file
 * (and SQLite's side files, and the anchor keel writes beside a copy it opens) behind: the next
 * backup, restore or purge of the backups removes it once its writer is gone, and nothing ever
 * takes it for a backup.
 *
 * @module
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isSqliteFile, temporaryCopyPid } from '@keel/memory';
import { pidAlive } from './process.js';

/** The backups folder's name inside KEEL_HOME. */
export const BACKUPS_DIR = 'backups';

/** The backups folder for a KEEL_HOME. */
export function backupsPath(home: string): string {
  return join(home, BACKUPS_DIR);
}

/**
 * Whether the file `name` in `dir` is a backup: a `.db` file, not hidden, not a temporary copy
 * (`temporaryCopyPid` of `@keel/memory`), that starts as a SQLite database does (an empty or
 * cut-off file an older keel left is not one). What `keel doctor` names and a purge rewrites.
 */
export function isBackup(dir: string, name: string): boolean {
  if (!name.endsWith('.db') || name.startsWith('.') || temporaryCopyPid(name) !== null) {
    return false;
  }
  const path = join(dir, name);
  try {
    return statSync(path).isFile() && isSqliteFile(path);
  } catch {
    return false; // gone meanwhile
  }
}

/**
 * Removes what a copy killed midway left in `dir`: each temporary copy (`temporaryCopyPid` of
 * `@keel/memory`: a hidden `partialName`, its `-journal`, `-wal`, `-shm` and `.anchor`, or an older
 * keel's `keel.db.restoring-<pid>`) whose writer no longer runs. A copy whose writer still runs
 * (this process's own included) is left to it. Nothing else is touched; a folder that cannot be
 * read, or a file that cannot be removed, is left as it is (it only takes space).
 *
 * @param isAlive - whether a process id runs on this machine (tests); default `pidAlive`.
 * @returns the names removed.
 */
export function removeStaleCopies(
  dir: string,
  isAlive: (pid: number) => boolean = pidAlive,
): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = temporaryCopyPid(name);
    if (pid === null || pid === process.pid || isAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // not ours to fight over: it only takes space
    }
  }
  return removed;
}
