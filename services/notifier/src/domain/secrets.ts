import { type ChannelType, notifier } from '@outpost/contracts';
import { redactNotifierUrl } from '@outpost/notification-senders';

const MASK = '****';

/** `****` plus the last 4 characters of a long secret, enough to tell two tokens apart. */
export function maskString(value: string): string {
  return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
}

/** Keeps scheme and host of a webhook URL; the path carries the token. */
export function maskUrl(value: string): string {
  try {
    const u = new URL(value);
    return `${u.protocol}//${u.host}/${MASK}`;
  } catch {
    return MASK;
  }
}

function maskValue(field: string, value: unknown): unknown {
  if (field === 'urls' && Array.isArray(value)) return value.map((u) => redactNotifierUrl(String(u)));
  if (field === 'headers' && value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).map((k) => [k, MASK]));
  }
  if (field === 'webhook_url' && typeof value === 'string') return maskUrl(value);
  if (typeof value === 'string') return value === '' ? '' : maskString(value);
  return MASK;
}

/** The config as a GET returns it: every write-only field masked. */
export function maskConfig(type: ChannelType, config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const field of notifier.SECRET_CONFIG_FIELDS[type] ?? []) {
    if (field in out) out[field] = maskValue(field, out[field]);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Header by header: a masked value keeps the stored one, anything else is taken as sent. */
function keepHeaders(incoming: unknown, stored: unknown): unknown {
  if (!isRecord(incoming) || !isRecord(stored)) return incoming;
  return Object.fromEntries(
    Object.entries(incoming).map(([k, v]) => [
      k,
      v === MASK && typeof stored[k] === 'string' ? stored[k] : v,
    ]),
  );
}

/** URL by position: an entry equal to the redacted form of the stored one at that index keeps it. */
function keepUrls(incoming: unknown, stored: unknown): unknown {
  if (!Array.isArray(incoming) || !Array.isArray(stored)) return incoming;
  return incoming.map((u, i) =>
    i < stored.length && u === redactNotifierUrl(String(stored[i])) ? stored[i] : u,
  );
}

/** A masked secret sent back after the destination changed: dropped, never stored as the literal mask. */
function dropMasked(field: string, incoming: Record<string, unknown>, stored: Record<string, unknown>): void {
  const value = incoming[field];
  if (value === undefined) return;
  if (field === 'headers' && isRecord(value)) {
    incoming[field] = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== MASK));
  } else if (same(value, maskValue(field, stored[field]))) {
    delete incoming[field];
  }
}

/**
 * Fills write-only fields an update left out, or sent back exactly as a GET masked them, from the
 * stored config, so a client can edit a channel without knowing its secrets. Not when the update moves
 * the channel to another destination (host, port, URL): then only secrets sent again are kept.
 */
export function keepSecrets(
  type: ChannelType,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...incoming };
  const moved = (notifier.DESTINATION_CONFIG_FIELDS[type] ?? []).some((f) => !same(out[f], stored[f]));
  for (const field of notifier.SECRET_CONFIG_FIELDS[type] ?? []) {
    if (moved) {
      if (field in stored) dropMasked(field, out, stored);
      continue;
    }
    if (!(field in stored)) continue;
    if (out[field] === undefined || same(out[field], maskValue(field, stored[field])))
      out[field] = stored[field];
    else if (field === 'headers') out[field] = keepHeaders(out[field], stored[field]);
    else if (field === 'urls') out[field] = keepUrls(out[field], stored[field]);
  }
  return out;
}
