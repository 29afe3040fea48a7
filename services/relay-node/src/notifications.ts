import {
  type BaseUrls,
  parseNotifierUrl,
  redactNotifierUrl,
  send,
  type Target,
} from '@outpost/notification-senders';

/**
 * The relay node's side of notification delivery: every notifier URL is parsed and sent by
 * @outpost/notification-senders; this module only reports per URL, in a form that is safe to log and return.
 */

/** Apprise's notification type; json:// receivers use it to colour or prioritise the message. */
export type NotifyType = 'info' | 'success' | 'failure';

export interface NodeMessage {
  title: string;
  body: string;
  type: NotifyType;
}

export interface DeliveryOptions {
  timeoutMs?: number;
  /** Provider origins (telegram, discord, slack, pushover, ntfy) replaced, e.g. by a local peer. */
  baseUrls?: BaseUrls;
  /** Refuses hosts the outbound policy does not allow (see @outpost/runtime's outbound). */
  outbound?: (host: string) => Promise<string | null>;
}

export interface DeliveryResult {
  /** Redacted: safe to log and to return to a client. */
  url: string;
  ok: boolean;
  error?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export interface UrlProblem {
  index: number;
  /** Redacted. */
  url: string;
  error: string;
}

/** The URLs that cannot be delivered to, with the reason (which never repeats a secret). */
export function notifierUrlProblems(urls: readonly string[]): UrlProblem[] {
  const problems: UrlProblem[] = [];
  urls.forEach((url, index) => {
    const parsed = parseNotifierUrl(url);
    if (!parsed.ok) problems.push({ index, url: redactNotifierUrl(url), error: parsed.error });
  });
  return problems;
}

/** Sends one message to every URL in parallel; never throws, reports per URL. */
export function deliverToAll(
  urls: readonly string[],
  message: NodeMessage,
  opts: DeliveryOptions = {},
): Promise<DeliveryResult[]> {
  return Promise.all(
    urls.map(async (url): Promise<DeliveryResult> => {
      const redacted = redactNotifierUrl(url);
      const parsed = parseNotifierUrl(url);
      if (!parsed.ok) return { url: redacted, ok: false, error: parsed.error };
      const r = await send(
        withType(parsed.target, message.type),
        { title: message.title, body: message.body },
        {
          timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          ...(opts.baseUrls ? { baseUrls: opts.baseUrls } : {}),
          ...(opts.outbound ? { outbound: opts.outbound } : {}),
        },
      );
      return r.ok ? { url: redacted, ok: true } : { url: redacted, ok: false, error: r.error };
    }),
  );
}

/**
 * The Apprise JSON document carries a `type`; the shared sender writes `info` unless the target adds
 * its own top-level fields, so a failsafe still arrives as `failure`. A `:type=` in the URL wins.
 */
function withType(target: Target, type: NotifyType): Target {
  if (target.kind !== 'json') return target;
  return { ...target, extra: { type, ...target.extra } };
}
