import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's screenshot command, without types
import * as shots from '../screenshots-inputs.mjs';

const { CONSOLES, ROOT, SCREENSHOTS_DIR } = shots as {
  CONSOLES: Record<string, { service: string; pictures: string[] }>;
  ROOT: string;
  SCREENSHOTS_DIR: string;
};
const inputsHash = shots.inputsHash as (name: string) => string;
const sha256 = shots.sha256 as (data: Buffer) => string;
const manifest = (
  shots.readManifest as () => {
    consoles: Record<string, { inputs: string; pictures: Record<string, string> } | undefined>;
  }
)();

const update = (name?: string) => `run \`npm run screenshots${name ? ` -- ${name}` : ''}\` to update them`;

// The README pictures are checked by what they were made from, not by comparing pixels: a loaded CI
// machine renders the same page a few pixels apart, but a changed source file is a changed hash.
describe('the README pictures of the consoles', () => {
  it.each(Object.keys(CONSOLES))(
    '%s: its pictures were taken from its current web source, packages/ui and state script',
    (name) => {
      const entry = manifest.consoles[name];
      expect(entry, `${name} has no entry in docs/screenshots/manifest.json: ${update(name)}`).toBeDefined();
      expect(
        entry?.inputs,
        `${name}: its web source, packages/ui or its state script changed since its pictures were taken: ${update(name)}`,
      ).toBe(inputsHash(name));
    },
  );

  it.each(Object.keys(CONSOLES))('%s: each picture is the one the manifest recorded', (name) => {
    for (const file of CONSOLES[name]!.pictures) {
      const path = join(SCREENSHOTS_DIR, file);
      expect(existsSync(path), `docs/screenshots/${file} is missing: ${update(name)}`).toBe(true);
      expect(
        sha256(readFileSync(path)),
        `docs/screenshots/${file} is not the picture its manifest entry records: ${update(name)}`,
      ).toBe(manifest.consoles[name]?.pictures[file]);
    }
  });

  it('the README shows one picture of each console, and each one it shows exists', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/\]\((docs\/screenshots\/[^)\s]+\.png)\)/g)].map((m) => m[1] as string);
    for (const name of Object.keys(CONSOLES))
      expect(
        shown.filter((p) => p.startsWith(`docs/screenshots/${name}-`)),
        name,
      ).toHaveLength(1);
    for (const p of shown) expect(existsSync(join(ROOT, p)), p).toBe(true);
  });
});
