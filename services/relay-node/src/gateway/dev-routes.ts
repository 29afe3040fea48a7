import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { health, relaynode } from '@outpost/contracts';
import { z } from 'zod';
import type { RelaynodeConfig } from '../config.js';
import type { RelayNode } from '../domain/relay-node.js';
import type { MockIO } from '../hardware/mock-io.js';
import { authErrors, body, json, security } from './openapi.js';

/** Mock hardware only (ARCHITECTURE.md): press/release the EPO contact, inspect the mock GPIO. */
export interface DevContext
  extends Pick<
    RelaynodeConfig,
    | 'relayPin'
    | 'relayActiveLow'
    | 'epoPin'
    | 'epoActiveLow'
    | 'feedbackPin'
    | 'feedbackActiveLow'
    | 'hardwareSafety'
  > {
  node: RelayNode;
  io: MockIO;
  powerCalls: () => string[];
}

const Status = z.record(z.string(), z.unknown());

/** Presses or releases the mock EPO contact and waits (bounded) until the debounce has seen it. */
export async function pressMockEpo(
  d: Pick<DevContext, 'node' | 'io' | 'epoPin' | 'epoActiveLow'>,
  engaged: boolean,
): Promise<boolean> {
  const active = d.epoActiveLow ? 0 : 1;
  d.io.setInput(d.epoPin, engaged ? active : 1 - active);
  // The monitor polls every 25 ms and needs 2 reads: wait for it so the answer is current.
  const until = Date.now() + 500;
  while (d.node.isEpoEngaged !== engaged && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return d.node.isEpoEngaged;
}

export function mountDevRoutes(app: OpenAPIHono, d: DevContext): void {
  const status = () => ({
    mock_mode: true,
    hardware_safety_enabled: d.hardwareSafety,
    relay_on: d.node.isRelayOn,
    armed: d.node.isArmed,
    physical_safety_engaged: d.node.isEpoEngaged,
    failsafe_triggered: d.node.failsafeStatus().failsafe_triggered,
    gpio: {
      relay: { pin: d.relayPin, active_low: d.relayActiveLow, level: d.io.level(d.relayPin) },
      epo: { pin: d.epoPin, active_low: d.epoActiveLow, level: d.io.level(d.epoPin) },
    },
    power_calls: d.powerCalls(),
    running_feedback: d.node.state().running_feedback ?? null,
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/dev/status',
      tags: ['dev'],
      security,
      responses: { 200: json(Status), ...authErrors },
    }),
    (c) => c.json(status(), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/epo',
      tags: ['dev'],
      security,
      summary: 'Press (engaged: true) or release the mock EPO contact; answers once the debounce has seen it',
      request: body(relaynode.DevEpoRequest),
      responses: { 200: json(Status), ...authErrors },
    }),
    async (c) => {
      await pressMockEpo(d, c.req.valid('json').engaged);
      return c.json(status(), 200);
    },
  );

  const feedbackPin = d.feedbackPin;
  if (!feedbackPin) return;
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/running-feedback',
      tags: ['dev'],
      security,
      summary:
        'Close (running: true) or open the mock running-feedback contact; it counts after its 1 s debounce',
      request: body(health.RunningFeedbackRequest),
      responses: { 200: json(Status), ...authErrors },
    }),
    (c) => {
      const active = d.feedbackActiveLow === false ? 1 : 0;
      d.io.setInput(feedbackPin, c.req.valid('json').running ? active : 1 - active);
      return c.json(status(), 200);
    },
  );
}
