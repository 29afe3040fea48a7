/**
 * MQTT fuzz of the relay node's subscriptions (`relaynode/<id>/desired`, `relaynode/<id>/request/+`)
 * through a real broker, node in-process on mock hardware and a manual clock. Refused payloads
 * (bytes, text, any JSON, contract-shaped JSON with one field broken) must change nothing; requests
 * with a valid envelope but wrong data get an error answer and change nothing; leases the contract
 * accepts but the node must not obey (disarmed, expired) never switch the relay on. After each batch
 * the node answers a `status` request (it still answers, and everything before it was handled).
 *
 * Counts: FUZZ_RUNS messages per property when set, else 2,000 refused payloads and 1,000 of each
 * other kind (about 20 s in all on a loaded 2-core machine). FUZZ_SEED replays a seed.
 */
import { randomUUID } from 'node:crypto';
import { relaynode, relaynodeSystem } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime/clock';
import fc from 'fast-check';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fcParams,
  fuzzMqtt,
  type JsonSchema,
  level,
  noDelay,
  resolverFor,
  surfaceRuns,
  until,
  validValue,
  watchProcess,
  wrongValue,
} from '@outpost/contracts/testing';
import { startTestBroker } from '../peers.js';
import { sign, TEST_CHALLENGE, TEST_LEASE_KEYS } from '../lease-fields.js';
import { leaseVerifier } from '../../src/domain/lease-verifier.js';
import { startTestNode } from '../service-helpers.js';
import { nodeSnapshot, type TestNode } from './fuzz-helpers.js';
import { z } from 'zod';

const REFUSED = surfaceRuns(2_000);
const verify = leaseVerifier('main', TEST_LEASE_KEYS.publicKey);
/** A lease the node would accept as signed (the fuzz must not generate a genuine ON by chance). */
const isSigned = (d: relaynode.DesiredState) => {
  const { heartbeat_interval, armed, relay_on, ...lease } = d;
  return verify({ heartbeat_interval, armed, relay_on }, lease);
};
const OTHER = surfaceRuns(1_000);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const T = 'outpost/relaynode/main';

let broker: Awaited<ReturnType<typeof startTestBroker>>;
let node: TestNode;
let client: mqtt.MqttClient;
const answers = new Map<string, { status: string; error?: string }>();
const watch = watchProcess();

/** A status request answered proves the node handled everything published before it. */
async function barrier(): Promise<void> {
  const transaction = `barrier-${randomUUID()}`;
  await client.publishAsync(`${T}/request/status`, JSON.stringify({ transaction }), { qos: 1 });
  await until(() => answers.get(transaction), 5_000);
  answers.delete(transaction);
}

