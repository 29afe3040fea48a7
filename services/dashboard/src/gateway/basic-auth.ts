import { createHash, timingSafeEqual } from 'node:crypto';

export interface Credentials {
  username: string;
  password: string;
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Checks an `Authorization: Basic …` header against the configured pair. Digests are compared in
 * constant time so neither the length nor the content of the secret leaks through timing.
 */
export function basicAuthOk(header: string | undefined | null, creds: Credentials): boolean {
  if (!header) return false;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return false;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), digest(creds.username));
  const passOk = timingSafeEqual(digest(decoded.slice(colon + 1)), digest(creds.password));
  return userOk && passOk;
}

export const AUTH_CHALLENGE = 'Basic realm="Outpost fleet dashboard", charset="UTF-8"';
