import { networkInterfaces } from 'node:os';

/**
 * The console's address as another machine on the LAN reaches it, for Home Assistant's "Visit" link
 * (the device's configuration URL). CONSOLE_URL wins; a listener bound to one address gives that
 * address; a wildcard listener gives the first LAN IPv4 address, or nothing when there is none.
 * HTTPS when the gateway serves TLS, which it does when TLS_CERT_FILE and TLS_KEY_FILE are set.
 */
export function consoleUrl(o: {
  configured?: string | undefined;
  host: string;
  port: number;
  tls?: boolean;
}): string | undefined {
  if (o.configured) return o.configured;
  const scheme = (o.tls ?? Boolean(process.env.TLS_CERT_FILE && process.env.TLS_KEY_FILE)) ? 'https' : 'http';
  const wildcard = o.host === '0.0.0.0' || o.host === '::';
  if (!wildcard) return `${scheme}://${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}`;
  for (const addrs of Object.values(networkInterfaces())) {
    const lan = addrs?.find((a) => a.family === 'IPv4' && !a.internal);
    if (lan) return `${scheme}://${lan.address}:${o.port}`;
  }
  return undefined;
}
