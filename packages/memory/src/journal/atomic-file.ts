/**
 * Small files kept beside the database (the journal's anchor, the check's checkpoint), written
 * atomically.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `file` atomically: a temporary file beside it (fsynced when `sync`), renamed
 * over it. Mode 0600.
 *
 * @throws the file system's error (the temporary file is removed).
 */
export function writeRaw(file: string, text: string, sync = true): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeFileSync(fd, text);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
