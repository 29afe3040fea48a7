import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

describe('the D-Bus client', () => {
  it('parses introspection XML with an xml2js free of CVE-2023-0842 (prototype pollution, fixed in 0.5.0)', () => {
    // Resolved the way dbus-next itself resolves it, so a hoisting change cannot hide an old copy.
    const fromDbusNext = createRequire(createRequire(import.meta.url).resolve('dbus-next'));
    const { version } = fromDbusNext('xml2js/package.json') as { version: string };
    const [major, minor] = version.split('.').map(Number);
    expect(major! > 0 || minor! >= 5, `xml2js ${version}`).toBe(true);
  });
});
