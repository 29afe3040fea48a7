import { isIP } from 'node:net';
import { basicAuthOk, type Credentials } from './basic-auth.js';

/**
 * Who sees the generator sites (running, armed, relay, failsafe, EPO). The simulator fleet view is
 * public, as the spec says; the sites are not: off loopback they need a dashboard login (the sites'
 * own, DASHBOARD_SITES_AUTH, or DASHBOARD_AUTH when set), unless DASHBOARD_PUBLIC_SITES says otherwise.
 * The address is the connection's own (the socket's peer), never a header a client can write.
 */
export interface SitesAccess {
  /** DASHBOARD_PUBLIC_SITES: everyone sees them. */
  public: boolean;
  /** Logins that show them: the sites' and DASHBOARD_AUTH's. */
  logins: Credentials[];
}

/** 127.0.0.0/8, ::1 and an IPv4-mapped 127.x (a dual-stack listener's view of an IPv4 loopback peer). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

export function sitesVisible(
  access: SitesAccess,
  remoteAddress: string | undefined,
  authorization: string | undefined | null,
): boolean {
  if (access.public || isLoopbackAddress(remoteAddress)) return true;
  return access.logins.some((login) => basicAuthOk(authorization, login));
}
