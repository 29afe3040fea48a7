import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  version?: string;
  workspaces?: unknown;
}

const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

/**
 * The release version: the `version` of the root package.json (the one that lists the workspaces), in a
 * checkout and in the release bundle alike. Every service reports this one number in /health, in its
 * OpenAPI `info.version` and in Home Assistant's `sw`, so they can never disagree with the release.
 */
export function releaseVersion(from: string = fileURLToPath(import.meta.url)): string {
  let own: string | undefined;
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = read(file);
      if (manifest.workspaces !== undefined && manifest.version) return manifest.version;
      own ??= manifest.version;
    }
    if (dirname(dir) === dir) break;
  }
  // Installed outside the workspace: this package's own version is the best left.
  return own ?? '0.0.0';
}

export const RELEASE_VERSION = releaseVersion();
