import { readFileSync } from 'node:fs';

let cached: string | null = null;

/** The fleet view page (web/index.html), read once. */
export function dashboardPage(): string {
  cached ??= readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');
  return cached;
}