beforeAll(async () => {
  broker = await startTestBroker();
  node = await startTestNode({
    clock: new ManualClock(NOW),
    config: { mqtt: { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' } },
  });
  await node.bus?.waitConnected(5_000);
  client = noDelay(await mqtt.connectAsync(broker.url, { clientId: `relaynode-fuzz-${process.pid}` }));
  client.on('message', (_topic, payload) => {
    try {
      const r = JSON.parse(payload.toString()) as { transaction: string; status: string; error?: string };
      answers.set(r.transaction, r);
    } catch {
      // Not an answer of ours.
    }
  });
  await client.subscribeAsync(`${T}/response/+`, { qos: 1 });
  await barrier();
}, 30_000);

afterAll(async () => {
  await client?.endAsync();
  await node?.stop();
  await broker?.close();
  watch.stop();
});

describe('relay node MQTT subscriptions under fuzzed payloads', () => {
  it(`drops ${REFUSED} refused payloads on desired and request topics; nothing changes`, {
    timeout: 300_000,
  }, async () => {
    const sent = await fuzzMqtt({
      client,
      surfaces: [
        { key: 'relaynodeDesired', topic: fc.constant(`${T}/desired`) },
        {
          key: 'request',
          topic: fc
            .oneof(fc.constantFrom(...relaynode.RELAYNODE_REQUEST_VERBS), level)
            .map((v) => `${T}/request/${v}`),
        },
      ],
      messages: REFUSED,
      barrier,
      snapshot: () => nodeSnapshot(node),
    });
    console.log('relay node MQTT refused payloads per topic:', Object.fromEntries(sent));
    expect(node.io.level(node.config.relayPin)).toBe(0);
    expect(watch.errors).toEqual([]);
  });

  it('answers valid requests carrying wrong data with an error and changes nothing', {
    timeout: 300_000,
  }, async () => {
    const resolve = resolverFor({});
    const schemas: Record<string, z.ZodType> = {
      'reboot-schedule': relaynode.RebootSchedule,
      notifications: relaynode.RelaynodeNotificationsRequest,
      'notifications-settings': relaynode.RelaynodeNotificationSettings,
      'dev-epo': relaynode.DevEpoRequest,
      // A broken body must never reach NetworkManager or logind.
      'wifi-add': relaynode.WifiAddRequest,
      'wifi-connect': relaynode.WifiConnectRequest,
      'wifi-forget': relaynodeSystem.WifiForgetRequest,
      reboot: relaynode.PowerRequest,
      shutdown: relaynode.PowerRequest,
    };
    const wrongData = fc.constantFrom(...Object.keys(schemas)).chain((verb) => {
      const schema = schemas[verb] as z.ZodType;
      const json = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
      return wrongValue(json, resolve)
        .filter((data) => !schema.safeParse(data).success)
        .map((data) => ({ verb, data }));
    });
    const before = await nodeSnapshot(node);
    await fc.assert(
      fc.asyncProperty(wrongData, async ({ verb, data }) => {
        const transaction = randomUUID();
        await client.publishAsync(`${T}/request/${verb}`, JSON.stringify({ transaction, data }), { qos: 1 });
        const answer = await until(() => answers.get(transaction), 5_000);
        answers.delete(transaction);
        expect(answer.status, JSON.stringify({ verb, data })).toBe('error');
        expect(answer.error?.length).toBeGreaterThan(0);
        expect(await nodeSnapshot(node)).toEqual(before);
      }),
      fcParams(OTHER),
    );
    expect(watch.errors).toEqual([]);
  });

  it('never switches the relay on from a disarmed, forged or unanswered lease the contract accepts', {
    timeout: 300_000,
  }, async () => {
    const json = z.toJSONSchema(relaynode.DesiredState, { io: 'input' }) as JsonSchema;
    const lease = validValue(json, resolverFor({})).map((v) => v as relaynode.DesiredState);
    let seq = 0;
    // Disarmed and signed; armed with a made-up signature (the relay key alone); or armed and signed
    // but answering a challenge the node never issued (held back or replayed).
    const refusedOn = fc
      .tuple(lease, fc.constantFrom('disarmed', 'forged', 'unanswered'))
      .map(([d, kind]) => {
        // Always newer than anything before, so only the lease itself can refuse it.
        const fields = {
          ...d,
          seq: 1_000_000 + ++seq,
          epoch: '1',
          relay_on: true,
          armed: kind !== 'disarmed',
        };
        if (kind === 'forged') return fields;
        const { sig: _sig, ...unsigned } = fields;
        return sign('main', { ...unsigned, challenge: kind === 'unanswered' ? d.challenge : TEST_CHALLENGE });
      })
      // Nothing a genuine controller would send: armed, signed and answering the node's challenge.
      .filter(
        (d) =>
          relaynode.DesiredState.safeParse(d).success &&
          !(d.armed && d.challenge === TEST_CHALLENGE && isSigned(d)),
      );
    await fc.assert(
      fc.asyncProperty(refusedOn, async (d) => {
        await client.publishAsync(`${T}/desired`, JSON.stringify(d), { qos: 1 });
        await barrier();
        expect(node.io.level(node.config.relayPin), JSON.stringify(d)).toBe(0);
        expect((await node.api('GET', '/api/relay/state')).body.relay_on).toBe(false);
      }),
      fcParams(OTHER),
    );
    expect(watch.errors).toEqual([]);
  });
});
