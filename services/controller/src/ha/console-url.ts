import { networkInterfaces } from 'node:os';

/**
 * The console's address as another machine on the LAN reaches it, for Home Assistant's "Visit" link
 * (the device's configuration URL). CONSOLE_URL wins; a listener bound to one address gives that
 * address; a wildcard listener gives the first LAN IPv4 address, or nothing when there is none.
 */
export function consoleUrl(o: {
  configured?: string | undefined;
  host: string;
  port: number;
}): string | undefined {
  if (o.configured) return o.configured;
  const wildcard = o.host === '0.0.0.0' || o.host === '::';
  if (!wildcard) return `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}`;
  for (const addrs of Object.values(networkInterfaces())) {
    const lan = addrs?.find((a) => a.family === 'IPv4' && !a.internal);
    if (lan) return `http://${lan.address}:${o.port}`;
  }
  return undefined;
}
