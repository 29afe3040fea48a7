import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';

/** The secret testApp configures; a forger who knows it can still not beat expiry or the algorithm pin. */
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret';

export interface CredentialVariant {
  name: string;
  /** The Authorization header to send; null sends none. */
  authorization: string | null;
}

const key = (secret: string) => new TextEncoder().encode(secret);

/**
 * Every way a client can present bad credentials, each built from the claims of a real token so that
 * exactly one thing is wrong with it (the signature, the expiry, the algorithm).
 */
export async function invalidCredentials(validToken: string, nowMs: number): Promise<CredentialVariant[]> {
  const claims = decodeJwt(validToken);
  const nowSec = Math.floor(nowMs / 1000);
  const sign = (secret: string, alg: string, iat: number, exp: number) =>
    new SignJWT({ ...claims, iat, exp }).setProtectedHeader({ alg, typ: 'JWT' }).sign(key(secret));

  const otherSecret = await sign('another-secret-another-secret-another', 'HS256', nowSec, nowSec + 3600);
  const expired = await sign(TEST_JWT_SECRET, 'HS256', nowSec - 7200, nowSec - 60);
  const hs512 = await sign(TEST_JWT_SECRET, 'HS512', nowSec, nowSec + 3600);
  const none = new UnsecuredJWT({ ...claims, iat: nowSec, exp: nowSec + 3600 }).encode();
  // A real header and payload with the signature cut off: the "none" trick some libraries accept.
  const [header, payload] = validToken.split('.');
  const stripped = `${header}.${payload}.`;

  return [
    { name: 'no credentials', authorization: null },
    { name: 'empty header', authorization: '' },
    { name: 'malformed bearer', authorization: 'Bearer abc' },
    { name: 'bearer without a token', authorization: 'Bearer ' },
    { name: 'basic scheme', authorization: 'Basic x' },
    { name: 'basic scheme carrying the valid token', authorization: `Basic ${validToken}` },
    { name: 'signed with another secret', authorization: `Bearer ${otherSecret}` },
    { name: 'expired', authorization: `Bearer ${expired}` },
    { name: 'alg none', authorization: `Bearer ${none}` },
    { name: 'valid token with the signature removed', authorization: `Bearer ${stripped}` },
    { name: 'right secret, HS512 instead of the pinned HS256', authorization: `Bearer ${hs512}` },
  ];
}
