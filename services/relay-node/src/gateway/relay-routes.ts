import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { relaynode } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { z } from 'zod';
import { type RelayNode, RelayRefused } from '../domain/relay-node.js';
import { authErrors, body, ErrorBody, json, security } from './openapi.js';

export const HeartbeatReply = relaynode.FailsafeStatus.extend({
  accepted: z.boolean(),
  verdict: relaynode.LeaseVerdict,
  reason: z.string().nullable(),
  relay_on: z.boolean(),
  armed: z.boolean(),
  physical_safety_engaged: z.boolean(),
  applied_seq: z.number().int().nullable(),
  /** The challenge the next lease must answer. */
  challenge: relaynode.LeaseChallenge,
});

const LeaseReply = z.object({
  lease_protocol: z.number().int(),
  challenge: relaynode.LeaseChallenge,
  epoch: z.string().nullable(),
  applied_seq: z.number().int().nullable(),
  refusal: relaynode.LeaseRefusal.nullable(),
  /** false: CONTROLLER_PUBLIC_KEY is not set, so no lease verifies and the relay stays OFF. */
  controller_key: z.boolean(),
});

const RelayReply = relaynode.RelayStateResponse.extend({
  applied_seq: z.number().int().nullable(),
  last_heartbeat: z.number().int().nullable(),
  timeout_seconds: z.number().int(),
  mock_mode: z.boolean(),
});

const tags = ['relay'];

export function mountRelayRoutes(
  app: OpenAPIHono,
  node: RelayNode,
  opts: { mock: boolean; keyConfigured: boolean },
): void {
  const relayReply = () => {
    const s = node.state();
    return {
      ...node.relayState(),
      applied_seq: s.applied_seq,
      last_heartbeat: s.last_heartbeat,
      timeout_seconds: s.timeout_seconds,
      mock_mode: opts.mock,
    };
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/failsafe',
      tags: ['failsafe'],
      security,
      summary: 'Failsafe status',
      responses: { 200: json(relaynode.FailsafeStatus), ...authErrors },
    }),
    (c) => c.json(node.failsafeStatus(), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/relay/state',
      tags,
      security,
      summary: 'Relay and arm status',
      responses: { 200: json(RelayReply), ...authErrors },
    }),
    (c) => c.json(relayReply(), 200),
  );

  const command = (path: string, summary: string, run: () => void, refusals = false) =>
    app.openapi(
      createRoute({
        method: 'post',
        path,
        tags,
        security,
        summary,
        responses: {
          200: json(RelayReply),
          ...(refusals
            ? { 409: json(ErrorBody, 'Refused: not armed, EPO engaged, or no live heartbeat') }
            : {}),
          ...authErrors,
        },
      }),
      (c) => {
        try {
          run();
        } catch (err) {
          if (err instanceof RelayRefused) throw new HttpError(409, err.message);
          throw err;
        }
        return c.json(relayReply(), 200);
      },
    );

  command(
    '/api/relay/on',
    'Relay ON (requires armed, no EPO, a live heartbeat)',
    () => node.turnOn('rest'),
    true,
  );
  command('/api/relay/off', 'Relay OFF (always allowed)', () => node.turnOff('rest'));
  command('/api/relay/arm', 'Arm', () => node.arm('rest'));
  command('/api/relay/disarm', 'Disarm (drops the relay)', () => node.disarm('rest'));

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/lease',
      tags: ['failsafe'],
      security,
      summary:
        'Lease status: the challenge the next signed lease must answer, what was applied, and the last refusal',
      responses: { 200: json(LeaseReply), ...authErrors },
    }),
    (c) => {
      const s = node.state();
      return c.json(
        {
          lease_protocol: relaynode.LEASE_PROTOCOL,
          challenge: node.challenge(),
          epoch: s.epoch,
          applied_seq: s.applied_seq,
          refusal: s.refusal ?? null,
          controller_key: opts.keyConfigured,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/heartbeat',
      tags: ['failsafe'],
      security,
      summary:
        'Heartbeat from the controller: interval and intended armed/relay state; replies with the failsafe status',
      request: body(relaynode.HeartbeatRequest),
      responses: { 200: json(HeartbeatReply), ...authErrors },
    }),
    (c) => {
      const b = c.req.valid('json');
      // The schema takes every lease field or none.
      const lease =
        b.sig !== undefined &&
        b.epoch !== undefined &&
        b.seq !== undefined &&
        b.issued_at !== undefined &&
        b.expires_at !== undefined &&
        b.challenge !== undefined
          ? {
              epoch: b.epoch,
              seq: b.seq,
              issued_at: b.issued_at,
              expires_at: b.expires_at,
              challenge: b.challenge,
              sig: b.sig,
            }
          : undefined;
      const out = node.handleDesired(
        { heartbeat_interval: b.heartbeat_interval, armed: b.armed, relay_on: b.relay_on, lease },
        'rest',
      );
      return c.json(
        {
          ...node.failsafeStatus(),
          accepted: out.verdict === 'fresh',
          verdict: out.verdict,
          reason: out.reason,
          relay_on: out.relay_on,
          armed: out.armed,
          physical_safety_engaged: node.isEpoEngaged,
          applied_seq: node.state().applied_seq,
          challenge: node.challenge(),
        },
        200,
      );
    },
  );
}
