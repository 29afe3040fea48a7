import { createRoute, z } from '@hono/zod-openapi';
import type { NodeReportGate } from '../domain/node-report-gate.js';
import type { DomainLogger } from '../domain/types.js';
import { actorOf, errorResponses, router } from './context.js';
import { json } from './openapi.js';

const tags = ['relaynode'];

const PinnedKey = z
  .object({
    pinned: z.boolean(),
    public_key: z.string().nullable(),
    fingerprint: z.string().nullable().openapi({
      description: "SHA-256 of the raw key, 16 bytes in hex pairs: compare it with the relay node's log",
    }),
  })
  .openapi('RelaynodePinnedKey');

/**
 * The relay node's report-signing key as the controller pinned it at first contact. Forgetting it lets
 * the next signed report pin a new key: for a node that was re-installed, after comparing fingerprints.
 */
export function relaynodeKeyRoutes(gate: NodeReportGate, logger: DomainLogger) {
  const r = router();
  const view = () => {
    const k = gate.pinnedKey;
    return { pinned: k !== null, public_key: k?.public_key ?? null, fingerprint: k?.fingerprint ?? null };
  };
  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/relaynode/key',
      tags,
      summary: "The relay node's pinned report-signing key",
      responses: { 200: json(PinnedKey), ...errorResponses([401]) },
    }),
    (c) => c.json(view(), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/api/relaynode/key',
      tags,
      summary: 'Forget the pinned relay node key (the next signed report pins its key)',
      responses: { 200: json(PinnedKey), ...errorResponses([401, 503]) },
    }),
    async (c) => {
      const before = gate.pinnedKey?.fingerprint ?? null;
      await gate.forget();
      logger.warn(
        { forgotten: before, ...actorOf(c) },
        'relay node key forgotten: the next signed report is pinned',
      );
      return c.json(view(), 200);
    },
  );
  return r;
}
