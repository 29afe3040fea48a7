import { relaynode, relaynodeSystem } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import type { z } from 'zod';
import type { NodeAdmin } from '../admin.js';
import { BusUnavailable } from '../system/dbus.js';
import { type NetworkManagerWifi, WifiError } from '../system/wifi.js';

/**
 * The WiFi and power verbs the controller proxies (`relaynode/<id>/request/wifi-*`, `reboot`,
 * `shutdown`), on the same domain code as the node's own /api/system routes. Refusals are HttpErrors
 * so the request handler answers with their status: 404 unknown network, 409 relay ON, 422 bad
 * password, 503 no NetworkManager.
 */
export async function runSystemVerb(
  verb: relaynodeSystem.RelaynodeSystemVerb,
  data: unknown,
  admin: NodeAdmin,
  wifi: NetworkManagerWifi | null,
): Promise<unknown> {
  switch (verb) {
    case 'reboot':
    case 'shutdown':
      parse(relaynode.PowerRequest, data);
      return admin.power(verb);
    case 'wifi-scan':
      return { networks: await wifiCall(wifi, (w) => w.scan()) };
    case 'wifi-list':
      return { networks: await wifiCall(wifi, (w) => w.saved()) };
    case 'wifi-add': {
      const req = parse(relaynode.WifiAddRequest, data);
      return wifiCall(wifi, (w) => w.add(req));
    }
    case 'wifi-connect': {
      const req = parse(relaynode.WifiConnectRequest, data);
      return wifiCall(wifi, (w) => w.connect(req));
    }
    case 'wifi-forget': {
      const { ssid } = parse(relaynodeSystem.WifiForgetRequest, data);
      return wifiCall(wifi, (w) => w.forget(ssid));
    }
  }
}

export const isSystemVerb = (verb: string): verb is relaynodeSystem.RelaynodeSystemVerb =>
  (relaynodeSystem.RELAYNODE_SYSTEM_VERBS as readonly string[]).includes(verb);

/** Field paths and messages only: zod's issue text never carries the value, so no password leaks. */
function parse<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  throw new HttpError(
    422,
    r.error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; '),
  );
}

async function wifiCall<T>(
  wifi: NetworkManagerWifi | null,
  fn: (w: NetworkManagerWifi) => Promise<T>,
): Promise<T> {
  if (!wifi) throw new HttpError(503, 'WiFi management is not available (no system message bus)');
  try {
    return await fn(wifi);
  } catch (err) {
    if (err instanceof WifiError) throw new HttpError(err.status, err.message);
    if (err instanceof BusUnavailable) throw new HttpError(503, err.message);
    throw new HttpError(502, `NetworkManager error: ${(err as Error).message}`);
  }
}
