/**
 * MQTT fuzz of the notifier's subscription (`controller/+/event/+`) through a real embedded broker,
 * notifier in-process on an in-memory database. Refused payloads (bytes, text, any JSON, event-shaped
 * JSON with one field broken) on any controller id and event name must leave channels, groups,
 * settings and the delivery history as they were, with no unhandled rejection; the REST API still
 * answers afterwards.
 *
 * Counts: FUZZ_RUNS messages when set, else 3,000 (a few seconds). FUZZ_SEED replays a seed.
 */
import fc from 'fast-check';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientBarrier,
  fuzzMqtt,
  level,
  noDelay,
  surfaceRuns,
  watchProcess,
} from '@outpost/contracts/testing';
import type { RunningNotifier } from '../../src/app.js';
import { embeddedBroker, launchNotifier, token } from '../helpers/notifier.js';
import { notifierSnapshot } from './fuzz-helpers.js';

const MESSAGES = surfaceRuns(3_000);

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let notifier: RunningNotifier;
let client: mqtt.MqttClient;
let auth: string;
const watch = watchProcess();

beforeAll(async () => {
  broker = await embeddedBroker();
  notifier = await launchNotifier({ mqttUrl: broker.url });
  await notifier.bus.waitConnected(5_000);
  auth = `Bearer ${await token()}`;
  client = noDelay(await mqtt.connectAsync(broker.url, { clientId: `notifier-fuzz-${process.pid}` }));
}, 60_000);

afterAll(async () => {
  await client?.endAsync();
  await notifier?.close();
  await broker?.close();
  watch.stop();
});

describe('notifier MQTT subscription under fuzzed payloads', () => {
  it(`drops ${MESSAGES} refused controller events; nothing changes`, { timeout: 300_000 }, async () => {
    const sent = await fuzzMqtt({
      client,
      surfaces: [
        {
          key: 'controllerEvent',
          topic: fc
            .tuple(
              fc.oneof(fc.constant('main'), level),
              fc.oneof(fc.constantFrom('generator_started', 'lockout_activated'), level),
            )
            .map(([id, name]) => `outpost/controller/${id}/event/${name}`),
        },
      ],
      messages: MESSAGES,
      barrier: await clientBarrier(notifier.bus.client, client, 'outpost/fuzz/barrier'),
      snapshot: () => notifierSnapshot(notifier, auth),
    });
    console.log('notifier MQTT refused payloads per topic:', Object.fromEntries(sent));
    expect(
      (await fetch(`${notifier.url}/api/notifications/channels`, { headers: { authorization: auth } }))
        .status,
    ).toBe(200);
    expect(watch.errors).toEqual([]);
  });
});
