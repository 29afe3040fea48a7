import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Outpost-Signature';
export const TIMESTAMP_HEADER = 'X-Outpost-Timestamp';
export const EVENT_HEADER = 'X-Outpost-Event';
export const DELIVERY_HEADER = 'X-Outpost-Delivery';
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** `sha256=<hex>` HMAC-SHA256 of the exact body bytes. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export interface WebhookResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** Refused by the outbound policy: nothing was sent, and a retry would be refused the same way. */
  refused?: boolean;
}

export interface WebhookMessage {
  event: string;
  /** Unix seconds. */
  timestamp: number;
  data: Record<string, unknown>;
}

/** POSTs `{event, timestamp, data}` with its signature; never throws. */
export async function postWebhook(
  url: string,
  secret: string,
  message: WebhookMessage,
  opts: {
    deliveryId?: string;
    timeoutMs?: number;
    /** A reason to refuse the URL's host (the outbound policy), or null. */
    outbound?: ((url: string) => Promise<string | null>) | undefined;
  } = {},
): Promise<WebhookResult> {
  const refused = await opts.outbound?.(url);
  if (refused) return { ok: false, status: null, error: refused, refused: true };
  const body = JSON.stringify({ event: message.event, timestamp: message.timestamp, data: message.data });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'outpost-controller',
    [SIGNATURE_HEADER]: signBody(secret, body),
    [TIMESTAMP_HEADER]: String(message.timestamp),
    [EVENT_HEADER]: message.event,
  };
  if (opts.deliveryId) headers[DELIVERY_HEADER] = opts.deliveryId;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
    });
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, status: null, error: failureReason(err) };
  }
}

/** Webhooks receive the spec's webhook events (generator.started.*, generator.stopped.*) and the test event. */
export const isWebhookEvent = (event: string): boolean =>
  event.startsWith('generator.') || event === 'webhook.test';

/** `*` (every webhook event), an exact name, or a prefix ending in `*`. */
export function eventMatches(patterns: string[], event: string): boolean {
  return patterns.some(
    (p) => p === '*' || p === event || (p.endsWith('*') && event.startsWith(p.slice(0, -1))),
  );
}

/** Delay before attempt n+1 after n failed attempts; null when it is time to give up. */
export function retryDelayMs(failedAttempts: number): number | null {
  const schedule = [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
  return failedAttempts <= schedule.length ? (schedule[failedAttempts - 1] ?? null) : null;
}

/**
 * A few words a user may see: the error code, never the address, the port or a library's message,
 * which would tell a prober what answers inside the network.
 */
function failureReason(err: unknown): string {
  const e = err as Error & { cause?: { code?: unknown } };
  if (e.name === 'TimeoutError') return 'timed out';
  const code = e.cause?.code;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : 'network error';
}
