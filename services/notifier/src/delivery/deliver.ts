import { type BaseUrls, channelTargets, sendAll } from '@outpost/notification-senders';
import type { Deliver } from '../domain/types.js';

export interface DeliverOptions {
  timeoutMs: number;
  baseUrls?: BaseUrls;
  fetch?: typeof fetch;
  /** Refuses hosts the outbound policy does not allow (OUTBOUND_ALLOWED_NETWORKS). */
  outbound?: (host: string) => Promise<string | null>;
}

/** The real protocols behind the domain's Deliver: HTTP providers, webhooks and SMTP via @outpost/notify. */
export function createDeliver(opts: DeliverOptions): Deliver {
  return async (channel, message, context) => {
    const targets = channelTargets(channel.channel_type, channel.config as never);
    if (!targets.ok)
      return { ok: false, error: `config.${targets.field}: ${targets.error}`, retryable: false };
    return sendAll(targets.targets, message, {
      timeoutMs: opts.timeoutMs,
      baseUrls: opts.baseUrls,
      fetch: opts.fetch,
      outbound: opts.outbound,
      context,
    });
  };
}
