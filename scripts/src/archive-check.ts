import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * What a restore checks before it changes anything: every file of the archive is listed in its manifest
 * with the SHA-256 the backup computed, nothing is there that the manifest does not list, and a database
 * dump holds SQL only. psql runs a dump's backslash commands, `\!` (a shell) among them, so an archive
 * from elsewhere must not reach psql with any.
 */

export const sha256File = (path: string): string =>
  createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every regular file under `dir`, as archive paths (`data/secrets.json`), with its SHA-256. */
export function hashTree(root: string, dirs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) out[relative(root, path).split(sep).join('/')] = sha256File(path);
    }
  };
  for (const d of dirs) {
    try {
      walk(join(root, d));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return out;
}

/** The first difference between what was unpacked and what the manifest promised, or null. */
export function hashMismatch(found: Record<string, string>, listed: Record<string, string>): string | null {
  for (const [path, hash] of Object.entries(found)) {
    if (!(path in listed)) return `${path} is not listed in the manifest`;
    if (listed[path] !== hash) return `${path} does not match its SHA-256 in the manifest`;
  }
  for (const path of Object.keys(listed)) if (!(path in found)) return `${path} is missing`;
  return null;
}

/**
 * The line number of the first psql meta-command outside COPY data, or null. pg_dump writes none, except
 * the \restrict and \unrestrict pair newer versions put around a dump for exactly this reason.
 */
export function metaCommandLine(dump: string): number | null {
  const lines = dump.split('\n');
  let inCopy = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (inCopy) {
      if (line === '\\.') inCopy = false;
      continue;
    }
    if (/^COPY .* FROM stdin;$/.test(line)) inCopy = true;
    else if (/^\s*\\/.test(line) && !/^\\(restrict|unrestrict) [A-Za-z0-9]+$/.test(line)) return i + 1;
  }
  return null;
}
