import { createSecretKey, type KeyObject, randomUUID } from 'node:crypto';
import { errors as joseErrors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { AuthStore } from '../db/auth-store.js';
import type { Clock } from '../domain/clock.js';
import { generatePassword, hashPassword, verifyPassword } from './password.js';

/** Verified tokens remembered so a request costs no signature check; oldest dropped first. */
const VERIFIED_CACHE_SIZE = 1024;

export interface TokenClaims {
  username: string;
  jti: string;
  /** ms */
  expiresAt: number;
}

const ALG = 'HS256';
const ISSUER = 'outpost-controller';

/** Login, bearer tokens (JWT HS256, pinned), logout by revocation and password changes. */
export class AuthService {
  private readonly key: KeyObject;
  private dummyHash: Promise<string> | null = null;
  /** Token checks run from memory so a stop still passes auth while the database is down. */
  private readonly versions = new Map<string, number>();
  private readonly revoked = new Map<string, number>();
  /** Tokens whose signature and claims were checked, with what a request still checks. */
  private readonly verified = new Map<string, { claims: TokenClaims; pwv: unknown }>();

  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    secret: string,
    readonly ttlSeconds: number,
  ) {
    // A KeyObject made once: handing jose raw bytes makes it import the key again on every request.
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** Loads the password versions and live revocations (the only process writing them is this one). */
  async init(): Promise<void> {
    for (const u of await this.store.allUsers()) this.versions.set(u.username, u.password_changed_at);
    for (const r of await this.store.revokedSince(this.clock.now())) this.revoked.set(r.jti, r.expires_at);
  }

  /** Creates the first user when there is none; returns the generated password if one was made. */
  async ensureAdmin(
    username: string,
    password?: string,
  ): Promise<{ created: boolean; generatedPassword: string | null }> {
    if ((await this.store.userCount()) > 0) return { created: false, generatedPassword: null };
    const pw = password ?? generatePassword();
    const now = this.clock.now();
    await this.store.createUser(username, await hashPassword(pw), now);
    this.versions.set(username, now);
    return { created: true, generatedPassword: password ? null : pw };
  }

  async login(username: string, password: string) {
    const user = await this.store.findUser(username);
    if (!user) {
      // Same work as a real check so timing does not reveal which usernames exist.
      this.dummyHash ??= hashPassword(generatePassword());
      await verifyPassword(password, await this.dummyHash);
      return null;
    }
    if (!(await verifyPassword(password, user.password_hash))) return null;
    this.versions.set(user.username, user.password_changed_at);
    const nowSec = Math.floor(this.clock.now() / 1000);
    const token = await new SignJWT({ pwv: user.password_changed_at })
      .setProtectedHeader({ alg: ALG, typ: 'JWT' })
      .setSubject(user.username)
      .setJti(randomUUID())
      .setIssuer(ISSUER)
      .setIssuedAt(nowSec)
      .setExpirationTime(nowSec + this.ttlSeconds)
      .sign(this.key);
    return { access_token: token, token_type: 'bearer' as const, expires_in: this.ttlSeconds };
  }

  /** The claims of a valid, unrevoked token of the user's current password; else null. */
  async verify(token: string): Promise<TokenClaims | null> {
    const known = this.verifyKnown(token);
    if (known !== undefined) return known;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: [ALG],
        issuer: ISSUER,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return null;
      throw err;
    }
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    // One frozen object per token: every request of the session is handed the same claims.
    const claims: TokenClaims = Object.freeze({
      username: payload.sub as string,
      jti: payload.jti as string,
      expiresAt: (payload.exp as number) * 1000,
    });
    this.verified.set(token, { claims, pwv: payload.pwv });
    return this.current(token, claims, payload.pwv);
  }

  /**
   * verify() without the signature check, for a token whose signature was already checked here:
   * its claims, or null when it is expired, revoked or of an old password; undefined when the token
   * is not known (verify it). Synchronous, so the read path awaits nothing for a known token.
   */
  verifyKnown(token: string): TokenClaims | null | undefined {
    const hit = this.verified.get(token);
    return hit === undefined ? undefined : this.current(token, hit.claims, hit.pwv);
  }

  /** The expiry, revocation and password version, checked on every request from memory. */
  private current(token: string, claims: TokenClaims, pwv: unknown): TokenClaims | null {
    if (claims.expiresAt <= this.clock.now()) {
      this.verified.delete(token);
      return null;
    }
    if (this.revoked.has(claims.jti)) return null;
    // Tokens carry the password version; a password change ends every earlier session.
    const version = this.versions.get(claims.username);
    if (version === undefined || pwv !== version) return null;
    return claims;
  }

  async logout(claims: TokenClaims): Promise<void> {
    const now = this.clock.now();
    for (const [jti, exp] of this.revoked) if (exp < now) this.revoked.delete(jti);
    this.revoked.set(claims.jti, claims.expiresAt);
    await this.store.revoke(claims.jti, claims.expiresAt);
    await this.store.pruneRevoked(this.clock.now());
  }

  async changePassword(username: string, current: string, next: string): Promise<boolean> {
    const user = await this.store.findUser(username);
    if (!user || !(await verifyPassword(current, user.password_hash))) return false;
    const version = Math.max(this.clock.now(), user.password_changed_at + 1);
    await this.store.setPassword(username, await hashPassword(next), version);
    this.versions.set(username, version);
    return true;
  }

  async user(username: string) {
    return this.store.findUser(username);
  }
}
