/**
 * Writing a file that holds a secret, atomically, without following a link someone planted. The
 * temporary file has a random name and is created with O_CREAT | O_EXCL | O_NOFOLLOW: a link (or any
 * file) already at that name makes the open fail rather than write through it, and the name cannot be
 * guessed in advance. The rename then replaces the final name itself, a link there included, never its
 * target. Node modules only: the resident launcher loads it.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** The temporary name beside `path`: random, so a link cannot be planted under it beforehand. */
export const temporaryName = (path: string): string => `${path}.${randomBytes(12).toString('hex')}.tmp`;

/** Writes `data` to `path` with `mode` (umask aside): a new file, synced, then renamed into place. */
export function writePrivateFile(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = temporaryName(path);
  const fd = openSync(tmp, CREATE_NEW, mode);
  try {
    // The mode exactly, whatever the umask took away from openSync's.
    fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  try {
    // The rename itself survives a power cut only once the folder is synced (best effort).
    const dir = openSync(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // not supported on every file system
  }
}
