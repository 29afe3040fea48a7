import { startHttpPeer } from '@outpost/notification-senders/testing';
import { describe, expect, it } from 'vitest';
import { startTestNode } from '../service-helpers.js';

/**
 * Notifier URLs reach the node from the controller's console: by default they may not point at
 * loopback, private or metadata addresses (OUTBOUND_ALLOWED_NETWORKS opens ranges for a LAN receiver).
 */
describe('relay node notifier URL destinations', () => {
  it('by default a loopback or metadata receiver is refused and gets nothing; allowed, it is reached', async () => {
    const rx = await startHttpPeer();
    const strict = await startTestNode({ config: { outboundAllowedNetworks: undefined } });
    const lan = await startTestNode({ config: { outboundAllowedNetworks: '127.0.0.0/8' } });
    try {
      const urls = [`json://127.0.0.1:${rx.port}/alerts`, 'json://169.254.169.254/latest'];
      for (const n of [strict, lan])
        expect((await n.api('POST', '/api/relaynode/notifications', { notifier_urls: urls })).status).toBe(
          200,
        );
      const refused = await strict.api('POST', '/api/relaynode/notifications/test');
      expect(refused.body.results).toEqual([
        {
          url: `json://127.0.0.1:${rx.port}/****`,
          ok: false,
          error: 'json: loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
        },
        {
          url: 'json://169.254.169.254/****',
          ok: false,
          error: 'json: metadata address 169.254.169.254 not allowed (OUTBOUND_ALLOWED_NETWORKS)',
        },
      ]);
      expect(rx.requests).toHaveLength(0);
      const allowed = await lan.api('POST', '/api/relaynode/notifications/test');
      expect((allowed.body.results as { ok: boolean }[]).map((r) => r.ok)).toEqual([true, false]);
      expect(rx.requests).toHaveLength(1);
    } finally {
      await strict.stop();
      await lan.stop();
      await rx.close();
    }
  });
});
