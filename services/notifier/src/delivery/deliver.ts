import { type BaseUrls, channelTargets, sendAll } from '@outpost/notification-senders';
import type { Deliver } from '../domain/types.js';

export interface DeliverOptions {
  timeoutMs: number;
  baseUrls?: BaseUrls;
  fetch?: typeof fetch;
  /** Refuses hosts the outbound policy does not allow (OUTBOUND_ALLOWED_NETWORKS). */
  outbound?: (host: string) => Promise<string | null>;
}

/**
 * The outbound policy's refusal of a channel's targets, or null, for when a channel is created, changed
 * or tested. The hosts are the ones a delivery would connect to: the senders are run with an outbound
 * check that records each host and refuses it, so nothing is sent and no host is derived twice.
 */
export function createTargetCheck(opts: {
  baseUrls?: BaseUrls;
  refusal: (host: string) => Promise<string | null>;
}): (channelType: string, config: unknown) => Promise<string | null> {
  return async (channelType, config) => {
    const targets = channelTargets(channelType as never, config as never);
    if (!targets.ok) return null; // the schema check names it
    const refusals: string[] = [];
    await sendAll(
      targets.targets,
      { title: '', body: '' },
      {
        timeoutMs: 1,
        baseUrls: opts.baseUrls,
        fetch: () => Promise.reject(new Error('a target check sends nothing')),
        outbound: async (host) => {
          const why = await opts.refusal(host);
          if (why) refusals.push(why);
          return 'checked';
        },
      },
    );
    return refusals[0] ?? null;
  };
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
